package spike_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"earshot/spike"
	"earshot/store"
)

// TestDetectionCost measures a run over a busy project (EARSHOT_BENCH_SPIKES
// mentions spread over 8 days, 5 monitors in 2 groups): the first run,
// which counts everything, and a later one after 1,000 new mentions, which
// counts only their hours.
//
//	EARSHOT_BENCH_SPIKES=200000 go test -run DetectionCost -v ./spike/
func TestDetectionCost(t *testing.T) {
	total, _ := strconv.Atoi(os.Getenv("EARSHOT_BENCH_SPIKES"))
	if total == 0 {
		t.Skip("set EARSHOT_BENCH_SPIKES to a mention count")
	}
	f := newFixture(t)
	ctx := context.Background()
	g2, _ := f.st.CreateKeywordGroup(ctx, f.project, "Rival", false)
	mons := []string{f.monA, f.monB}
	for i := range 3 {
		m := &store.Monitor{ProjectID: f.project, Name: fmt.Sprint("R", i), Keywords: []string{"rival"}, QueryMode: "any", Sources: []string{"x"},
			GroupName: "competitors", GroupID: &g2.ID, Active: true, ScanIntervalMinutes: 15, BackfillHours: 24}
		if err := f.st.CreateMonitor(ctx, m); err != nil {
			t.Fatal(err)
		}
		mons = append(mons, m.ID)
	}
	span := 8 * 24 * time.Hour
	start := f.t0.Add(-span)
	batch := make([]store.NewMention, 0, 1000)
	flush := func() {
		if _, err := f.st.IngestMentions(ctx, f.project, 0, batch); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	t0 := time.Now()
	for i := range total {
		s := "neutral"
		if i%7 == 0 {
			s = "negative"
		}
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprint("b", i), Text: "acme", PublishedAt: start.Add(time.Duration(int64(span) * int64(i) / int64(total))),
			MonitorIDs: []string{mons[i%len(mons)], mons[(i+1)%len(mons)]}, IsRelevant: true, Category: "other", Sentiment: s})
		if len(batch) == cap(batch) {
			flush()
		}
	}
	flush()
	t.Logf("ingested %d mentions in %v", total, time.Since(t0))
	r := &spike.Runner{Store: f.st} // real time: the watermark compares with collected_at
	// Past the watermark's overlap, so later runs see only what is new.
	time.Sleep(31 * time.Second)
	t0 = time.Now()
	if _, err := r.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("first run (counts 8 days): %v", time.Since(t0))
	time.Sleep(31 * time.Second)
	for i := range 1000 {
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprint("n", i), Text: "acme", PublishedAt: f.t0.Add(-time.Duration(i) * time.Minute),
			MonitorIDs: []string{mons[i%len(mons)]}, IsRelevant: true, Category: "other", Sentiment: "neutral"})
	}
	flush()
	t0 = time.Now()
	if _, err := r.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("next run after 1,000 new mentions: %v", time.Since(t0))
	time.Sleep(31 * time.Second)
	t0 = time.Now()
	if _, err := r.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("idle run: %v", time.Since(t0))
}
