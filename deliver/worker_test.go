package deliver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"earshot/metrics"
	"earshot/store"
	"earshot/store/storetest"
	"earshot/webhooksig"
)

// fastSchedule retries quickly: three attempts in total.
var fastSchedule = Schedule{0, 50 * time.Millisecond, 100 * time.Millisecond}

// testStore opens a fresh database with one user and project.
func testStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	u, err := st.CreateUser(ctx, "owner@example.com", "x", "Owner")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, p.ID
}

func addWebhook(t *testing.T, st *store.Store, projectID, url string, events ...string) *store.Webhook {
	t.Helper()
	if len(events) == 0 {
		events = []string{"mention.created"}
	}
	h := &store.Webhook{ProjectID: projectID, URL: url, Events: events, Active: true, Secret: webhooksig.NewSecret()}
	if err := st.CreateWebhook(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	return h
}

// recordEvent records a mention.created (or other) event with data.
func recordEvent(t testing.TB, st *store.Store, projectID, typ string, data any) *store.Event {
	t.Helper()
	ev, err := store.NewEvent(projectID, typ, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func mentionEvent(t testing.TB, st *store.Store, projectID string, m map[string]any) *store.Event {
	t.Helper()
	return recordEvent(t, st, projectID, "mention.created", map[string]any{"mention": m})
}

// received is one request a test receiver saw.
type received struct {
	ID, Timestamp, Signature, Path string
	Body                           []byte
	At                             time.Time
}

// receiver records requests and answers with respond (200 when nil).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []received
	respond func(n int, r received, w http.ResponseWriter) // n counts from 1
}

func newReceiver(t *testing.T, respond func(n int, r received, w http.ResponseWriter)) *receiver {
	t.Helper()
	rc := &receiver{respond: respond}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := received{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
			Signature: r.Header.Get("webhook-signature"), Path: r.URL.Path, Body: body, At: time.Now()}
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, got)
		n := len(rc.reqs)
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(n, got, w)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

func (rc *receiver) ids() []string {
	var out []string
	for _, r := range rc.got() {
		out = append(out, r.ID)
	}
	return out
}

// startWorker runs a worker until the test ends (or stop is called) and
// returns it with its stop function, which waits for Run to return.
func startWorker(t *testing.T, st *store.Store, cfg WorkerConfig, setup ...func(*Worker)) (*Worker, func()) {
	t.Helper()
	if cfg.Schedule == nil {
		cfg.Schedule = fastSchedule
	}
	cfg.AllowPrivate = true
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 10 * time.Millisecond
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Second
	}
	w := NewWorker(st, cfg, nil, metrics.New())
	for _, f := range setup {
		f(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(3 * time.Minute):
				t.Error("Run did not return")
			}
		})
	}
	t.Cleanup(stop)
	return w, stop
}

// waitFor waits until cond holds. d is what the wait usually takes at
// most; the bound is at least 3 minutes, because a loaded 2-core machine
// running -race is slow and a wait ends as soon as cond holds anyway.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(max(d, 3*time.Minute))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func deliveries(t *testing.T, st *store.Store, webhookID string) []*store.Delivery {
	t.Helper()
	ds, err := st.ListDeliveries(context.Background(), webhookID, "", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Oldest first reads better in assertions.
	for i, j := 0, len(ds)-1; i < j; i, j = i+1, j-1 {
		ds[i], ds[j] = ds[j], ds[i]
	}
	return ds
}

func statuses(ds []*store.Delivery) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Status)
	}
	return strings.Join(s, ",")
}

