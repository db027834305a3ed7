package classify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRelevanceRules(t *testing.T) {
	b := NewBuiltin()
	notion := Input{Keywords: []string{"Notion"}, Project: Project{Name: "Notion", Website: "https://www.notion.so",
		Description: "All-in-one workspace for notes, docs, wikis and project management"}}
	apple := Input{Keywords: []string{"Apple"}, Project: Project{Name: "Apple", Website: "https://apple.com",
		Description: "Maker of the iPhone, iPad, Mac and Apple Watch"}}
	tests := []struct {
		name string
		base Input
		text string
		want bool
	}{
		{"notion ordinary word", notion, "I have a notion that this will rain all week", false},
		{"notion the notion", notion, "The notion of free will is overrated.", false},
		{"notion app", notion, "Moved all my team docs into Notion and the templates are great", true},
		{"notion handle", notion, "@notion your database view is broken again", true},
		{"notion domain", notion, "check notion.so/templates for the wiki", true},
		{"notion workspace", notion, "notion workspace sync is slow today", true},
		{"apple pie", apple, "Apple pie recipe: cinnamon, butter and a flaky crust", false},
		{"apple orchard", apple, "we went apple picking at the orchard, the kids ate so many", false},
		{"apple product", apple, "The new Apple Watch update drains my battery", true},
		{"apple iphone", apple, "Apple just announced the iPhone 17 and it's expensive", true},
		{"no brand terms", Input{}, "anything at all", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.base
			in.Text = tc.text
			r, _ := b.Classify(context.Background(), in)
			if r.IsRelevant != tc.want {
				t.Errorf("IsRelevant(%q) = %v, want %v; reasons %q", tc.text, r.IsRelevant, tc.want, r.Reasons)
			}
		})
	}
}

// TestRelevanceLearnsFromTriage is the product promise: after a user
// ignores a handful of off-topic posts, similar new posts are filed as not
// relevant, while on-topic posts stay relevant.
func TestRelevanceLearnsFromTriage(t *testing.T) {
	b := NewBuiltin()
	// A distinctive made-up name, which the rules take wherever it is
	// named, shared with a band nobody told the classifier about.
	base := Input{Keywords: []string{"Zentrix"}}
	offTopic := "Zentrix live tonight, the new album sounds huge"
	onTopic := []string{
		"Zentrix's new dashboard feels great",
		"Zentrix support fixed my sync issue in five minutes",
		"Zentrix keeps logging me out after the update",
	}
	check := func(m *RelevanceModel, text string) bool {
		in := base
		in.Text, in.Relevance = text, m
		r, _ := b.Classify(context.Background(), in)
		return r.IsRelevant
	}
	if !check(nil, offTopic) {
		t.Fatalf("rules alone reject %q; the test needs one they accept", offTopic)
	}
	ignored := []string{
		"Zentrix concert last night was loud, great album",
		"New Zentrix album drops Friday, the tour starts in May",
		"Zentrix live in Berlin: best concert of the year",
		"anyone have tickets for the Zentrix tour? the album is on repeat",
		"Zentrix drummer left the band before the tour",
	}
	var ex []Example
	for _, s := range ignored {
		ex = append(ex, Example{Text: s, Relevant: false})
	}
	m := TrainRelevance(ex)
	if check(m, offTopic) {
		t.Errorf("after %d ignored band posts, %q is still relevant", len(ignored), offTopic)
	}
	for _, s := range onTopic {
		if !check(m, s) {
			t.Errorf("on-topic %q became irrelevant", s)
		}
	}
	// With reviewed posts too, and a relevant post sharing a word with the
	// ignored ones, the model keeps the balance.
	ex = append(ex, Example{Text: "Zentrix export to PDF saved my week", Relevant: true},
		Example{Text: "Zentrix new release fixed the export", Relevant: true})
	m = TrainRelevance(ex)
	if check(m, offTopic) {
		t.Errorf("with positives: %q still relevant", offTopic)
	}
	if !check(m, "Zentrix export works with the new release this weekend") {
		t.Errorf("with positives: export post became irrelevant")
	}
	if p, n := m.Counts(); p != 2 || n != 5 {
		t.Errorf("Counts = %d, %d", p, n)
	}
}

// TestRelevanceTriageIsEvidence: what triage taught counts as evidence for
// an ambiguous name too: posts like the reviewed ones become relevant
// where the rules alone found nothing tying them to the brand.
func TestRelevanceTriageIsEvidence(t *testing.T) {
	b := NewBuiltin()
	base := Input{Keywords: []string{"Acme"}}
	probe := "Acme roadmap call with the design crew went well"
	judge := func(m *RelevanceModel) Result {
		in := base
		in.Text, in.Relevance = probe, m
		r, _ := b.Classify(context.Background(), in)
		return r
	}
	if r := judge(nil); r.IsRelevant {
		t.Fatalf("rules alone take %q (%s); the test needs one they reject", probe, r.RelevanceReason)
	}
	var ex []Example
	for _, s := range []string{"Acme roadmap review with the crew", "the Acme roadmap is public now", "design crew loves the Acme roadmap",
		"Acme roadmap sync call today", "our crew reads the Acme roadmap every week"} {
		ex = append(ex, Example{Text: s, Relevant: true})
	}
	r := judge(TrainRelevance(ex))
	if !r.IsRelevant || !strings.Contains(r.RelevanceReason, "triage taught") {
		t.Errorf("after reviewing roadmap posts: relevant %v, reason %q", r.IsRelevant, r.RelevanceReason)
	}
}

func TestTrainRelevanceIsFast(t *testing.T) {
	var ex []Example
	for i := 0; i < 5000; i++ {
		ex = append(ex, Example{Text: fmt.Sprintf("post %d about apple crumble recipes and the new Apple Watch band number %d", i, i%97), Relevant: i%3 == 0})
	}
	start := time.Now()
	m := TrainRelevance(ex)
	d := time.Since(start)
	t.Logf("TrainRelevance: %d examples in %v", len(ex), d)
	if d > 500*time.Millisecond { // generous for -race and slow CI
		t.Errorf("training took %v", d)
	}
	if m.Score("apple crumble", nil) == 0 {
		t.Error("model learned nothing")
	}
}
