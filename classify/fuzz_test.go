package classify

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"earshot/vocab"
)

// FuzzClassify: any text, HTML or not, in any script, classifies without a
// panic, with a valid category, urgency in 0..100 and a non-empty summary of
// at most MaxSummaryRunes, valid UTF-8 when the input is.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"", "Acme crashes", "<p>Acme <b>deleted</b> all my data</p>", strings.Repeat("Ⱥ", 20) + "<script>x</script>",
		"\u212a<STYLE>p{}</style>Acme", "never lost my data, no outage", "Das ist die beste App 😍", "<scripts><script", "a < b > c &amp; <3"} {
		f.Add(s)
	}
	b := NewBuiltin()
	f.Fuzz(func(t *testing.T, text string) {
		r, err := b.Classify(context.Background(), Input{Text: text, Keywords: []string{"Acme"}})
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, c := range vocab.Categories {
			ok = ok || c == r.Category
		}
		if !ok || r.Urgency < 0 || r.Urgency > 100 || r.Summary == "" || utf8.RuneCountInString(r.Summary) > MaxSummaryRunes {
			t.Fatalf("Classify(%q) = %+v", text, r)
		}
		if utf8.ValidString(text) && !utf8.ValidString(r.Summary) {
			t.Fatalf("summary of valid text is not UTF-8: %q", r.Summary)
		}
	})
}
