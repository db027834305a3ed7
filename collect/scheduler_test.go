package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"earshot/internal/replay"
	"earshot/store"
	"earshot/store/storetest"
)

// --- fixtures shared by the scheduler and pipeline tests ---

type fixture struct {
	st      *store.Store
	project *store.Project
	userID  string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	u, err := st.CreateUser(ctx, "owner@example.com", "x", "Owner")
	if err != nil {
		t.Fatal(err)
	}
	site := "https://acme.example"
	p, err := st.CreateProject(ctx, u.ID, "Acme", &site)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{st: st, project: p, userID: u.ID}
}

func (f *fixture) newProject(t testing.TB, name string) *store.Project {
	t.Helper()
	p, err := f.st.CreateProject(context.Background(), f.userID, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// monitor creates an active monitor; edit adjusts the defaults first.
func (f *fixture) monitor(t testing.TB, projectID string, edit func(*store.Monitor)) *store.Monitor {
	t.Helper()
	m := &store.Monitor{ProjectID: projectID, Name: "Brand", Keywords: []string{"Acme"}, QueryMode: "any", Sources: []string{"hn"},
		Active: true, ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "my_brand"}
	if edit != nil {
		edit(m)
	}
	if err := f.st.CreateMonitor(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (f *fixture) events(t testing.TB, typ string) []map[string]any {
	t.Helper()
	return eventsOf(t, f.st, typ)
}

// eventsOf reads the outbox (nothing dispatches events in these tests, so
// every event is still undispatched), on either backend.
func eventsOf(t testing.TB, st *store.Store, typ string) []map[string]any {
	t.Helper()
	evs, err := st.UndispatchedEvents(context.Background(), 10000)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range evs {
		if e.Type != typ {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(e.Payload), &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func registryOf(cs ...Collector) *Registry {
	r := &Registry{byName: map[string]Collector{}}
	for _, c := range cs {
		r.byName[c.Source()] = c
	}
	return r
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fakeCollector answers from a function and records the queries it got.
type fakeCollector struct {
	source  string
	missing string
	fetch   func(ctx context.Context, q Query) (Batch, error)

	mu      sync.Mutex
	queries []Query
}

func (c *fakeCollector) Source() string { return c.source }
func (c *fakeCollector) Configured() (bool, string) {
	return c.missing == "", c.missing
}
func (c *fakeCollector) Fetch(ctx context.Context, q Query) (Batch, error) {
	c.mu.Lock()
	c.queries = append(c.queries, q)
	c.mu.Unlock()
	if c.fetch == nil {
		return Batch{}, nil
	}
	return c.fetch(ctx, q)
}
func (c *fakeCollector) got() []Query {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Query(nil), c.queries...)
}

// clock is a settable time for the scheduler. It stands still from the
// moment newTestScheduler takes it, so tests make their monitors first:
// a monitor is due at its creation time, which would otherwise be a
// millisecond or more after the clock on a busy machine.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestScheduler(f *fixture, reg *Registry, cfg SchedulerConfig) (*Scheduler, *clock) {
	s := NewScheduler(f.st, reg, nil, cfg, quietLog(), nil)
	c := &clock{t: time.Now()}
	s.now = c.now
	return s, c
}

func hnPost(id, text string, at time.Time) Post {
	return Post{Source: "hn", ExternalID: id, URL: "https://news.ycombinator.com/item?id=" + id, AuthorHandle: "user" + id,
		Text: text, PublishedAt: at.UTC(), Engagement: map[string]int64{"points": 3}}
}

// --- scheduler ---

// A new monitor is scanned at once with its backfill window; the next scan
// is incremental: the collector gets its saved State back and a Since near
// the previous scan, and it only runs once the interval has passed.
func TestSchedulerFirstScanBackfillThenIncremental(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	hn := &fakeCollector{source: "hn"}
	hn.fetch = func(_ context.Context, q Query) (Batch, error) {
		if q.State == "" {
			return Batch{Posts: []Post{hnPost("1", "Acme ships a new release", time.Now().Add(-2*time.Hour))}, State: "cursor-1"}, nil
		}
		return Batch{Posts: []Post{hnPost("2", "Acme pricing changed again", time.Now().Add(-time.Minute))}, State: "cursor-2"}, nil
	}
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.BackfillHours = 72 })
	s, clk := newTestScheduler(f, registryOf(hn), SchedulerConfig{})

	first := clk.now()
	if n, err := s.ScanDue(ctx); err != nil || n != 1 {
		t.Fatalf("first ScanDue: %d %v", n, err)
	}
	qs := hn.got()
	if len(qs) != 1 {
		t.Fatalf("%d fetches", len(qs))
	}
	if q := qs[0]; q.State != "" || absDur(q.Since.Sub(first.Add(-72*time.Hour))) > time.Second || q.MonitorID != m.ID || q.Keywords[0] != "Acme" {
		t.Errorf("first query: state %q since %v (want now-72h)", q.State, q.Since)
	}
	// Not due again before its interval.
	clk.add(10 * time.Minute)
	if n, _ := s.ScanDue(ctx); n != 0 {
		t.Fatalf("scanned again after 10 minutes")
	}
	clk.add(7 * time.Minute) // 17m > 15m + 10% jitter
	if n, _ := s.ScanDue(ctx); n != 1 {
		t.Fatalf("not scanned after its interval")
	}
	qs = hn.got()
	if q := qs[1]; q.State != "cursor-1" || absDur(q.Since.Sub(first.Add(-time.Hour))) > time.Second {
		t.Errorf("incremental query: state %q since %v (want cursor-1, first scan - 1h overlap)", q.State, q.Since)
	}
	rec, _ := f.st.SourceState(ctx, m.ID, "hn")
	if rec.State != "cursor-2" || rec.Status != "ok" || rec.Scans != 2 {
		t.Errorf("source record after two scans: %+v", rec)
	}
	scans, _ := f.st.RecentScans(ctx, m.ID, 10)
	if len(scans) != 2 || scans[0].New != 1 || scans[1].New != 1 || scans[0].Fetched != 1 {
		t.Errorf("scans: %+v", scans)
	}
	mon, _ := f.st.Monitor(ctx, f.project.ID, m.ID)
	if mon.LastScannedAt == nil {
		t.Error("last_scanned_at not set")
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Run scans a monitor as soon as it is created (MonitorChanged nudges it),
// here with the real HN and news collectors against the demo replay server.
func TestSchedulerRunScansNewMonitorAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	srv := httptest.NewServer(replay.NewHandler())
	defer srv.Close()
	s := NewScheduler(f.st, NewRegistry(DemoConfig(srv.URL, replay.BlueskyHandle), srv.Client()), nil, SchedulerConfig{Poll: time.Hour}, quietLog(), nil)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	time.Sleep(50 * time.Millisecond) // Run's first look finds nothing
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Sources = []string{"hn", "news"}
		m.FeedURLs = replay.FeedURLs(srv.URL)
	})
	s.MonitorChanged(f.project.ID, m.ID) // the capability hook; Poll is an hour, so only the nudge can start the scan
	// Ends at the scan; the bound is generous for a loaded -race run.
	deadline := time.Now().Add(3 * time.Minute)
	for {
		mon, err := f.st.Monitor(ctx, f.project.ID, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if mon.LastScannedAt != nil {
			for _, ss := range mon.SourceStatus {
				if ss.Status != "ok" {
					t.Errorf("source %s: %s %s %s", ss.Source, ss.Status, ss.Detail, ss.LastError)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("monitor not scanned within 3 minutes of creation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, src := range []string{"hn", "news"} {
		ms, err := f.st.ListMentions(ctx, store.MentionFilter{ProjectID: f.project.ID, Source: src}, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 {
			t.Errorf("no %s mentions after the first scan", src)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestSchedulerSkipsPausedMonitorsAndArchivedProjects(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	hn := &fakeCollector{source: "hn"}
	paused := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Name = "paused" })
	paused.Active = false
	if err := f.st.SaveMonitor(ctx, paused, false); err != nil {
		t.Fatal(err)
	}
	archived := f.newProject(t, "Old")
	f.monitor(t, archived.ID, nil)
	if err := f.st.ArchiveProject(ctx, archived.ID); err != nil {
		t.Fatal(err)
	}
	// A source not in the monitor's list is not fetched either.
	other := &fakeCollector{source: "x"}
	live := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Name = "live" })
	s, _ := newTestScheduler(f, registryOf(hn, other), SchedulerConfig{})
	if n, err := s.ScanDue(ctx); err != nil || n != 1 {
		t.Fatalf("ScanDue: %d %v, want only the live monitor", n, err)
	}
	if qs := hn.got(); len(qs) != 1 || qs[0].MonitorID != live.ID {
		t.Errorf("fetches: %+v", qs)
	}
	if len(other.got()) != 0 {
		t.Error("a source outside the monitor's sources was fetched")
	}
}

// Statuses with the real collectors: X without a token is not_configured
// (naming the setting), LinkedIn without organizations is not_configured
// with the limitation, a 429 is rate_limited until Retry-After, a 4xx is
// failing; three failures in a row emit one monitor.scan_failed.
func TestSchedulerSourceStatuses(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var hnCalls, threadsCalls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/hn/"):
			hnCalls.Add(1)
			http.Error(w, `{"message":"index unavailable"}`, http.StatusBadRequest)
		case strings.HasPrefix(r.URL.Path, "/threads/"):
			threadsCalls.Add(1)
			w.Header().Set("Retry-After", "3600")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	reg := registryOf(
		NewX(XConfig{BaseURL: srv.URL + "/x", Client: srv.Client()}),
		NewLinkedIn(LinkedInConfig{BaseURL: srv.URL + "/linkedin", AccessToken: "t", Client: srv.Client()}),
		NewHN(HNConfig{BaseURL: srv.URL + "/hn", Client: srv.Client()}),
		NewThreads(ThreadsConfig{BaseURL: srv.URL + "/threads", AccessToken: "t", Client: srv.Client()}),
	)
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Sources = []string{"x", "linkedin", "hn", "threads"} })
	s, clk := newTestScheduler(f, reg, SchedulerConfig{})

	status := func() map[string]store.SourceStatus {
		mon, err := f.st.Monitor(ctx, f.project.ID, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.SourceStatus{}
		for _, s := range mon.SourceStatus {
			out[s.Source] = s
		}
		return out
	}
	for i := 1; i <= 4; i++ {
		if n, err := s.ScanDue(ctx); err != nil || n != 1 {
			t.Fatalf("scan %d: %d %v", i, n, err)
		}
		st := status()
		if x := st["x"]; x.Status != "not_configured" || !strings.Contains(x.Detail, "EARSHOT_X_BEARER_TOKEN") {
			t.Errorf("x: %+v", x)
		}
		if li := st["linkedin"]; li.Status != "not_configured" || li.Detail != LinkedInNoKeywordSearch {
			t.Errorf("linkedin: %+v", li)
		}
		if th := st["threads"]; th.Status != "rate_limited" || th.RateLimitedUntil == nil {
			t.Errorf("threads: %+v", th)
		} else if until, _ := store.ParseTime(*th.RateLimitedUntil); until.Before(time.Now().Add(50 * time.Minute)) {
			t.Errorf("threads rate limited until %v, want about an hour from now", until)
		}
		hn := st["hn"]
		if hn.Status != "failing" || !strings.Contains(hn.LastError, "400") || hn.FailingSince == nil {
			t.Errorf("hn after %d scans: %+v", i, hn)
		}
		want := 0
		if i >= 3 {
			want = 1
		}
		if evs := f.events(t, "monitor.scan_failed"); len(evs) != want {
			t.Errorf("after %d failed scans: %d monitor.scan_failed events, want %d", i, len(evs), want)
		}
		clk.add(20 * time.Minute)
	}
	if n := threadsCalls.Load(); n != 1 {
		t.Errorf("threads fetched %d times while rate limited, want once", n)
	}
	if n := hnCalls.Load(); n != 4 {
		t.Errorf("hn fetched %d times, want 4", n)
	}
	ev := f.events(t, "monitor.scan_failed")[0]
	data := ev["data"].(map[string]any)
	if data["monitor_id"] != m.ID || data["monitor_name"] != "Brand" || data["source"] != "hn" || data["consecutive_failures"] != float64(3) ||
		data["failing_since"] == nil || !strings.Contains(data["error"].(string), "400") || ev["project_id"] != f.project.ID {
		t.Errorf("monitor.scan_failed payload: %v", ev)
	}
	// Past the rate limit the source is fetched again.
	clk.add(time.Hour)
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := threadsCalls.Load(); n != 2 {
		t.Errorf("threads fetched %d times after the limit passed, want 2", n)
	}
}

// A recovered source ends the streak: the next streak emits again.
func TestSchedulerScanFailedOncePerStreak(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var fail atomic.Bool
	hn := &fakeCollector{source: "hn", fetch: func(context.Context, Query) (Batch, error) {
		if fail.Load() {
			return Batch{}, fmt.Errorf("hn: HTTP 500")
		}
		return Batch{}, nil
	}}
	f.monitor(t, f.project.ID, nil)
	s, clk := newTestScheduler(f, registryOf(hn), SchedulerConfig{Health: HealthConfig{FailureThreshold: 2}})
	for _, failing := range []bool{true, true, true, false, true, true} {
		fail.Store(failing)
		if _, err := s.ScanDue(ctx); err != nil {
			t.Fatal(err)
		}
		clk.add(20 * time.Minute)
	}
	if evs := f.events(t, "monitor.scan_failed"); len(evs) != 2 {
		t.Errorf("%d monitor.scan_failed events over two streaks, want 2", len(evs))
	}
}

// Two schedulers over one database never scan the same monitor at once,
// and both do work.
func TestSchedulersShareWorkThroughLeases(t *testing.T) {
	f := newFixture(t)
	var inFlight sync.Map // monitor id -> *atomic.Int32
	var overlaps, fetches atomic.Int32
	byOwner := sync.Map{}
	newHN := func(owner string) *fakeCollector {
		return &fakeCollector{source: "hn", fetch: func(_ context.Context, q Query) (Batch, error) {
			v, _ := inFlight.LoadOrStore(q.MonitorID, new(atomic.Int32))
			n := v.(*atomic.Int32)
			if n.Add(1) > 1 {
				overlaps.Add(1)
			}
			fetches.Add(1)
			c, _ := byOwner.LoadOrStore(owner, new(atomic.Int32))
			c.(*atomic.Int32).Add(1)
			time.Sleep(15 * time.Millisecond)
			n.Add(-1)
			return Batch{}, nil
		}}
	}
	var ids []string
	for i := 0; i < 12; i++ {
		ids = append(ids, f.monitor(t, f.project.ID, nil).ID)
	}
	// Run until both owners have scanned and there were enough scans to
	// show overlaps if leases did not hold, or give up after a generous
	// deadline (a loaded CI machine schedules the goroutines slowly; a
	// fixed 1.5 s window failed there with 14 scans).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	shared := func() bool {
		a, _ := byOwner.Load("a")
		b, _ := byOwner.Load("b")
		return a != nil && b != nil && a.(*atomic.Int32).Load() > 0 && b.(*atomic.Int32).Load() > 0
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil && (fetches.Load() < 24 || !shared()) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	})
	for _, owner := range []string{"a", "b"} {
		s := NewScheduler(f.st, registryOf(newHN(owner)), nil, SchedulerConfig{Owner: owner, Poll: 5 * time.Millisecond, Monitors: 3}, quietLog(), nil)
		wg.Go(func() { s.Run(ctx) })
	}
	// Keep every monitor due: each is scanned again as soon as its lease is released.
	wg.Go(func() {
		for ctx.Err() == nil {
			for _, id := range ids {
				f.st.NudgeMonitor(context.Background(), id)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Errorf("%d overlapping scans of one monitor", overlaps.Load())
	}
	if !shared() {
		a, _ := byOwner.Load("a")
		b, _ := byOwner.Load("b")
		t.Errorf("work not shared: a=%v b=%v", a, b)
	}
	if fetches.Load() < 24 {
		t.Errorf("only %d scans in 30s", fetches.Load())
	}
}
