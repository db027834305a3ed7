package ui

import "testing"

// Engagement reads as words, not the platforms' field names (an audit saw
// "41 num comments", "1 has replie" and "4 voteCount").
func TestEngagementInWords(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]int64
		want string
	}{
		{map[string]int64{"points": 96, "num_comments": 41}, "96 points · 41 comments"},
		{map[string]int64{"has_replies": 1}, "has replies"},
		{map[string]int64{"has_replies": 0}, ""},
		{map[string]int64{"voteCount": 4, "voteSum": 3, "rating": 1}, "4 votes on helpfulness · 3 found it helpful · rated 1"},
		{map[string]int64{"rating": 4, "bestRating": 5}, "rated 4 of 5"},
		{map[string]int64{"likes": 1, "reblogs": 2}, "2 boosts · 1 like"},
		{map[string]int64{"some_new_field": 2}, "2 some new field"},
	} {
		if got := engagement(tc.in); got != tc.want {
			t.Errorf("engagement(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
