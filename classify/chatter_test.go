package classify

import (
	"context"
	"testing"
)

// Issue 28's measured faults on everyday brand chatter, each a case that
// failed before the fix.
func TestChatterFaults(t *testing.T) {
	c := NewBuiltin()
	for _, tc := range []struct {
		text      string
		kw        []string
		relevant  bool
		category  string // "" = any
		sentiment string // "" = any
		maxUrg    int    // 0 = any
	}{
		// Relevance reads the tag as written; a brand term is never split.
		{"Can not wait for #iPad 2", []string{"Apple", "iPad"}, true, "", "", 0},
		{"#Notion is great", []string{"Notion"}, true, "testimonial", "positive", 0},
		{"#Notion is great", nil, true, "", "positive", 0},
		// Giveaways and promotions are their own signal, not praise.
		{"win an iPad 2 by following us and retweeting!", []string{"Apple", "iPad"}, true, "other", "", 0},
		{"FREE Android phone for the first 100 people who sign up", []string{"Android"}, true, "other", "", 0},
		// Demands are complaints, not product ideas.
		{"@Delta You need to provide a phone number.", []string{"Delta"}, true, "complaint", "negative", 0},
		{"@united This is not acceptable.", []string{"united"}, true, "complaint", "negative", 0},
		// Praise needs a praise cue (or a post addressed to the brand).
		{"So great day today with my friends", nil, true, "other", "positive", 0},
		// Not relevant: category other, urgency at the floor.
		{"I love my apple pie recipe", []string{"Apple"}, false, "other", "", notRelevantUrgency},
		{"My apple pie recipe is a disaster, the oven is broken and the crust burned", []string{"Apple"}, false, "other", "", notRelevantUrgency},
	} {
		r, err := c.Classify(context.Background(), Input{Text: tc.text, Keywords: tc.kw, Unsourced: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.IsRelevant != tc.relevant || tc.category != "" && r.Category != tc.category || tc.sentiment != "" && r.Sentiment != tc.sentiment ||
			tc.maxUrg > 0 && r.Urgency > tc.maxUrg {
			t.Errorf("%q (keywords %v) = relevant %v, %s/%s, urgency %d (%s | %s); want relevant %v, %q/%q, urgency ≤ %d",
				tc.text, tc.kw, r.IsRelevant, r.Category, r.Sentiment, r.Urgency, r.CategoryReason, r.RelevanceReason,
				tc.relevant, tc.category, tc.sentiment, tc.maxUrg)
		}
	}
}

func TestExpandHashtagsKeepsBrand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		keep []string
		want string
	}{
		{"Can not wait for #iPad 2", []string{"apple", "ipad"}, "Can not wait for iPad 2"},
		{"#iPadPro rocks", []string{"ipad"}, "iPad pro rocks"},
		{"#Notion is great", nil, "#Notion is great"}, // a name, not "not i on"
		{"#notion is great", nil, "#notion is great"},
		{"#neverflyingagain", []string{"acme"}, "never flying again"},
	} {
		if got := expandHashtags(tc.in, tc.keep...); got != tc.want {
			t.Errorf("expandHashtags(%q, %v) = %q, want %q", tc.in, tc.keep, got, tc.want)
		}
	}
}