// verifyNPM checks received requests with the standardwebhooks npm library
// (e2e/webhooks/verify.mjs, see TestStandardWebhooksNPM); each secret must
// verify every request on its own.
func verifyNPM(t *testing.T, secrets []string, reqs []received) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node not installed; standardwebhooks check skipped")
		return
	}
	dir, err := filepath.Abs(filepath.Join("..", "e2e", "webhooks"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err != nil {
		t.Log("e2e/webhooks/node_modules missing; standardwebhooks check skipped")
		return
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, r := range reqs {
		if err := enc.Encode(npmLine{Secrets: secrets, ID: r.ID, Timestamp: r.Timestamp, Body: string(r.Body), Signature: r.Signature, Expect: "accept"}); err != nil {
			t.Fatal(err)
		}
	}
	// A negative control, so a verifier that accepts anything fails.
	bad := reqs[0]
	if err := enc.Encode(npmLine{Secrets: secrets, ID: bad.ID, Timestamp: bad.Timestamp, Body: string(bad.Body) + " ", Signature: bad.Signature, Expect: "reject"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "verify.mjs")
	cmd.Dir = dir
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("standardwebhooks rejected a delivery: %v\n%s", err, out)
	}
}

func TestWorkerDeliversSignedInOrder(t *testing.T) {
	st, pid := testStore(t)
	mentions := newReceiver(t, nil)
	failures := newReceiver(t, nil)
	hook := addWebhook(t, st, pid, mentions.URL+"/hook")
	other := addWebhook(t, st, pid, failures.URL, "monitor.scan_failed")

	var evs []*store.Event
	for i := range 5 {
		evs = append(evs, mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i), "text": "Grüße 🚀", "urgency": 10}))
	}
	scan := recordEvent(t, st, pid, "monitor.scan_failed", map[string]any{"monitor_id": "mon"})

	startWorker(t, st, WorkerConfig{})
	waitFor(t, 10*time.Second, "deliveries", func() bool { return len(mentions.got()) == 5 && len(failures.got()) == 1 })

	got := mentions.got()
	for i, ev := range evs {
		payload, _ := json.Marshal(ev.Record())
		if got[i].ID != ev.ID || !bytes.Equal(got[i].Body, payload) || got[i].Path != "/hook" {
			t.Fatalf("request %d: id %s body %s, want %s %s", i, got[i].ID, got[i].Body, ev.ID, payload)
		}
	}
	if f := failures.got()[0]; f.ID != scan.ID {
		t.Fatalf("scan_failed webhook got %s", f.ID)
	}
	verifyNPM(t, []string{hook.Secret}, got)
	verifyNPM(t, []string{other.Secret}, failures.got())

	waitFor(t, 5*time.Second, "recorded", func() bool {
		return statuses(deliveries(t, st, hook.ID)) == "delivered,delivered,delivered,delivered,delivered"
	})
	d := deliveries(t, st, hook.ID)[0]
	if d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.EventID != evs[0].ID || d.NextAttemptAt != nil {
		t.Fatalf("delivery log %+v", d)
	}
}

func TestWorkerMetrics(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, nil)
	addWebhook(t, st, pid, rc.URL)
	reg := metrics.New()
	w := NewWorker(st, WorkerConfig{AllowPrivate: true, Schedule: fastSchedule, PollInterval: 10 * time.Millisecond}, nil, reg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	waitFor(t, 5*time.Second, "delivery", func() bool {
		var b bytes.Buffer
		_ = reg.WriteText(&b)
		return strings.Contains(b.String(), `earshot_webhook_delivery_lag_seconds_count 1`)
	})
	cancel()
	<-done
	var b bytes.Buffer
	_ = reg.WriteText(&b)
	if !strings.Contains(b.String(), `earshot_webhook_deliveries_total{outcome="delivered"} 1`) {
		t.Fatalf("metrics:\n%s", b.String())
	}
}

func TestWorkerRetriesKeepIDRefreshTimestampAndOrder(t *testing.T) {
	st, pid := testStore(t)
	// The first event fails twice, then everything succeeds.
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) {
		if n <= 2 {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "try later")
		}
	})
	hook := addWebhook(t, st, pid, rc.URL)
	var ids []string
	for i := range 3 {
		ids = append(ids, mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i)}).ID)
	}
	// The second retry waits 1.1 s so the Unix-second timestamp must change.
	startWorker(t, st, WorkerConfig{Schedule: Schedule{0, 50 * time.Millisecond, 1100 * time.Millisecond, time.Second}})
	waitFor(t, 10*time.Second, "deliveries", func() bool { return len(rc.got()) == 5 })

	want := []string{ids[0], ids[0], ids[0], ids[1], ids[2]}
	if got := rc.ids(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("order %v, want %v", got, want)
	}
	got := rc.got()
	if got[0].Timestamp == got[2].Timestamp {
		t.Fatalf("retry reused timestamp %s", got[0].Timestamp)
	}
	for _, r := range got {
		ts, _ := strconv.ParseInt(r.Timestamp, 10, 64)
		if d := r.At.Unix() - ts; d < 0 || d > 3 { // signed when sent, not when first queued
			t.Fatalf("timestamp %s not fresh at %v", r.Timestamp, r.At)
		}
	}
	verifyNPM(t, []string{hook.Secret}, got)
	waitFor(t, 5*time.Second, "recorded", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered,delivered,delivered" })
	d := deliveries(t, st, hook.ID)[0]
	if d.Attempts != 3 || *d.LastStatusCode != 200 || d.LastError != "" {
		t.Fatalf("first delivery %+v", d)
	}
}

