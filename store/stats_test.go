package store_test

import (
	"context"
	"maps"
	"slices"
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

// TestShareOfVoiceAndMonitorCounts: share of voice counts relevant
// mentions once per keyword group, sentiment and day; per-monitor counts
// count a mention for each monitor that matched it; triage examples are
// the latest triaged mentions, own posts left out.
func TestShareOfVoiceAndMonitorCounts(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, _ := twoProjects(t, st)
	brand, err := st.CreateKeywordGroup(ctx, p.ID, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	rival, err := st.CreateKeywordGroup(ctx, p.ID, "Rival", false)
	if err != nil {
		t.Fatal(err)
	}
	var mons []*store.Monitor
	for _, g := range []*store.KeywordGroup{brand, brand, rival} {
		m := &store.Monitor{ProjectID: p.ID, Name: g.Name, Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"}, Active: true,
			ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "custom", GroupID: &g.ID}
		if err := st.CreateMonitor(ctx, m); err != nil {
			t.Fatal(err)
		}
		mons = append(mons, m)
	}
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	mk := func(id string, at time.Time, sentiment string, relevant, own bool, monitors ...*store.Monitor) store.NewMention {
		nm := store.NewMention{Source: "x", ExternalID: id, Text: "acme " + id, PublishedAt: at, IsRelevant: relevant, Own: own,
			Category: "other", Sentiment: sentiment}
		for _, m := range monitors {
			nm.MonitorIDs = append(nm.MonitorIDs, m.ID)
		}
		return nm
	}
	res, err := st.IngestMentions(ctx, p.ID, 0, []store.NewMention{
		mk("1", day.Add(time.Hour), "positive", true, false, mons[0], mons[1]), // both brand monitors: counts once for the group
		mk("2", day.Add(2*time.Hour), "negative", true, false, mons[0], mons[2]),
		mk("3", day.Add(26*time.Hour), "positive", true, false, mons[2]),
		mk("4", day.Add(27*time.Hour), "positive", false, false, mons[0]), // irrelevant
		mk("5", day.Add(28*time.Hour), "neutral", false, true, mons[0]),   // own post
	})
	if err != nil {
		t.Fatal(err)
	}
	sov, err := st.ShareOfVoice(ctx, p.ID, day, day.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range sov {
		g := "brand"
		if r.GroupID == rival.ID {
			g = "rival"
		}
		got[r.Day+" "+g+" "+r.Sentiment] += r.Count
	}
	want := map[string]int{"2026-11-20 brand positive": 1, "2026-11-20 brand negative": 1, "2026-11-20 rival negative": 1, "2026-11-21 rival positive": 1}
	if !maps.Equal(got, want) {
		t.Errorf("share of voice %v, want %v", got, want)
	}
	byMonitor, err := st.MentionCountsByMonitor(ctx, store.MentionFilter{ProjectID: p.ID}, []time.Time{day, day.Add(24 * time.Hour), day.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(byMonitor[mons[0].ID], []int{2, 2}) || !slices.Equal(byMonitor[mons[1].ID], []int{1, 0}) || !slices.Equal(byMonitor[mons[2].ID], []int{1, 1}) {
		t.Errorf("per monitor %v", byMonitor)
	}
	for i, status := range []string{"ignored", "done", "reviewed", "ignored", "done"} {
		time.Sleep(2 * time.Millisecond) // updated_at orders them
		if _, err := st.UpdateMentionStatus(ctx, p.ID, res.Created[i].ID, status); err != nil {
			t.Fatal(err)
		}
	}
	texts, relevant, version, err := st.TriageExamples(ctx, p.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(texts, []string{"acme 4", "acme 3", "acme 2"}) || !slices.Equal(relevant, []bool{false, true, true}) || !strings.HasSuffix(version, "/3") {
		t.Errorf("triage examples %q %v %s", texts, relevant, version)
	}
}
