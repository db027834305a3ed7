package store_test

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"earshot/store"
)

// TestTriageLatency measures the triage queries (urgency order, the public
// wall, stats, view counts) on a large existing database, such as the one
// `earshot bench --data DIR` leaves (its project "Bench"):
//
//	EARSHOT_TRIAGE_BENCH_DIR=DIR go test ./store -run TestTriageLatency -v
//
// Opening it applies pending migrations, which is timed too.
func TestTriageLatency(t *testing.T) {
	dir := os.Getenv("EARSHOT_TRIAGE_BENCH_DIR")
	if dir == "" {
		t.Skip("set EARSHOT_TRIAGE_BENCH_DIR to a data dir made by earshot bench")
	}
	ctx := context.Background()
	t0 := time.Now()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t.Logf("open (migrations included): %s", time.Since(t0).Round(time.Millisecond))
	ps, err := st.AllProjects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pid string
	for _, p := range ps {
		if p.Name == "Bench" {
			pid = p.ID
		}
	}
	if pid == "" {
		t.Fatal("no project Bench")
	}
	measure := func(name string, n int, fn func() error) {
		t.Helper()
		var ds []time.Duration
		for range n {
			t0 := time.Now()
			if err := fn(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ds = append(ds, time.Since(t0))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		t.Logf("%-50s p50 %8.2f ms  p99 %8.2f ms", name, ms(ds[len(ds)/2]), ms(ds[min(len(ds)-1, len(ds)*99/100)]))
	}
	seventy, ten := 70, 10
	yes := true
	week := time.Now().AddDate(0, 0, -7)
	day := time.Now().AddDate(0, 0, -1)
	month := time.Now().AddDate(0, 0, -30)
	for name, f := range map[string]store.MentionFilter{
		"urgency":                     {},
		"urgency status=new":          {Status: "new"},
		"urgency status=done":         {Status: "done"},
		"urgency source=hn":           {Source: "hn"},
		"urgency negative":            {Sentiment: "negative"},
		"urgency min 70":              {MinUrgency: &seventy},
		"urgency max 10":              {MaxUrgency: &ten},
		"urgency relevant new":        {IsRelevant: &yes, Status: "new"},
		"urgency last 7 days":         {Since: &week},
		"urgency last 24 hours":       {Since: &day},
		"urgency 30d new min 70":      {Since: &month, Status: "new", MinUrgency: &seventy},
		"urgency misinformation+news": {Category: "misinformation", Source: "news"},
		"urgency search crash":        {Search: "crash"},
		"urgency author":              {AuthorHandle: "user123"},
	} {
		f.ProjectID, f.ByUrgency = pid, true
		measure(name+" (page 1)", 30, func() error { _, err := st.ListMentions(ctx, f, nil, 51); return err })
		first, err := st.ListMentions(ctx, f, nil, 51)
		if err != nil || len(first) == 0 {
			continue
		}
		pos := store.PositionOf(first[len(first)-1], f)
		measure(name+" (page 2)", 30, func() error { _, err := st.ListMentions(ctx, f, &pos, 51); return err })
	}
	measure("public wall (200)", 20, func() error { _, err := st.PublicMentions(ctx, pid, 200); return err })
	now := time.Now().UTC()
	series := func(n int, step time.Duration) []time.Time {
		start := now.Truncate(step).Add(-time.Duration(n-1) * step)
		var out []time.Time
		for t := start; t.Before(now); t = t.Add(step) {
			out = append(out, t)
		}
		return append(out, now)
	}
	days37 := series(37, 24*time.Hour) // a 30-day window and 7 baseline days
	hours48 := series(48, time.Hour)
	days14 := series(14, 24*time.Hour)
	negative := store.MentionFilter{Sentiment: "negative", Status: "new", MinUrgency: &seventy}
	for name, c := range map[string]struct {
		f      store.MentionFilter
		bounds []time.Time
	}{
		"stats 30+7 days by day":            {store.MentionFilter{}, days37},
		"stats 30+7 days, negative new ≥70": {negative, days37},
		"stats 30+7 days, source=hn":        {store.MentionFilter{Source: "hn"}, days37},
		"stats 30+7 days, monitor":          {store.MentionFilter{MonitorID: monitorID(t, st, pid)}, days37},
		"stats 30+7 days, search crash":     {store.MentionFilter{Search: "crash"}, days37},
		"stats 24+24 hours by hour":         {store.MentionFilter{}, hours48},
	} {
		f := c.f
		f.ProjectID = pid
		measure(name, 10, func() error { _, err := st.MentionCounts(ctx, f, c.bounds); return err })
	}
	measure("count hn ≥95 misinformation, cancelled at 50 ms", 5, func() error {
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := st.CountMentions(cctx, store.MentionFilter{ProjectID: pid, Source: "hn", MinUrgency: new(95), Category: "misinformation"}, 1001)
		if err == nil {
			t.Log("count finished within 50 ms")
		}
		return nil
	})
	measure("usage: days of the last 30", 10, func() error {
		_, err := st.UsageDays(ctx, pid, now.AddDate(0, 0, -29))
		return err
	})
	measure("stats by monitor, 14 days by day", 10, func() error {
		_, err := st.MentionCountsByMonitor(ctx, store.MentionFilter{ProjectID: pid}, days14)
		return err
	})
	for name, f := range map[string]store.MentionFilter{
		"count ≤1000: all":                   {},
		"count ≤1000: new ≥70 negative":      negative,
		"count ≤1000: misinformation+news":   {Category: "misinformation", Source: "news"},
		"count ≤1000: search crash":          {Search: "crash"},
		"count ≤1000: hn ≥95 misinformation": {Source: "hn", MinUrgency: new(95), Category: "misinformation"},
	} {
		f.ProjectID = pid
		measure(name, 10, func() error { _, err := st.CountMentions(ctx, f, 1001); return err })
	}
}

func monitorID(t *testing.T, st *store.Store, projectID string) string {
	ms, err := st.ListMonitors(context.Background(), projectID)
	if err != nil || len(ms) == 0 {
		t.Fatalf("monitors: %v", err)
	}
	return ms[0].ID
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