func TestWorkerReceiverDownFailsThenMovesOn(t *testing.T) {
	st, pid := testStore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	hook := addWebhook(t, st, pid, dead)
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	mentionEvent(t, st, pid, map[string]any{"id": "m2"})
	startWorker(t, st, WorkerConfig{})
	waitFor(t, 10*time.Second, "failed", func() bool { return statuses(deliveries(t, st, hook.ID)) == "failed,failed" })
	d := deliveries(t, st, hook.ID)[0]
	if d.Attempts != len(fastSchedule) || d.LastStatusCode != nil || !strings.Contains(d.LastError, "refused") || d.NextAttemptAt != nil {
		t.Fatalf("delivery %+v", d)
	}
}

func TestWorkerTimeoutRetries(t *testing.T) {
	st, pid := testStore(t)
	// The first answer comes long after the timeout; the second at once.
	// The timeout leaves an immediate answer ample room on a loaded
	// machine under -race (at 200 ms the retry itself timed out there).
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) {
		if n == 1 {
			time.Sleep(2500 * time.Millisecond)
		}
	})
	hook := addWebhook(t, st, pid, rc.URL)
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	startWorker(t, st, WorkerConfig{Timeout: time.Second})
	waitFor(t, 10*time.Second, "delivered", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered" })
	if d := deliveries(t, st, hook.ID)[0]; d.Attempts != 2 {
		t.Fatalf("delivery %+v", d)
	}
	if got := rc.got(); len(got) != 2 || got[0].ID != got[1].ID {
		t.Fatalf("requests %+v", got)
	}
}

func TestWorkerGoneDisablesWebhook(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) { w.WriteHeader(http.StatusGone) })
	hook := addWebhook(t, st, pid, rc.URL)
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	mentionEvent(t, st, pid, map[string]any{"id": "m2"})
	startWorker(t, st, WorkerConfig{})
	waitFor(t, 10*time.Second, "disabled", func() bool {
		h, err := st.Webhook(context.Background(), pid, hook.ID)
		return err == nil && !h.Active
	})
	h, _ := st.Webhook(context.Background(), pid, hook.ID)
	if !strings.Contains(h.DisabledReason, "410") {
		t.Fatalf("disabled_reason %q", h.DisabledReason)
	}
	// Later events are not queued for it; the second stays pending.
	mentionEvent(t, st, pid, map[string]any{"id": "m3"})
	time.Sleep(200 * time.Millisecond)
	if s := statuses(deliveries(t, st, hook.ID)); s != "failed,pending" {
		t.Fatalf("deliveries %s", s)
	}
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d requests after 410", n)
	}
}

func TestWorkerHonoursRetryAfter(t *testing.T) {
	for _, code := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			st, pid := testStore(t)
			rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) {
				if n == 1 {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(code)
				}
			})
			hook := addWebhook(t, st, pid, rc.URL)
			mentionEvent(t, st, pid, map[string]any{"id": "m1"})
			startWorker(t, st, WorkerConfig{})
			waitFor(t, 10*time.Second, "retry", func() bool { return len(rc.got()) == 2 })
			got := rc.got()
			if gap := got[1].At.Sub(got[0].At); gap < time.Second {
				t.Fatalf("retried after %v despite Retry-After: 1", gap)
			}
			waitFor(t, 5*time.Second, "delivered", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered" })
		})
	}
}

