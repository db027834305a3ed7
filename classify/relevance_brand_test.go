package classify

import (
	"context"
	"strings"
	"testing"
)

func TestKeywordAmbiguity(t *testing.T) {
	acme := Input{Keywords: []string{"Acme", "Acme Projects"}}
	tests := []struct {
		in      Input
		keyword string
		want    string // a part of the ambiguity; "" = distinctive
	}{
		{acme, "Acme", "short for 'Acme Projects'"},
		{Input{Project: Project{Description: "Acme Projects is a project management app."}}, "Acme", "short for 'Acme Projects'"},
		{Input{}, "Acme", "short name"},
		{Input{}, "Jira", "short name"},
		{Input{}, "Notion", "common word"},
		{Input{}, "apple", "common word"},
		{Input{}, "Slack", "common word"},
		{Input{}, "Zendesk", ""},
		{Input{}, "Globex", ""},
		{acme, "Acme Projects", ""},
		{Input{}, "acme.example", ""},
		{Input{}, "@acme", ""},
		{Input{}, "#acmedown", ""},
		{Input{}, "HubSpot", ""},
		{Input{}, "3M", ""},
	}
	for _, tc := range tests {
		got := ambiguity(tc.keyword, tc.in)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("ambiguity(%q) = %q, want %q", tc.keyword, got, tc.want)
		}
	}
}

// TestRelevanceAmbiguousNames: a keyword other things share is relevant
// only with evidence; a distinctive one stands alone. Every verdict comes
// with a reason naming the evidence.
func TestRelevanceAmbiguousNames(t *testing.T) {
	b := NewBuiltin()
	acme := Input{Keywords: []string{"Acme", "acme.example", "@acme", "Acme Projects"},
		Project: Project{Name: "Acme", Website: "https://acme.example",
			Description: "Acme Projects is a project management app for small teams: boards, timelines and sprints.",
			Terms:       []string{"Acme", "acme.example", "@acme", "Acme Projects", "Globex"}}}
	zendesk := Input{Keywords: []string{"Zendesk"}}
	tests := []struct {
		name   string
		base   Input
		source string
		text   string
		want   bool
		reason string // a part of the relevance reason
	}{
		// Name collisions: no evidence, or evidence against.
		{"another company", acme, "news", "Acme Brick reports record quarter", false, "'Acme Brick' looks like another name"},
		{"protocol acronym", acme, "x", "Renewed 40 certs with an ACME client in 2 seconds", false, "'ACME' in capitals"},
		{"another domain", acme, "reddit", "acme.sh keeps timing out on the TXT record", false, "'acme.sh' is another domain"},
		{"common word", acme, "news", "The acme of remote work? Async standups, explained", false, "'the acme' is the common word"},
		{"cartoon", acme, "reddit", "Best Acme gag in Road Runner history? The Acme Batman outfit", false, "nothing here ties it to the brand"},
		{"no evidence at all", acme, "x", "Acme lands in Monterrey", false, "'Acme' is short for 'Acme Projects', and nothing here ties it to the brand"},
		// The same short name with evidence.
		{"own domain", acme, "x", "status.acme.example says degraded", true, "names acme.example"},
		{"handle", acme, "x", "@acme your boards are down", true, "names @acme"},
		{"full name", acme, "x", "Acme Projects is my favourite", true, "names 'Acme Projects'"},
		{"product word next to it", acme, "x", "acme support ghosted me for 5 days", true, "'acme' next to 'support'"},
		{"service down", acme, "x", "acme down again?? third time this month", true, "'acme' next to 'down'"},
		{"version", acme, "news", "Review: Acme 4.2 finally makes it usable", true, "'Acme' with a version number"},
		{"description words", acme, "x", "Moved our boards and sprints to Acme last week", true, "from the project description"},
		{"competitor named", acme, "x", "Acme vs Globex for a startup?", true, "named with 'Globex'"},
		{"capitals but a review of the app", acme, "reviews", "Not the ACME I expected, but a good app anyway", true, "a review"},
		// A distinctive name stands alone.
		{"distinctive", zendesk, "x", "Zendesk is slow today", true, "names 'Zendesk'"},
		{"distinctive in capitals", zendesk, "x", "ZENDESK again", true, "names 'Zendesk'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.base
			in.Text, in.Source = tc.text, tc.source
			r, _ := b.Classify(context.Background(), in)
			if r.IsRelevant != tc.want || !strings.Contains(r.RelevanceReason, tc.reason) {
				t.Errorf("%q: relevant %v (%s), want %v with %q", tc.text, r.IsRelevant, r.RelevanceReason, tc.want, tc.reason)
			}
			prefix := "not relevant: "
			if tc.want {
				prefix = "relevant: "
			}
			if !strings.HasPrefix(r.RelevanceReason, prefix) || len(r.RelevanceReason) > 200 {
				t.Errorf("reason %q: want a short one starting %q", r.RelevanceReason, prefix)
			}
		})
	}
}

// FuzzRelevance: any text, with a brand configured every way, gives a
// verdict whose reason agrees with it, and never panics (offsets into the
// original and lower-cased text, hosts, versions, capitals).
func FuzzRelevance(f *testing.F) {
	for _, s := range []string{"", "Acme", "ACME", "acme.", "@acme", "Acme 4.", "Acme's new", "status.acme.example.", "İstanbul Acme Brick",
		"Acme \u212a", "the acme of", "Acme Projects", "ACME client v2.1", "Ⱥcme Acme Ⱥ", "Acme\u00a0Brick"} {
		f.Add(s)
	}
	b := NewBuiltin()
	in := Input{Keywords: []string{"Acme", "acme.example", "@acmehq", "Acme Projects", "Zendesk"},
		Project: Project{Name: "Acme", Website: "https://www.acme.example/", Description: "Acme Projects is a planning app. On X @acmehq.",
			Terms: []string{"Globex", "Linear", "@acmehq"}}}
	f.Fuzz(func(t *testing.T, text string) {
		x := in
		x.Text = text
		r, err := b.Classify(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		want := "not relevant: "
		if r.IsRelevant {
			want = "relevant: "
		}
		if !strings.HasPrefix(r.RelevanceReason, want) {
			t.Fatalf("Classify(%q): relevant %v, reason %q", text, r.IsRelevant, r.RelevanceReason)
		}
	})
}
