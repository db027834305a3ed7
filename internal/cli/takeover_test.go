package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"earshot/collect"
	"earshot/internal/replay"
	"earshot/store"
	"earshot/store/storetest"
)

// gatedReplay is the recorded platforms behind a gate: while it is shut,
// every request waits (a scan stays in flight as long as the test likes);
// once opened, requests are answered. seen is closed at the first request.
type gatedReplay struct {
	*httptest.Server
	once, openOnce sync.Once
	seen, open     chan struct{}
}

func newGatedReplay(t *testing.T) *gatedReplay {
	g := &gatedReplay{seen: make(chan struct{}), open: make(chan struct{})}
	h := replay.NewHandler()
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.once.Do(func() { close(g.seen) })
		select {
		case <-g.open:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { g.openGate(); g.Close() })
	return g
}

func (g *gatedReplay) openGate() { g.openOnce.Do(func() { close(g.open) }) }

// Issue 24, point 4: serve is killed (SIGKILL) while its scans are in
// flight; a restarted serve on the same database (or, on PostgreSQL, a
// second serve that was already running) picks the monitors up at once:
// it releases the leases of the dead process (same host, its pid gone)
// instead of waiting for them to run out. With the scan lease at 10
// minutes the takeover must still be well under a minute, which only the
// release gives; with the default lease (45 s, renewed while a scan runs)
// it must be under 60 s as well. Before, a kill stalled collection for the
// whole lease (15 minutes by default).
func TestKilledServeScansAreTakenOver(t *testing.T) {
	type variant struct {
		name     string
		survivor bool // a second live process takes over (PostgreSQL), instead of a restart
		lease    string
		// foreign: the dead holder ran on another host (its leases are
		// handed to such a name at the kill), so nothing tells it is
		// dead: the takeover waits for its lease, the default 45 s.
		foreign bool
	}
	vs := []variant{{"restart/default-lease", false, "", false}, {"restart/10m-lease", false, "10m", false},
		{"restart/holder-on-another-host", false, "", true}}
	if storetest.Postgres() {
		vs = append(vs, variant{"survivor/default-lease", true, "", false})
	}
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			replaySrv := newGatedReplay(t)
			env, cli := []string{}, map[string]string{"EARSHOT_LOG_LEVEL": "error"}
			dbURL := storetest.URL(t)
			if dbURL != "" {
				cli["EARSHOT_DATABASE_URL"] = dbURL
				env = append(env, "EARSHOT_DATABASE_URL="+dbURL)
			} else {
				dir := t.TempDir()
				cli["EARSHOT_DATA"] = dir
				env = append(env, "EARSHOT_DATA="+dir)
			}
			env = append(env, replayVars(replaySrv.URL)...)
			env = append(env, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1", "EARSHOT_LOOPBACK_ONLY=1", "EARSHOT_SPIKE_INTERVAL=0", "EARSHOT_REPLAY=0")
			if v.lease != "" {
				env = append(env, "EARSHOT_SCAN_LEASE="+v.lease)
			}
			_, key := opsProject(t, cli, "Brand", true)

			procA, baseA := startServeProcess(t, "serve-A", env)
			for _, m := range mpMonitors(replaySrv.URL) {
				restClient{t, baseA, key}.ok("POST", "/api/v1/monitors", m)
			}
			select {
			case <-replaySrv.seen:
			case <-time.After(2 * time.Minute):
				t.Fatal("no scan started")
			}
			var baseB string
			if v.survivor {
				// B starts while A is alive and scanning: A's leases are
				// not a dead holder's, B must leave them alone.
				_, baseB = startServeProcess(t, "serve-B", env)
				st, err := store.OpenPostgres(context.Background(), dbURL)
				if err != nil {
					t.Fatal(err)
				}
				owners, err := st.MonitorLeaseOwners(context.Background())
				st.Close()
				if err != nil || len(owners) != 1 || !strings.Contains(owners[0], ":"+strconv.Itoa(procA.Process.Pid)+":") {
					t.Fatalf("with A alive, lease owners are %v (%v), want only A (pid %d)", owners, err, procA.Process.Pid)
				}
			}
			if err := procA.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			procA.Wait()
			killed := time.Now()
			if v.foreign {
				handLeasesAway(t, cli, "elsewhere:1:1:1", killed)
			}
			replaySrv.openGate()
			if !v.survivor {
				_, baseB = startServeProcess(t, "serve-B", env)
			}
			ready := time.Since(killed)
			b := restClient{t, baseB, key}
			for {
				n := b.ok("GET", "/api/v1/mention-count", nil)["data"].(map[string]any)["count"].(float64)
				if n > 0 {
					break
				}
				if time.Since(killed) > 3*time.Minute {
					t.Fatalf("no mention 3 minutes after the kill: the dead process's scans were not taken over")
				}
				time.Sleep(100 * time.Millisecond)
			}
			took := time.Since(killed)
			t.Logf("first mention %s after the kill (serve-B answering after %s)", took.Round(time.Millisecond), ready.Round(time.Millisecond))
			if v.foreign && took < collect.DefaultScanLease {
				t.Errorf("a holder on another host lost its lease after %s, before it ran out", took)
			}
			if took > time.Minute {
				t.Errorf("takeover took %s, want under 60 s", took.Round(time.Millisecond))
			}
		})
	}
}

// handLeasesAway gives every leased monitor to owner, leased from at for
// the default scan lease: as if a process on another host held them.
func handLeasesAway(t *testing.T, cli map[string]string, owner string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	var st *store.Store
	var err error
	if u := cli["EARSHOT_DATABASE_URL"]; u != "" {
		st, err = store.OpenPostgres(ctx, u)
	} else {
		st, err = store.Open(ctx, cli["EARSHOT_DATA"])
	}
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	owners, err := st.MonitorLeaseOwners(ctx)
	if err != nil || len(owners) == 0 {
		t.Fatalf("no leases to hand away: %v %v", owners, err)
	}
	n := 0
	for _, o := range owners {
		k, err := st.ReleaseMonitorLeases(ctx, o, at)
		if err != nil {
			t.Fatal(err)
		}
		n += int(k)
	}
	got, err := st.ClaimDueMonitors(ctx, owner, at, collect.DefaultScanLease, 100)
	if err != nil || len(got) < n {
		t.Fatalf("handed %d of %d leases away: %v", len(got), n, err)
	}
}
