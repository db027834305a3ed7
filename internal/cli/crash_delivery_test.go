package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
	"earshot/webhooksig"
)

// idReceiver counts the receipts of every webhook-id, per webhook (path).
type idReceiver struct {
	mu    sync.Mutex
	seen  map[string]int // path + " " + webhook-id → receipts
	total int
}

func (rc *idReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	// A little slower than loopback, so the backlog lasts a few seconds.
	time.Sleep(time.Millisecond)
	rc.mu.Lock()
	rc.seen[r.URL.Path+" "+r.Header.Get("Webhook-Id")]++
	rc.total++
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rc *idReceiver) counts() (total, distinct, dups int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, n := range rc.seen {
		dups += n - 1
	}
	return rc.total, len(rc.seen), dups
}

// TestServeKill9ResendsOnlyInFlightDeliveries (issue 24): `earshot serve`
// delivering a webhook backlog is killed with SIGKILL several times in the
// middle, and restarted. Every delivery arrives, and a delivery arrives
// twice only when it was in flight at a kill: at most one per webhook (a
// webhook's queue is one lane, which stores each answer before the next
// send) per kill. Before, answers were stored in batches of up to 64 per
// lane, and every kill re-sent dozens of deliveries.
func TestServeKill9ResendsOnlyInFlightDeliveries(t *testing.T) {
	const hooks, events, kills = 3, 1500, 3
	ctx := context.Background()
	rc := &idReceiver{seen: map[string]int{}}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	// A database with the backlog already recorded: events no process has
	// fanned out yet.
	dbURL, dir := storetest.URL(t), t.TempDir()
	var st *store.Store
	var err error
	if dbURL != "" {
		st, err = store.OpenPostgres(ctx, dbURL)
	} else {
		st, err = store.Open(ctx, dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	u, err := st.CreateUser(ctx, "ops@example.com", "ops-password-1", "Ops")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range hooks {
		h := &store.Webhook{ProjectID: p.ID, URL: fmt.Sprintf("%s/h%d", srv.URL, i), Events: []string{"mention.created"},
			Active: true, Secret: webhooksig.NewSecret()}
		if err := st.CreateWebhook(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	for i := range events {
		ev, err := store.NewEvent(p.ID, "mention.created", map[string]any{"mention": map[string]any{"id": fmt.Sprintf("m%d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.RecordEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	// A 1 s send timeout: a killed process's queues are taken over after
	// its 12 s lease.
	env := []string{"EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1", "EARSHOT_LOOPBACK_ONLY=1", "EARSHOT_SPIKE_INTERVAL=0",
		"EARSHOT_REPLAY=0", "EARSHOT_WEBHOOK_TIMEOUT=1s"}
	if dbURL != "" {
		env = append(env, "EARSHOT_DATABASE_URL="+dbURL)
	} else {
		env = append(env, "EARSHOT_DATA="+dir)
	}
	want := hooks * events
	waitReceipts := func(n int, what string) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for {
			total, distinct, _ := rc.counts()
			if total >= n || distinct == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s: %d receipts, %d distinct of %d", what, total, distinct, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for k := range kills {
		proc, _ := startServeProcess(t, fmt.Sprintf("serve-%d", k), env)
		// Kill in the middle of the backlog: some hundreds of receipts on.
		before, _, _ := rc.counts()
		waitReceipts(before+300, fmt.Sprintf("receipts before kill %d", k+1))
		if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		proc.Wait()
		total, distinct, dups := rc.counts()
		t.Logf("kill %d: %d receipts, %d distinct deliveries of %d, %d received twice so far", k+1, total, distinct, want, dups)
		if distinct == want {
			t.Fatalf("the backlog was done before kill %d: make it longer", k+1)
		}
	}
	startServeProcess(t, "serve-last", env)
	deadline := time.Now().Add(5 * time.Minute)
	for {
		_, distinct, _ := rc.counts()
		if distinct == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d deliveries received 5 minutes after the last restart", distinct, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Nothing more comes once everything was received (a late duplicate
	// would be counted too).
	time.Sleep(500 * time.Millisecond)
	total, distinct, dups := rc.counts()
	t.Logf("after %d kills: %d receipts of %d deliveries, %d received twice (bound: %d webhooks × %d kills)", kills, total, distinct, dups, hooks, kills)
	if dups > hooks*kills {
		t.Errorf("%d deliveries received twice after %d kills; at most %d were in flight", dups, kills, hooks*kills)
	}
}
