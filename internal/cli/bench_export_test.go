package cli

import (
	"strings"
	"testing"
)

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

// earshot bench runs to its report on a small store: every request it
// makes is one the API accepts (an emoji-only search, refused by the
// search grammar as having no words, once stopped it halfway).
func TestBenchRunsToTheEnd(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, nil, "bench", "--data", dir, "--mentions", "400", "--other", "0", "--requests", "4", "--export", "100", "--ingest", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"search pages (10 terms", "10-page cursor walk"} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
