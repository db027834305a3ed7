package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// Several processes on one database (issue 17): each test opens the same
// database twice, as two earshot processes do (on PostgreSQL two pools on
// one schema; on SQLite two handles on one file), and has both compete for
// the same work.

// openShared opens one empty database through two stores.
func openShared(t *testing.T) (*Store, *Store) {
	sts := openTestN(t, 2)
	return sts[0], sts[1]
}

// TestSharedMonitorLeases: schedulers of two processes claiming at once get
// every due monitor exactly once; the monitors of one that dies (claims and
// never finishes) are not taken while its lease runs and are taken by the
// other once it has expired.
func TestSharedMonitorLeases(t *testing.T) {
	ctx := context.Background()
	a, b := openShared(t)
	p := testProject(t, a, "Shared")
	const n = 30
	for i := range n {
		schedMonitor(t, a, p.ID, fmt.Sprint("m", i))
	}
	now := time.Now().Add(time.Second)
	const lease = 15 * time.Minute
	var mu sync.Mutex
	owner := map[string]string{}
	var wg sync.WaitGroup
	for pi, st := range []*Store{a, b} {
		for g := range 3 {
			name := fmt.Sprintf("proc%d/%d", pi, g)
			wg.Go(func() {
				for range 8 {
					got, err := st.ClaimDueMonitors(ctx, name, now, lease, 2)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, m := range got {
						if prev, dup := owner[m.ID]; dup {
							t.Errorf("monitor %s claimed by %s and %s", m.ID, prev, name)
						}
						owner[m.ID] = name
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(owner) != n {
		t.Fatalf("%d of %d monitors claimed", len(owner), n)
	}
	// Process b finishes its scans; process a is killed (never finishes).
	dead := 0
	for id, name := range owner {
		if name[:5] == "proc1" {
			if err := b.FinishMonitorScan(ctx, id, name, now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		} else {
			dead++
		}
	}
	a.Close()
	if got, _ := b.ClaimDueMonitors(ctx, "proc1/x", now.Add(lease-time.Second), lease, n); len(got) != 0 {
		t.Fatalf("%d monitors taken over while their lease runs", len(got))
	}
	got, err := b.ClaimDueMonitors(ctx, "proc1/x", now.Add(lease), lease, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != dead {
		t.Fatalf("took over %d monitors after the lease, want the %d of the dead process", len(got), dead)
	}
	for _, m := range got {
		if owner[m.ID][:5] != "proc0" {
			t.Errorf("took over %s, which %s finished", m.ID, owner[m.ID])
		}
	}
}

// TestSharedDeliveries: two processes fan out the same events at once and
// each event becomes one delivery per webhook; their workers claiming the
// same queues at once get each queue's head once; the queues of one that
// dies are taken over by the other when the lease expires, and nothing is
// delivered twice.
func TestSharedDeliveries(t *testing.T) {
	ctx := context.Background()
	a, b := openShared(t)
	p := testProject(t, a, "Shared")
	var hooks []string
	for i := range 8 {
		w := &Webhook{ProjectID: p.ID, URL: fmt.Sprintf("https://example.com/hook%d", i), Events: []string{"mention.created"}, Active: true, Secret: "whsec_AAAA"}
		if err := a.CreateWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, w.ID)
	}
	const events = 20
	for range events {
		ev, _ := NewEvent(p.ID, "mention.created", json.RawMessage(`{}`))
		if err := a.RecordEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	// Both processes plan the same fan-out and write it at once.
	var plans [2][]Fanout
	for i, st := range []*Store{a, b} {
		evs, err := st.UndispatchedEvents(ctx, 100)
		if err != nil || len(evs) != events {
			t.Fatalf("undispatched %d %v", len(evs), err)
		}
		for _, e := range evs {
			plans[i] = append(plans[i], Fanout{Event: e, WebhookIDs: hooks})
		}
	}
	var wg sync.WaitGroup
	var dispatched [2]int
	for i, st := range []*Store{a, b} {
		wg.Go(func() {
			n, err := st.Dispatch(ctx, plans[i], time.Now())
			if err != nil {
				t.Error(err)
			}
			dispatched[i] = n
		})
	}
	wg.Wait()
	if dispatched[0]+dispatched[1] != events {
		t.Fatalf("dispatched %v, want %d in all", dispatched, events)
	}
	for _, h := range hooks {
		if ds, _ := b.ListDeliveries(ctx, h, "pending", 0, 100); len(ds) != events {
			t.Fatalf("webhook %s has %d deliveries, want %d", h, len(ds), events)
		}
	}
	// Workers of both processes claim every queue at once.
	now := time.Now().Add(time.Second)
	const lease = 40 * time.Second // the worker's default, 2 x 15 s + 10 s
	var mu sync.Mutex
	claimed := map[string]string{} // webhook -> owner
	runs := map[string][]*Job{}
	for pi, st := range []*Store{a, b} {
		for g := range 3 {
			name := fmt.Sprintf("proc%d/%d", pi, g)
			wg.Go(func() {
				for _, h := range hooks {
					jobs, err := st.ClaimRun(ctx, WebhookOutbox, h, name, now, now.Add(lease), 5)
					if err != nil {
						t.Error(err)
						return
					}
					if len(jobs) == 0 {
						continue
					}
					mu.Lock()
					if prev, dup := claimed[h]; dup {
						t.Errorf("queue %s claimed by %s and %s", h, prev, name)
					}
					claimed[h], runs[h] = name, jobs
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(claimed) != len(hooks) {
		t.Fatalf("%d of %d queues claimed", len(claimed), len(hooks))
	}
	// b's workers deliver their runs; a dies holding its leases.
	sent := map[int64]int{}
	var deadQueues []string
	for h, owner := range claimed {
		if owner[:5] == "proc0" {
			deadQueues = append(deadQueues, h)
			continue
		}
		var at []Attempt
		for _, j := range runs[h] {
			at = append(at, Attempt{Seq: j.Seq, Status: "delivered", StatusCode: 204, At: now})
			sent[j.Seq]++
		}
		if err := b.RecordAttempts(ctx, owner, Record{Outbox: WebhookOutbox, Attempts: at}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	for _, h := range deadQueues {
		if jobs, _ := b.ClaimRun(ctx, WebhookOutbox, h, "proc1/x", now.Add(lease-time.Second), now.Add(2*lease), 5); len(jobs) != 0 {
			t.Fatalf("queue %s taken over while its lease runs", h)
		}
	}
	// After the lease, b drains every queue.
	later := now.Add(lease)
	for _, h := range hooks {
		for {
			jobs, err := b.ClaimRun(ctx, WebhookOutbox, h, "proc1/x", later, later.Add(lease), 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) == 0 {
				break
			}
			var at []Attempt
			for _, j := range jobs {
				at = append(at, Attempt{Seq: j.Seq, Status: "delivered", StatusCode: 204, At: later})
				sent[j.Seq]++
			}
			if err := b.RecordAttempts(ctx, "proc1/x", Record{Outbox: WebhookOutbox, Attempts: at}); err != nil {
				t.Fatal(err)
			}
		}
		if ds, _ := b.ListDeliveries(ctx, h, "pending", 0, 100); len(ds) != 0 {
			t.Fatalf("webhook %s: %d deliveries left pending", h, len(ds))
		}
	}
	if len(sent) != events*len(hooks) {
		t.Fatalf("%d deliveries sent, want %d", len(sent), events*len(hooks))
	}
	for seq, n := range sent {
		if n != 1 {
			t.Errorf("delivery %d sent %d times", seq, n)
		}
	}
}

// TestSharedIdempotencyKeys: a request running with a key through one
// process holds its transaction; the other process's request with the key
// waits for it and then finds the stored answer, never runs a second time.
func TestSharedIdempotencyKeys(t *testing.T) {
	ctx := context.Background()
	a, b := openShared(t)
	ta, rec, err := a.BeginIdem(ctx, "project:p", "create_monitor", "k1")
	if err != nil || rec != nil {
		t.Fatalf("first request: %+v %v", rec, err)
	}
	got := make(chan *IdemRecord, 1)
	go func() {
		tb, rec, err := b.BeginIdem(ctx, "project:p", "create_monitor", "k1")
		if tb != nil {
			tb.Rollback()
		}
		if err != nil {
			t.Error(err)
		}
		got <- rec
	}()
	if err := a.FinishIdem(ta, "project:p", "create_monitor", "k1", "h", 201, []byte(`{"id":"x"}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	if rec := <-got; rec == nil || rec.State != "done" || rec.Status != 201 || string(rec.Response) != `{"id":"x"}` || rec.RequestHash != "h" {
		t.Fatalf("other process: %+v, want the first request's answer", rec)
	}
}

// TestClaimSkipsMonitorBeingWritten: on PostgreSQL a monitor another
// connection is writing (its row locked: a save, a nudge, a finish in
// flight) is left for the next round instead of being leased from a read
// that the write is about to make stale, and the claim does not wait for
// it.
func TestClaimSkipsMonitorBeingWritten(t *testing.T) {
	if os.Getenv("EARSHOT_TEST_DATABASE_URL") == "" {
		t.Skip("PostgreSQL row locks; SQLite's single writer runs a claim and a monitor's write one after the other")
	}
	ctx := context.Background()
	st, p := schedFixture(t)
	busy := schedMonitor(t, st, p.ID, "busy")
	free := schedMonitor(t, st, p.ID, "free")
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE monitors SET name = 'busy!' WHERE id = ?`, busy.ID); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute) // a claim that waited on the locked row would end here
	defer cancel()
	got, err := st.ClaimDueMonitors(cctx, "one", time.Now().Add(time.Second), time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != free.ID {
		t.Fatalf("claimed %v, want only the monitor nobody is writing", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err = st.ClaimDueMonitors(ctx, "one", time.Now().Add(time.Second), time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].ID != busy.ID || got[0].Name != "busy!" {
		t.Fatalf("next round: %v %v, want the written monitor as written", got, err)
	}
}
