package store

// SetRareFacetCap changes rareFacetCap for a test and returns a function
// that restores it.
func SetRareFacetCap(n int) (restore func()) {
	old := rareFacetCap
	rareFacetCap = n
	return func() { rareFacetCap = old }
}
