package deliver

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"earshot/store"
)

// TestWorkerRetriesStoringAnAnswer: a commit of answers that fails (the
// database busy or briefly gone) is tried again, so the delivery is
// recorded as sent once, not sent again when its lease runs out.
func TestWorkerRetriesStoringAnAnswer(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, nil)
	hook := addWebhook(t, st, pid, rc.URL)
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	var failures atomic.Int32
	startWorker(t, st, WorkerConfig{}, func(w *Worker) {
		w.recordAttempts = func(ctx context.Context, owner string, recs ...store.Record) error {
			if failures.Add(1) <= 2 {
				return errors.New("database is locked")
			}
			return st.RecordAttempts(ctx, owner, recs...)
		}
	})
	// The lease of a 2 s send timeout is 14 s: a lost answer would be
	// sent again before this gives up.
	waitFor(t, time.Minute, "the delivery recorded", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered" })
	if n := len(rc.got()); n != 1 {
		t.Fatalf("receiver got %d requests, want 1", n)
	}
	if n := failures.Load(); n < 3 {
		t.Fatalf("%d commits", n)
	}
}
