package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"earshot/capability"
	"earshot/collect"
	"earshot/internal/replay"
	"earshot/store"
	"earshot/store/storetest"
)

// Leases of the two-process test: the scan lease is serve's default (45 s,
// renewed while a scan runs; the survivor, on the same host, releases the
// dead process's leases within 5 s anyway), the delivery lease short, so
// that the survivor's takeover fits in a test (serve's default: 2 × 15 s +
// 10 s).
const (
	mpScanLease      = collect.DefaultScanLease
	mpWebhookTimeout = 3 * time.Second
	mpDeliveryLease  = 2*mpWebhookTimeout + 10*time.Second
)

// slowReplay is the recorded platforms, each answer delayed, so that a
// backfill takes long enough to be interrupted.
func slowReplay(t *testing.T, delay time.Duration) *httptest.Server {
	h := replay.NewHandler()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// replayVars are the variables that point every collector at replay.
func replayVars(replayURL string) []string {
	c := demoCollectors(replayURL)
	var out []string
	for _, v := range collectorVars(&c) {
		if *v.dst != "" {
			out = append(out, v.name+"="+*v.dst)
		}
	}
	return out
}

// mpMonitors are the demo's two monitors, for one project.
func mpMonitors(replayURL string) []map[string]any {
	return []map[string]any{
		{"name": "Acme", "keywords": []string{"Acme", "acme.example", "@acmehq", "Acme Projects"},
			"feed_urls": replay.FeedURLs(replayURL), "review_urls": replay.ReviewURLs(replayURL), "backfill_hours": 168},
		{"name": "Globex", "keywords": []string{"Globex"}, "backfill_hours": 168},
	}
}

// receiver is a webhook endpoint that records every message it receives.
type receiver struct {
	mu   sync.Mutex
	seen map[string][]time.Time // webhook-id → receipts
	n    int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	io.Copy(io.Discard, r.Body)
	time.Sleep(20 * time.Millisecond) // a backlog builds up
	rc.mu.Lock()
	rc.seen[r.Header.Get("Webhook-Id")] = append(rc.seen[r.Header.Get("Webhook-Id")], arrived)
	rc.n++
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.n
}

// opsProject makes, through the admin commands, the owner
// ops@example.com (once per database) and a project named name, and
// returns the project's id and a new API key for it.
func opsProject(t *testing.T, cli map[string]string, name string, firstUser bool) (id, key string) {
	t.Helper()
	if firstUser {
		if code, _, errs := runCLI(t, cli, "user", "create", "--email", "ops@example.com", "--password", "ops-password-1"); code != 0 {
			t.Fatalf("user create: %s", errs)
		}
	}
	code, out, errs := runCLI(t, cli, "project", "create", "--owner", "ops@example.com", "--name", name)
	var p struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("project create: %s", errs)
	}
	code, k, errs := runCLI(t, cli, "key", "create", "--project", p.ID)
	if code != 0 {
		t.Fatalf("key create: %s", errs)
	}
	return p.ID, strings.TrimSpace(k)
}

// startServeProcess starts `earshot serve` as a child process (the test
// binary re-executed, see main_mcp_test.go) and waits for /healthz.
func startServeProcess(t *testing.T, name string, env []string) (*exec.Cmd, string) {
	t.Helper()
	addr := freePort(t)
	cmd := exec.Command(os.Args[0], "serve", "--addr", addr, "--log-level", "warn")
	cmd.Env = append(os.Environ(), append([]string{"EARSHOT_TEST_AS_CLI=1"}, env...)...)
	log, err := os.Create(t.TempDir() + "/" + name + ".log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			t.Logf("log of %s (last lines):\n%s", name, strings.Join(lines[max(0, len(lines)-30):], "\n"))
		}
	})
	waitUntil(t, name+" to answer /healthz", nil, func() bool { return healthy("http://" + addr) })
	return cmd, "http://" + addr
}