func TestWorkerDoesNotFollowRedirects(t *testing.T) {
	st, pid := testStore(t)
	var followed atomic.Int32
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) {
		if r.Path == "/elsewhere" {
			followed.Add(1)
			return
		}
		w.Header().Set("Location", "/elsewhere")
		w.WriteHeader(http.StatusFound)
	})
	hook := addWebhook(t, st, pid, rc.URL+"/hook")
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	startWorker(t, st, WorkerConfig{})
	waitFor(t, 10*time.Second, "failed", func() bool { return statuses(deliveries(t, st, hook.ID)) == "failed" })
	d := deliveries(t, st, hook.ID)[0]
	if followed.Load() != 0 || d.LastStatusCode == nil || *d.LastStatusCode != http.StatusFound || d.Attempts != len(fastSchedule) {
		t.Fatalf("followed %d, delivery %+v", followed.Load(), d)
	}
}

func TestWorkerSlowWebhookDoesNotDelayOthers(t *testing.T) {
	st, pid := testStore(t)
	release := make(chan struct{})
	slow := newReceiver(t, func(n int, r received, w http.ResponseWriter) { <-release })
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // runs before the receiver closes, even when an assertion fails
	fast := newReceiver(t, nil)
	addWebhook(t, st, pid, slow.URL)
	addWebhook(t, st, pid, fast.URL)
	start := time.Now()
	for i := range 5 {
		mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i)})
	}
	_, stop := startWorker(t, st, WorkerConfig{Timeout: 10 * time.Minute})
	// The slow webhook's send hangs until unblock (its timeout is longer
	// than any wait here): the fast one's deliveries arriving meanwhile
	// prove the lanes independent, whatever the machine's speed.
	waitFor(t, 8*time.Second, "fast deliveries", func() bool { return len(fast.got()) == 5 })
	if n := len(slow.got()); n > 1 {
		t.Fatalf("slow webhook got %d requests while its first hung", n)
	}
	t.Logf("fast webhook done after %v", time.Since(start))
	// The slow lane's first request may arrive after the fast lane is done
	// (lanes start together and nothing orders them); then it stays alone.
	waitFor(t, 8*time.Second, "slow request in flight", func() bool { return len(slow.got()) >= 1 })
	time.Sleep(50 * time.Millisecond)
	if n := len(slow.got()); n != 1 {
		t.Fatalf("slow webhook got %d requests, want 1 in flight", n)
	}
	// Ingestion is not held up either.
	t0 := time.Now()
	mentionEvent(t, st, pid, map[string]any{"id": "m5"})
	if d := time.Since(t0); d > 3*time.Minute {
		t.Fatalf("RecordEvent took %v while a send hung", d)
	}
	unblock()
	waitFor(t, 10*time.Second, "slow deliveries", func() bool { return len(slow.got()) == 6 })
	stop()
}

func TestWorkerShutdownWaitsForInFlightSend(t *testing.T) {
	st, pid := testStore(t)
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) {
		if n == 1 {
			arrived <- struct{}{}
			<-release
		}
	})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the receiver closes, even when an assertion fails
	hook := addWebhook(t, st, pid, rc.URL)
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	_, stop := startWorker(t, st, WorkerConfig{Timeout: 5 * time.Second})
	select {
	case <-arrived:
	case <-time.After(3 * time.Minute):
		t.Fatal("the delivery never arrived")
	}
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Run returned with a send in flight")
	case <-time.After(200 * time.Millisecond):
	}
	unblock()
	<-stopped
	if s := statuses(deliveries(t, st, hook.ID)); s != "delivered" {
		t.Fatalf("after shutdown: %s", s)
	}
	// A new instance does not send the acknowledged delivery again.
	startWorker(t, st, WorkerConfig{})
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestWorkerShutdownMidTimeoutResumesAfterRestart(t *testing.T) {
	st, pid := testStore(t)
	arrived := make(chan struct{}, 1)
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) {
		if n == 1 {
			arrived <- struct{}{}
			time.Sleep(time.Second) // longer than the timeout: never acknowledged
		}
	})
	hook := addWebhook(t, st, pid, rc.URL)
	ev := mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	_, stop := startWorker(t, st, WorkerConfig{Timeout: 300 * time.Millisecond})
	<-arrived
	stop()
	if s := statuses(deliveries(t, st, hook.ID)); s != "pending" {
		t.Fatalf("after shutdown: %s", s)
	}
	startWorker(t, st, WorkerConfig{Timeout: 2 * time.Second})
	waitFor(t, 10*time.Second, "redelivery", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered" })
	if ids := rc.ids(); len(ids) != 2 || ids[1] != ev.ID {
		t.Fatalf("requests %v", ids)
	}
}

