package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"earshot/internal/workers"
	"earshot/store"
	"earshot/store/storetest"
)

// Issue 24: the search indexer used to stop for good on its first error
// (the database locked past the busy timeout, a full disk). Here another
// connection holds the write lock for real while mentions wait in the
// queue: the indexer fails (past the 10 s busy timeout), is reported as
// degraded with the queue's length, keeps retrying, and once the lock is
// gone indexes the whole queue without a restart. Search stays exact
// throughout (the queue is searched too, only slower).
func TestSearchIndexerSurvivesALockedDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, _ := twoProjects(t, st)
	// 5,800 queued, as in the fault campaign; one in 100 holds the term.
	const queued = 5800
	var batch []store.NewMention
	for i := range queued {
		text := fmt.Sprintf("queued mention number %d about the weather", i)
		if i%100 == 0 {
			text = fmt.Sprintf("queued zebrafrost %d", i)
		}
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprint("q", i), Text: text,
			PublishedAt: time.Now().Add(-time.Duration(i) * time.Minute), IsRelevant: true, Category: "other", Sentiment: "neutral"})
	}
	if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	search := func() (time.Duration, int) {
		t0 := time.Now()
		ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: p.ID, Search: "zebrafrost"}, nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(t0), len(ms)
	}
	median := func() (time.Duration, int) {
		var ds []time.Duration
		n := 0
		for range 21 {
			d, got := search()
			ds, n = append(ds, d), got
		}
		slices.Sort(ds)
		return ds[len(ds)/2], n
	}

	// The lock: another connection's write transaction, as another
	// process (or a long backup) would hold it.
	release := storetest.HoldSQLiteWriteLock(t, ctx, dir)

	reg := workers.New()
	w := reg.Worker("search_indexer")
	ictx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.RunSearchIndexer(ictx, 50*time.Millisecond, w, slog.New(slog.DiscardHandler))
	}()
	defer func() { stop(); <-done }()

	status := func() workers.Status { snap, _ := reg.Snapshot(); return snap["search_indexer"] }
	waitFor(t, ctx, "the indexer to fail on the lock", func() bool { return w.Failures() >= 1 })
	if s := status(); s.Status != "degraded" || s.LastError != "database_busy" || s.Backlog == nil || *s.Backlog != queued {
		t.Fatalf("while locked: %+v", s)
	}
	during, n := median()
	if n != queued/100 {
		t.Fatalf("search while the indexer fails: %d mentions, want %d (exact, from the queue)", n, queued/100)
	}
	select {
	case <-done:
		t.Fatal("the indexer stopped after an error")
	default:
	}

	if err := release(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the indexer to recover", func() bool {
		s := status()
		return s.Status == "ok" && s.Backlog != nil && *s.Backlog == 0
	})
	if n, err := st.PendingSearch(ctx); err != nil || n != 0 {
		t.Fatalf("queue after recovery: %d %v", n, err)
	}
	after, n := median()
	if n != queued/100 {
		t.Fatalf("search after recovery: %d mentions, want %d", n, queued/100)
	}
	t.Logf("search (median of 21): %s with %d mentions queued behind a failing indexer, %s after it recovered", during, queued, after)
	if s := status(); s.Failures < 1 || s.LastOKAt == "" {
		t.Errorf("after recovery: %+v", s)
	}
}

// waitFor polls cond until it holds; ctx bounds the wait (minutes).
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
