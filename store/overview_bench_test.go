package store

import (
	"context"
	"os"
	"testing"
	"time"
)

// The dashboard's two heaviest reads at scale (issue 26): the overview of a
// search (30 days by day, with the week of history spikes need) and the
// Monitors page's per-monitor series (30 days by day). They run against an
// existing data dir, as `earshot bench` leaves one, whose largest project
// is measured:
//
//	earshot bench --mentions 250000 --other 0 --data DIR --ingest 0
//	EARSHOT_BENCH_STORE=DIR go test ./store -run '^$' -bench 'Overview|MonitorSeries' -benchtime 10x
func benchStore(b *testing.B) (*Store, string) {
	dir := os.Getenv("EARSHOT_BENCH_STORE")
	if dir == "" {
		b.Skip("EARSHOT_BENCH_STORE names a data dir to measure")
	}
	ctx := context.Background()
	st, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	var project string
	if err := st.rd(ctx).QueryRowContext(ctx, `SELECT project_id FROM mentions GROUP BY project_id ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&project); err != nil {
		b.Fatal(err)
	}
	return st, project
}

// daysBack are the bounds of days whole UTC days before now and now.
func daysBack(days int) []time.Time {
	now := time.Now().UTC()
	start := now.Truncate(24*time.Hour).AddDate(0, 0, -days)
	var out []time.Time
	for t := start; t.Before(now); t = t.Add(24 * time.Hour) {
		out = append(out, t)
	}
	return append(out, now)
}

func BenchmarkOverviewSearch(b *testing.B) {
	st, project := benchStore(b)
	ctx := context.Background()
	bounds := daysBack(37)
	for _, term := range []string{"crash", "acme", "dark mode", "refund", "zzqqxx"} {
		b.Run(term, func(b *testing.B) {
			for b.Loop() {
				if _, err := st.MentionCounts(ctx, MentionFilter{ProjectID: project, Search: term}, bounds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMonitorSeries(b *testing.B) {
	st, project := benchStore(b)
	ctx := context.Background()
	bounds := daysBack(30)
	for b.Loop() {
		if _, err := st.MentionCountsByMonitor(ctx, MentionFilter{ProjectID: project}, bounds); err != nil {
			b.Fatal(err)
		}
	}
}