func TestWorkerTakesOverExpiredLease(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, nil)
	hook := addWebhook(t, st, pid, rc.URL)
	ev := mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	mentionEvent(t, st, pid, map[string]any{"id": "m2"})

	// Fan out, then let a "dead" instance lease the queue and vanish (kill -9).
	w := NewWorker(st, WorkerConfig{AllowPrivate: true, Schedule: fastSchedule}, nil, nil)
	if err := w.dispatch(context.Background()); err != nil {
		t.Fatal(err)
	}
	leaseUntil := time.Now().Add(500 * time.Millisecond)
	jobs, err := st.ClaimRun(context.Background(), store.WebhookOutbox, hook.ID, "dead-instance", time.Now(), leaseUntil, 64)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("claim: %v %d", err, len(jobs))
	}

	startWorker(t, st, WorkerConfig{})
	waitFor(t, 10*time.Second, "takeover", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered,delivered" })
	got := rc.got()
	if len(got) != 2 || got[0].ID != ev.ID {
		t.Fatalf("requests %v", rc.ids())
	}
	if got[0].At.Before(leaseUntil) {
		t.Fatalf("sent at %v while the dead instance's lease ran until %v", got[0].At, leaseUntil)
	}
	// A second live instance finds nothing to send again.
	startWorker(t, st, WorkerConfig{})
	time.Sleep(200 * time.Millisecond)
	if n := len(rc.got()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}

func TestWorkerTwoInstancesShareWithoutDuplicates(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, nil)
	addWebhook(t, st, pid, rc.URL+"/a")
	addWebhook(t, st, pid, rc.URL+"/b")
	startWorker(t, st, WorkerConfig{})
	startWorker(t, st, WorkerConfig{})
	var ids []string
	for i := range 50 {
		ids = append(ids, mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i)}).ID)
	}
	waitFor(t, 20*time.Second, "deliveries", func() bool { return len(rc.got()) >= 100 })
	time.Sleep(100 * time.Millisecond)
	byPath := map[string][]string{}
	for _, r := range rc.got() {
		byPath[r.Path] = append(byPath[r.Path], r.ID)
	}
	for _, p := range []string{"/a", "/b"} {
		if strings.Join(byPath[p], ",") != strings.Join(ids, ",") {
			t.Fatalf("%s got %d in this order: %v", p, len(byPath[p]), byPath[p])
		}
	}
}

