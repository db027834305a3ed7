package classify

import (
	"context"
	"fmt"
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
	// A brand whose name is also a fruit, with no description to help.
	base := Input{Keywords: []string{"Apple"}}
	offTopic := "Apple crumble with vanilla ice cream tonight, can't wait"
	onTopic := []string{
		"Apple's new MacBook keyboard feels great",
		"Apple support fixed my iCloud sync issue in five minutes",
		"Apple Music keeps skipping songs after the update",
	}
	check := func(m *RelevanceModel, text string) bool {
		in := base
		in.Text, in.Relevance = text, m
		r, _ := b.Classify(context.Background(), in)
		return r.IsRelevant
	}
	if !check(nil, offTopic) {
		t.Skip("rules alone already reject the off-topic post; the test needs one they accept")
	}
	ignored := []string{
		"Baked an apple crumble with my grandma this weekend",
		"Best apple crumble with vanilla custard, recipe inside",
		"Apple season! Crumble, pies and cider all weekend",
		"apple crumble and ice cream is the perfect dessert",
		"Anyone have a good apple crumble topping? mine is always soggy",
	}
	var ex []Example
	for _, s := range ignored {
		ex = append(ex, Example{Text: s, Relevant: false})
	}
	m := TrainRelevance(ex)
	if check(m, offTopic) {
		t.Errorf("after %d ignored crumble posts, %q is still relevant", len(ignored), offTopic)
	}
	for _, s := range onTopic {
		if !check(m, s) {
			t.Errorf("on-topic %q became irrelevant", s)
		}
	}
	// With reviewed posts too, and a relevant post sharing a word with the
	// ignored ones, the model keeps the balance.
	ex = append(ex, Example{Text: "Apple Watch fall detection saved my dad", Relevant: true},
		Example{Text: "Apple Pay failed at the checkout again", Relevant: true})
	m = TrainRelevance(ex)
	if check(m, offTopic) {
		t.Errorf("with positives: %q still relevant", offTopic)
	}
	if !check(m, "Apple Pay works with my new card this weekend") {
		t.Errorf("with positives: Apple Pay post became irrelevant")
	}
	if p, n := m.Counts(); p != 2 || n != 5 {
		t.Errorf("Counts = %d, %d", p, n)
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
