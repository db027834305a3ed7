package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestCountPlans: counting a window for common filter values reads the
// date index alone (covering: no mention row is read), and a rare value
// comes from its own index.
func TestCountPlans(t *testing.T) {
	sqliteOnly(t)
	defer store.SetRareFacetCap(0)()
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "c@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	since, until := time.Now().AddDate(0, 0, -30), time.Now()
	seventy := 70
	yes := true
	for name, f := range map[string]store.MentionFilter{
		"window":    {},
		"filters":   {Status: "new", Source: "x", Category: "bug_report", Sentiment: "negative", MinUrgency: &seventy, IsRelevant: &yes},
		"triaged":   {Status: "done"},
		"monitor":   {MonitorID: "00000000-0000-4000-8000-000000000000"},
		"not index": {Search: "ab"},
	} {
		f.ProjectID, f.Since, f.Until = p.ID, &since, &until
		plan, err := st.ExplainCount(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		want := "COVERING INDEX mentions_feed"
		if f.Search != "" {
			want = "INDEX mentions_feed" // the text is in the row
		}
		if !strings.Contains(plan, want) || strings.Contains(plan, "SCAN m\n") {
			t.Errorf("%s: not a range of the date index (%s):\n%s", name, want, plan)
		}
	}
	defer store.SetRareFacetCap(1000)()
	f := store.MentionFilter{ProjectID: p.ID, Source: "hn", Since: &since, Until: &until}
	plan, err := st.ExplainCount(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "mentions_by_source") || strings.Contains(plan, "mentions_feed") {
		t.Errorf("rare source not read from its index:\n%s", plan)
	}
}

// TestMentionCounts: counts per bucket and sentiment, per monitor, and the
// capped count, for one project only.
func TestMentionCounts(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var batch []store.NewMention
	for i := range 30 {
		batch = append(batch, store.NewMention{Source: "x", ExternalID: "m" + string(rune('a'+i)), Text: "t", PublishedAt: day.Add(time.Duration(i) * 2 * time.Hour),
			IsRelevant: true, Category: "other", Sentiment: []string{"positive", "neutral", "negative"}[i%3]})
	}
	if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := st.IngestMentions(ctx, other.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	bounds := []time.Time{day, day.Add(24 * time.Hour), day.Add(48 * time.Hour)}
	hours := make([]time.Time, 49)
	for i := range hours {
		hours[i] = day.Add(time.Duration(i) * time.Hour)
	}
	for _, caps := range []int{0, 1000} { // the date index's ranges, and the rare source's candidates
		restore := store.SetRareFacetCap(caps)
		got, err := st.MentionCounts(ctx, store.MentionFilter{ProjectID: p.ID, Source: "x"}, bounds)
		if err != nil {
			t.Fatal(err)
		}
		// 12 a day (4 of each sentiment); the last 6 are after the window
		want := store.SentimentCounts{Total: 12, Positive: 4, Neutral: 4, Negative: 4}
		if len(got) != 2 || got[0] != want || got[1] != want {
			t.Errorf("caps %d: counts %+v", caps, got)
		}
		got, err = st.MentionCounts(ctx, store.MentionFilter{ProjectID: p.ID, Source: "x", Sentiment: "negative"}, hours)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, c := range got {
			n += c.Total
			if c.Total != c.Negative || c.Total > 0 && (i-4)%6 != 0 {
				t.Errorf("caps %d: hour %d: %+v", caps, i, c)
			}
		}
		if len(got) != 48 || n != 8 {
			t.Errorf("caps %d: %d hourly buckets, %d negative", caps, len(got), n)
		}
		restore()
	}
	for limit, want := range map[int]int{5: 5, 100: 30} {
		n, err := st.CountMentions(ctx, store.MentionFilter{ProjectID: p.ID}, limit)
		if err != nil || n != want {
			t.Errorf("CountMentions limit %d: %d %v, want %d", limit, n, err, want)
		}
	}
}
