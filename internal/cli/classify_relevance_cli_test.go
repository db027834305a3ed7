package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// `earshot classify` reads text given on its own: a line that names none
// of the brand terms is not relevant (no monitor vouches for it), and every
// answer says why, as stored mentions do.
func TestClassifyRelevanceNeedsTheBrand(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"other","text":"hi Zentro, great weather"}`,
		`{"id":"brand","text":"Acme Projects shipped the new timeline view"}`,
		`{"id":"ownkw","text":"Globex rocks","keywords":["Globex"]}`,
	}, "\n")
	var o, e strings.Builder
	code := run(context.Background(), []string{"classify", "--classifier", "builtin", "--brand", "Acme Projects", "--keywords", "Acme"},
		strings.NewReader(in), &o, &e, func(string) string { return "" })
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, e.String())
	}
	want := map[string]bool{"other": false, "brand": true, "ownkw": true}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines: %q", len(lines), o.String())
	}
	for _, l := range lines {
		var m struct {
			ID              string `json:"id"`
			IsRelevant      *bool  `json:"is_relevant"`
			RelevanceReason string `json:"relevance_reason"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m.IsRelevant == nil || *m.IsRelevant != want[m.ID] || m.RelevanceReason == "" {
			t.Errorf("%s: %s, want is_relevant %v with a relevance_reason", m.ID, l, want[m.ID])
		}
	}
}