// TestWorkerTwoProcessesShareWithoutDuplicates: the workers of two
// processes on one database (two stores), with events recorded through
// both, send every event to every webhook once and in order.
func TestWorkerTwoProcessesShareWithoutDuplicates(t *testing.T) {
	ctx := context.Background()
	sts := storetest.OpenShared(t, 2)
	u, err := sts[0].CreateUser(ctx, "owner@example.com", "x", "Owner")
	if err != nil {
		t.Fatal(err)
	}
	p, err := sts[0].CreateProject(ctx, u.ID, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	addWebhook(t, sts[0], p.ID, rc.URL+"/a")
	addWebhook(t, sts[1], p.ID, rc.URL+"/b")
	startWorker(t, sts[0], WorkerConfig{})
	startWorker(t, sts[1], WorkerConfig{})
	var ids []string
	for i := range 50 {
		ids = append(ids, mentionEvent(t, sts[i%2], p.ID, map[string]any{"id": fmt.Sprintf("m%d", i)}).ID)
	}
	waitFor(t, 20*time.Second, "deliveries", func() bool { return len(rc.got()) >= 100 })
	time.Sleep(200 * time.Millisecond)
	byPath := map[string][]string{}
	for _, r := range rc.got() {
		byPath[r.Path] = append(byPath[r.Path], r.ID)
	}
	for _, p := range []string{"/a", "/b"} {
		if strings.Join(byPath[p], ",") != strings.Join(ids, ",") {
			t.Fatalf("%s got %d in this order: %v", p, len(byPath[p]), byPath[p])
		}
	}
}

func TestWorkerReplaySendsOriginalWithSameID(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, nil)
	hook := addWebhook(t, st, pid, rc.URL)
	ev := mentionEvent(t, st, pid, map[string]any{"id": "m1", "text": "hello"})
	startWorker(t, st, WorkerConfig{})
	waitFor(t, 5*time.Second, "delivery", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered" })
	orig := deliveries(t, st, hook.ID)[0]
	nd, err := st.ReplayDelivery(context.Background(), pid, orig.ID)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "replay", func() bool { return statuses(deliveries(t, st, hook.ID)) == "delivered,delivered" })
	got := rc.got()
	if len(got) != 2 || got[1].ID != ev.ID || !bytes.Equal(got[0].Body, got[1].Body) {
		t.Fatalf("requests %+v", got)
	}
	ds := deliveries(t, st, hook.ID)
	if ds[1].ID != nd.ID || ds[1].ReplayOf == nil || *ds[1].ReplayOf != orig.ID {
		t.Fatalf("replay record %+v", ds[1])
	}
	verifyNPM(t, []string{hook.Secret}, got)
}

func TestWorkerRotationSignsWithBothSecrets(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, nil)
	hook := addWebhook(t, st, pid, rc.URL)
	old := hook.Secret
	until := store.FormatTime(time.Now().Add(24 * time.Hour))
	hook.PreviousSecret, hook.PreviousSecretUntil, hook.Secret = old, &until, webhooksig.NewSecret()
	if err := st.SaveWebhook(context.Background(), hook); err != nil {
		t.Fatal(err)
	}
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	startWorker(t, st, WorkerConfig{})
	waitFor(t, 5*time.Second, "delivery", func() bool { return len(rc.got()) == 1 })
	got := rc.got()
	if n := strings.Count(got[0].Signature, "v1,"); n != 2 {
		t.Fatalf("signature header %q", got[0].Signature)
	}
	verifyNPM(t, []string{hook.Secret, old}, got)
}

func TestWorkerWebhookDeletedDropsPending(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
	hook := addWebhook(t, st, pid, rc.URL)
	mentionEvent(t, st, pid, map[string]any{"id": "m1"})
	startWorker(t, st, WorkerConfig{Schedule: Schedule{0, 300 * time.Millisecond, 300 * time.Millisecond}})
	waitFor(t, 5*time.Second, "first attempt", func() bool { return len(rc.got()) == 1 })
	if err := st.DeleteWebhook(context.Background(), pid, hook.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d requests after delete", n)
	}
}

// TestWorkerSharesLanesFairly: with more busy webhooks than lanes, lanes
// that keep getting new deliveries still give their turn (they neither
// linger nor take hand-offs while another queue waits).
func TestWorkerSharesLanesFairly(t *testing.T) {
	st, pid := testStore(t)
	var rcs []*receiver
	for range 4 {
		rc := newReceiver(t, nil)
		addWebhook(t, st, pid, rc.URL)
		rcs = append(rcs, rc)
	}
	startWorker(t, st, WorkerConfig{Concurrency: 2})
	all := func() bool {
		for _, rc := range rcs {
			if len(rc.got()) == 0 {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(3 * time.Minute)
	for i := 0; !all(); i++ {
		if time.Now().After(deadline) {
			var got []int
			for _, rc := range rcs {
				got = append(got, len(rc.got()))
			}
			heads, _ := st.Heads(context.Background(), store.WebhookOutbox)
			t.Logf("heads %+v now %s", heads, store.FormatTime(time.Now()))
			t.Fatalf("while events keep coming, webhooks got %v deliveries", got)
		}
		mentionEvent(t, st, pid, map[string]any{"id": fmt.Sprintf("m%d", i)})
		time.Sleep(2 * time.Millisecond)
	}
}
