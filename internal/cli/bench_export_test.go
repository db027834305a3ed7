package cli

import "testing"

// earshot bench reports the rows an export held, not the --export limit:
// with fewer mentions than the limit it printed the limit and a rate it
// never reached. A quoted cell may hold line breaks.
func TestBenchCountsExportedRows(t *testing.T) {
	for in, want := range map[string]int{
		"id,text\r\n":                              0,
		"id,text\r\n1,a\r\n2,b\r\n":                2,
		"id,text\r\n1,\"two\r\nlines\"\r\n2,b\r\n": 2,
		"": 0,
	} {
		got, err := csvRows([]byte(in))
		if err != nil || got != want {
			t.Errorf("csvRows(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