// Issue 17: two `earshot serve` share one PostgreSQL database. Both collect
// (a backfill of several projects' monitors) and deliver (a webhook
// backlog per project); one is killed with SIGKILL in the middle. The
// other takes the dead one's leases over when they expire and finishes:
// every mention is collected once (as many as one process collects alone,
// on SQLite), every delivery is received, and a delivery is received twice
// only if the killed process sent it before it died (at-least-once), never
// because both live processes sent it.
func TestTwoProcessesShareTheWork(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("needs PostgreSQL: set " + storetest.EnvURL)
	}
	dbURL := storetest.URL(t)
	replaySrv := slowReplay(t, 150*time.Millisecond)
	rc := &receiver{seen: map[string][]time.Time{}}
	hooks := httptest.NewServer(rc)
	defer hooks.Close()

	// Three projects, each with its own key and webhook.
	const projects = 3
	cli := map[string]string{"EARSHOT_DATABASE_URL": dbURL, "EARSHOT_LOG_LEVEL": "error"}
	var keys []string
	for i := range projects {
		_, key := opsProject(t, cli, fmt.Sprintf("Brand %d", i), i == 0)
		keys = append(keys, key)
	}

	// What one process collects alone: the same monitors on SQLite.
	want, wantStories, wantEvents := referenceCounts(t, replaySrv.URL, projects)

	env := append(replayVars(replaySrv.URL), "EARSHOT_DATABASE_URL="+dbURL, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1",
		"EARSHOT_LOOPBACK_ONLY=1", "EARSHOT_SPIKE_INTERVAL=0", "EARSHOT_REPLAY=0",
		"EARSHOT_WEBHOOK_TIMEOUT="+mpWebhookTimeout.String())
	procA, baseA := startServeProcess(t, "serve-A", env)
	_, baseB := startServeProcess(t, "serve-B", env)

	for i, key := range keys {
		a, b := restClient{t, baseA, key}, restClient{t, baseB, key}
		a.ok("POST", "/api/v1/webhooks", map[string]any{"url": fmt.Sprintf("%s/p%d", hooks.URL, i), "events": []string{"mention.created"}})
		for j, m := range mpMonitors(replaySrv.URL) {
			// Alternately through A and B: each nudges its own scheduler.
			[]restClient{a, b}[j%2].ok("POST", "/api/v1/monitors", m)
		}
	}

	// Kill A in the middle of the backfill and the delivery backlog.
	deadline := time.Now().Add(time.Minute)
	for rc.count() < 20 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := procA.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	procA.Wait()
	killed := time.Now()
	t.Logf("killed A after %d webhook receipts", rc.count())

	// B alone finishes within the leases' bound.
	bound := mpScanLease + mpDeliveryLease + 45*time.Second
	done := func() (bool, string) {
		for i, key := range keys {
			b := restClient{t, baseB, key}
			mons := b.ok("GET", "/api/v1/monitors", nil)["data"].(map[string]any)["monitors"].([]any)
			for _, m := range mons {
				if m.(map[string]any)["last_scanned_at"] == nil {
					return false, "a monitor not scanned yet"
				}
			}
			n := b.ok("GET", "/api/v1/mention-count", nil)["data"].(map[string]any)["count"].(float64)
			if int(n) < want[i] {
				return false, fmt.Sprintf("project %d: %d of %d mentions", i, int(n), want[i])
			}
			hook := b.ok("GET", "/api/v1/webhooks", nil)["data"].(map[string]any)["webhooks"].([]any)[0].(map[string]any)
			pend := b.ok("GET", "/api/v1/webhooks/"+hook["id"].(string)+"/deliveries?status=pending&limit=1", nil)["data"].(map[string]any)
			if ds, _ := pend["deliveries"].([]any); len(ds) > 0 {
				return false, fmt.Sprintf("project %d: deliveries pending", i)
			}
			// Every event fanned out (none left with the dead process).
			got, cursor := 0, ""
			for {
				p := "/api/v1/webhooks/" + hook["id"].(string) + "/deliveries?limit=100"
				if cursor != "" {
					p += "&cursor=" + url.QueryEscape(cursor)
				}
				d := b.ok("GET", p, nil)["data"].(map[string]any)
				got += len(d["deliveries"].([]any))
				next, _ := d["nextCursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if got < wantEvents[i] {
				return false, fmt.Sprintf("project %d: %d deliveries of %d events", i, got, wantEvents[i])
			}
		}
		return true, ""
	}
	var why string
	for {
		var ok bool
		if ok, why = done(); ok {
			break
		}
		if time.Since(killed) > bound {
			t.Fatalf("B did not finish within %s of the kill: %s", bound, why)
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(killed)
	t.Logf("B finished %s after the kill (bound %s: scan lease %s + delivery lease %s + margin)", took.Round(time.Millisecond), bound, mpScanLease, mpDeliveryLease)

	// Every mention once, as many as alone; every delivery received.
	dups, early := 0, 0
	for i, key := range keys {
		b := restClient{t, baseB, key}
		seenIDs := map[string]bool{}
		stories := map[string]int{}
		total, cursor := 0, ""
		for {
			p := "/api/v1/mentions?limit=100"
			if cursor != "" {
				p += "&cursor=" + url.QueryEscape(cursor)
			}
			d := b.ok("GET", p, nil)["data"].(map[string]any)
			for _, m := range d["items"].([]any) {
				mm := m.(map[string]any)
				k := mm["source"].(string) + "/" + mm["external_id"].(string)
				if seenIDs[k] {
					t.Errorf("project %d: mention %s stored twice", i, k)
				}
				seenIDs[k] = true
				total++
				if sid, ok := mm["story_id"].(string); ok {
					stories[sid]++
				}
			}
			next, _ := d["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		if total != want[i] {
			t.Errorf("project %d: %d mentions, one process alone collects %d", i, total, want[i])
		}
		// Stories group across processes as in one (the story index
		// catches up with what the other process stored).
		if got := storyShape(stories); got != wantStories[i] {
			t.Errorf("project %d: stories of sizes %s, one process alone makes %s", i, got, wantStories[i])
		}
		hook := b.ok("GET", "/api/v1/webhooks", nil)["data"].(map[string]any)["webhooks"].([]any)[0].(map[string]any)
		cursor, deliveries := "", 0
		for {
			p := "/api/v1/webhooks/" + hook["id"].(string) + "/deliveries?limit=100"
			if cursor != "" {
				p += "&cursor=" + url.QueryEscape(cursor)
			}
			d := b.ok("GET", p, nil)["data"].(map[string]any)
			for _, x := range d["deliveries"].([]any) {
				dl := x.(map[string]any)
				deliveries++
				if dl["status"] != "delivered" {
					t.Errorf("delivery %s: %s", dl["id"], dl["status"])
				}
				rc.mu.Lock()
				got := rc.seen[dl["event_id"].(string)]
				rc.mu.Unlock()
				switch {
				case len(got) == 0:
					t.Errorf("delivery of event %s never received", dl["event_id"])
				case len(got) > 1:
					dups += len(got) - 1
					// At-least-once: the killed process sent it and died
					// before recording it. Two live processes never both
					// send one delivery.
					if !got[0].Before(killed) || got[1].Before(killed) {
						t.Errorf("event %s received twice while both processes ran: %v (kill at %v)", dl["event_id"], got, killed)
					}
				}
				if len(got) > 0 && got[0].Before(killed) {
					early++
				}
			}
			next, _ := d["nextCursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		if deliveries != wantEvents[i] {
			t.Errorf("project %d: %d deliveries; one process alone makes %d mention.created events", i, deliveries, wantEvents[i])
		}
	}
	// What the killed process had sent but not recorded: at most the one
	// delivery each webhook's lane had in flight (a lane stores each answer
	// before its next send).
	if dups > projects {
		t.Errorf("%d deliveries received twice", dups)
	}
	t.Logf("mentions per project %v, mention.created events %v; %d deliveries received before the kill, %d received twice (sent by the killed process, not recorded before it died)", want, wantEvents, early, dups)
}

// referenceCounts collects the test's monitors for n projects in process,
// on SQLite, with one scheduler: how many mentions each project gets.
func referenceCounts(t *testing.T, replayURL string, n int) (mentions []int, stories []string, events []int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyBound)
	defer cancel()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := capability.New(st, capability.Config{BaseURL: "http://127.0.0.1:8080", PlanQuotas: map[string]int{"trial": 0}}, log)
	u, err := svc.CreateUser(ctx, "ref@example.com", "ref-password-1", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range n {
		p, err := st.CreateProject(ctx, u.ID, fmt.Sprintf("Brand %d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
		pr := &capability.Principal{Kind: capability.KindSystem, UserID: u.ID, ProjectID: p.ID, Role: "owner"}
		for _, m := range mpMonitors(replayURL) {
			if _, err := callSystem(ctx, svc, "create_monitor", pr, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	sched := collect.NewScheduler(st, collect.NewRegistry(demoCollectors(replayURL), http.DefaultClient), nil,
		collect.SchedulerConfig{Monitors: 2 * n, Pipeline: collect.PipelineConfig{QuotaFunc: svc.Quota}}, log, nil)
	if k, err := sched.ScanDue(ctx); err != nil || k != 2*n {
		t.Fatalf("reference scan: %d monitors, %v", k, err)
	}
	evs, err := st.UndispatchedEvents(ctx, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		n := 0
		for _, ev := range evs {
			if ev.ProjectID == id && ev.Type == "mention.created" {
				n++
			}
		}
		events = append(events, n)
	}
	for _, id := range ids {
		ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: id}, nil, 100000)
		if err != nil {
			t.Fatal(err)
		}
		mentions = append(mentions, len(ms))
		sizes := map[string]int{}
		for _, m := range ms {
			if m.StoryID != nil {
				sizes[*m.StoryID]++
			}
		}
		stories = append(stories, storyShape(sizes))
	}
	return mentions, stories, events
}

// storyShape is a project's stories as their sizes, largest first.
func storyShape(sizes map[string]int) string {
	var v []int
	for _, n := range sizes {
		v = append(v, n)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(v)))
	return fmt.Sprint(v)
}
