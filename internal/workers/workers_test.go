package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestBackoffDoublesUpToAMinute(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, time.Minute, time.Minute}
	for i, w := range want {
		if got := Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	if got := Backoff(1000); got != MaxBackoff {
		t.Errorf("Backoff(1000) = %s", got)
	}
}

// A worker is degraded while its streak lasts and ok again after one
// success; the error's text never reaches the published status.
func TestStatusDegradedWhileFailing(t *testing.T) {
	r := New()
	w := r.Worker("search_indexer")
	if snap, degraded := r.Snapshot(); degraded || snap["search_indexer"].Status != "ok" {
		t.Fatalf("new worker: %+v degraded=%v", snap, degraded)
	}
	secret := errors.New("dial tcp db.internal.example:5432: connect: connection refused")
	w.Fail(secret)
	if d := w.Fail(fmt.Errorf("indexing: %w", errors.New("database is locked (5) (SQLITE_BUSY)"))); d != 2*time.Second {
		t.Errorf("second failure's backoff = %s", d)
	}
	w.SetBacklog(5800, 100000)
	snap, degraded := r.Snapshot()
	st := snap["search_indexer"]
	if !degraded || st.Status != "degraded" || st.ConsecutiveFailures != 2 || st.Failures != 2 || st.LastError != "database_busy" ||
		st.NextRetryAt == "" || st.Backlog == nil || *st.Backlog != 5800 || st.Behind {
		t.Fatalf("failing worker: %+v degraded=%v", st, degraded)
	}
	var b strings.Builder
	r.WriteMetrics(&b)
	for _, line := range []string{`earshot_worker_degraded{worker="search_indexer"} 1`, `earshot_worker_consecutive_failures{worker="search_indexer"} 2`,
		`earshot_worker_backlog{worker="search_indexer"} 5800`, `earshot_worker_failures_total{worker="search_indexer"} 2`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("metrics lack %q:\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "db.internal") {
		t.Error("metrics show the error's text")
	}
	w.OK()
	snap, degraded = r.Snapshot()
	if st := snap["search_indexer"]; degraded || st.Status != "ok" || st.ConsecutiveFailures != 0 || st.Failures != 2 || st.LastOKAt == "" {
		t.Fatalf("recovered worker: %+v degraded=%v", st, degraded)
	}
	// Behind: a backlog past the mark degrades a worker that succeeds.
	w.SetBacklog(100000, 100000)
	if snap, degraded := r.Snapshot(); !degraded || !snap["search_indexer"].Behind {
		t.Errorf("behind worker: %+v", snap["search_indexer"])
	}
}

func TestKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("database or disk is full (13)"), "storage_full"},
		{errors.New("write /x: no space left on device"), "storage_full"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), "timeout"},
		{errors.New("database is locked (5) (SQLITE_BUSY)"), "database_busy"},
		{errors.New("dial tcp 10.0.0.1:5432: connect: connection refused"), "database_unreachable"},
		{errors.New("something else"), "error"},
	} {
		if got := Kind(c.err); got != c.want {
			t.Errorf("Kind(%q) = %s, want %s", c.err, got, c.want)
		}
	}
}

// Loop keeps calling a round that fails (it never returns on an error),
// and the worker is ok once a round succeeds. The backoff is real (1 s,
// 2 s), so the test takes about 3 s; it waits on the rounds, not a clock.
func TestLoopRetriesAfterFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r := New()
	w := r.Worker("spikes")
	rounds := make(chan int, 10)
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		Loop(ctx, w, slog.New(slog.DiscardHandler), time.Hour, func(context.Context) error {
			n++
			rounds <- n
			if n <= 2 {
				return errors.New("database or disk is full")
			}
			if n == 3 {
				cancel() // the third round succeeds; stop after it
			}
			return nil
		})
	}()
	<-done
	if len(rounds) != 3 {
		t.Fatalf("rounds = %d, want 3 (two failures retried, then a success)", len(rounds))
	}
	if snap, degraded := r.Snapshot(); degraded || snap["spikes"].Failures != 2 {
		t.Errorf("after recovery: %+v", snap["spikes"])
	}
}

func TestRetryUntilSuccess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w := New().Worker("story_index")
	calls := 0
	err := Retry(ctx, w, slog.New(slog.DiscardHandler), func(context.Context) error {
		calls++
		if calls == 1 {
			return errors.New("database is locked")
		}
		return nil
	})
	if err != nil || calls != 2 || w.Failures() != 0 {
		t.Errorf("Retry: err=%v calls=%d failures=%d", err, calls, w.Failures())
	}
}

// A nil registry and worker are usable: code outside serve records nothing.
func TestNilRegistry(t *testing.T) {
	var r *Registry
	w := r.Worker("x")
	w.OK()
	w.SetBacklog(1, 1)
	if d := w.Fail(errors.New("x")); d != MinBackoff {
		t.Errorf("nil worker backoff %s", d)
	}
	if snap, degraded := r.Snapshot(); len(snap) != 0 || degraded {
		t.Error("nil registry snapshot")
	}
}
