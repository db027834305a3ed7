package wire

// NewerID reports whether decimal id a is newer (greater) than b, comparing
// them as strings, without overflow worries.
func NewerID(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// TwitterEpochMS is the epoch of X's snowflake ids, in Unix milliseconds:
// an id's time is its top 41 bits plus this.
const TwitterEpochMS = int64(1288834974657)
