package deliver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"earshot/store"
)

// hangingReceivers starts n receivers that never answer until the test
// ends (or release is called), and counts the requests they hold.
func hangingReceivers(t *testing.T, n int) (urls []string, holding *atomic.Int64, release func()) {
	t.Helper()
	stop := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(stop) }) }
	holding = &atomic.Int64{}
	for range n {
		rc := newReceiver(t, func(int, received, http.ResponseWriter) {
			holding.Add(1)
			<-stop
		})
		urls = append(urls, rc.URL)
	}
	// Registered after the receivers: runs before they close.
	t.Cleanup(release)
	return urls, holding, release
}

// TestWorkerHangingReceiversDoNotDelayHealthyOne (issue 24): 24 receivers
// that never answer, more than the 16 lanes, hold all of them first; a
// healthy receiver added then gets every event while they still hang. The
// send timeout is 3 minutes, so before lanes stalled on a receiver gave
// their place, the healthy receiver got nothing until the first timeouts:
// the test asserts by count, not by speed (the bound is 2 minutes, well
// under the timeout), and logs the healthy receiver's latencies.
func TestWorkerHangingReceiversDoNotDelayHealthyOne(t *testing.T) {
	const hangers, events = 24, 100
	const timeout = 3 * time.Minute
	st, pid := testStore(t)
	urls, holding, release := hangingReceivers(t, hangers)
	for _, u := range urls {
		addWebhook(t, st, pid, u)
	}
	mentionEvent(t, st, pid, map[string]any{"id": "m-first"})
	_, stop := startWorker(t, st, WorkerConfig{Timeout: timeout, Schedule: DefaultSchedule, PollInterval: 100 * time.Millisecond})
	t.Cleanup(release) // before stop: in-flight sends end when released
	// The hanging receivers hold every lane there is.
	waitFor(t, time.Minute, "the hanging receivers to hold the lanes", func() bool { return holding.Load() >= defaultConcurrency })

	var mu sync.Mutex
	recorded := map[string]time.Time{}
	healthy := newReceiver(t, nil)
	addWebhook(t, st, pid, healthy.URL)
	var ids []string
	for i := range events {
		ev := mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i)})
		mu.Lock()
		recorded[ev.ID] = time.Now()
		mu.Unlock()
		ids = append(ids, ev.ID)
		time.Sleep(10 * time.Millisecond)
	}
	waitFor(t, 2*time.Minute, "the healthy receiver's deliveries", func() bool { return len(healthy.got()) >= events })
	got := healthy.got()
	var lags []time.Duration
	for i, r := range got {
		if i >= len(ids) || r.ID != ids[i] {
			t.Fatalf("healthy receiver got %v, want %v in order", healthy.ids(), ids)
		}
		mu.Lock()
		lags = append(lags, r.At.Sub(recorded[r.ID]))
		mu.Unlock()
	}
	slices.Sort(lags)
	p := func(q float64) time.Duration { return lags[min(int(q*float64(len(lags))), len(lags)-1)] }
	t.Logf("healthy receiver with %d hanging ones (%d of their requests held): %d deliveries, latency p50 %v p99 %v max %v",
		hangers, holding.Load(), len(lags), p(0.5).Round(100*time.Microsecond), p(0.99).Round(100*time.Microsecond), lags[len(lags)-1].Round(100*time.Microsecond))
	// Generous (a loaded machine running -race), and still far under what
	// waiting for a lane means: the 3-minute timeout.
	if p(0.99) > 30*time.Second {
		t.Errorf("healthy receiver's p99 latency %v", p(0.99))
	}
	if n := holding.Load(); n > hangers {
		t.Errorf("%d requests to %d hanging receivers: a receiver got a second request while one hung", n, hangers)
	}
	release()
	stop()
}

// TestWorkerRetriesDoNotTakeHealthyLanes: a queue whose head is a retry
// (its receiver failed the last time) is sent in a stalled lane, so a
// receiver that keeps timing out never takes the lane a healthy one needs,
// even when its retry is due first. With one lane and the stall timer out
// of the way (a minute), the hanging receiver's retry would otherwise hold
// the only lane for its 3-minute timeout.
func TestWorkerRetriesDoNotTakeHealthyLanes(t *testing.T) {
	ctx := context.Background()
	st, pid := testStore(t)
	urls, holding, release := hangingReceivers(t, 1)
	hook := addWebhook(t, st, pid, urls[0])
	mentionEvent(t, st, pid, map[string]any{"id": "m-first"})
	// The hanging receiver's delivery failed once: a retry, due now.
	w := NewWorker(st, WorkerConfig{AllowPrivate: true}, nil, nil)
	if err := w.dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	jobs, err := st.ClaimRun(ctx, store.WebhookOutbox, hook.ID, "earlier-instance", now, now.Add(time.Minute), 1)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim: %v %d", err, len(jobs))
	}
	if err := st.RecordAttempts(ctx, "earlier-instance", store.Record{Outbox: store.WebhookOutbox, Attempts: []store.Attempt{
		{Seq: jobs[0].Seq, Status: "pending", Error: "timeout", NextAttemptAt: now, At: now}}}); err != nil {
		t.Fatal(err)
	}
	healthy := newReceiver(t, nil)
	addWebhook(t, st, pid, healthy.URL)
	startWorker(t, st, WorkerConfig{Concurrency: 1, StallAfter: time.Minute, Timeout: 3 * time.Minute, Schedule: DefaultSchedule})
	t.Cleanup(release)
	waitFor(t, time.Minute, "the retry in flight", func() bool { return holding.Load() == 1 })
	for i := range 5 {
		mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i)})
	}
	waitFor(t, 2*time.Minute, "the healthy receiver's deliveries", func() bool { return len(healthy.got()) == 5 })
	if n := holding.Load(); n != 1 {
		t.Fatalf("hanging receiver got %d requests", n)
	}
}
