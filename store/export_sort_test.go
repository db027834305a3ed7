package store

// SetRareWindowCap changes rareWindowCap for a test and returns a function
// that restores it.
func SetRareWindowCap(n int) (restore func()) {
	old := rareWindowCap
	rareWindowCap = n
	return func() { rareWindowCap = old }
}
