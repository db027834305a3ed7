package collect

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"earshot/store"
)

// jetstreamFake replays testdata/bluesky/jetstream.jsonl over a websocket
// from the cursor asked for (as Jetstream does), then stays open and quiet;
// it also fakes the public AppView's getPosts and resolveHandle.
type jetstreamFake struct {
	t       *testing.T
	mu      sync.Mutex
	cursors []string
	params  []string
	reqs    requestLog
	// closeAt > 0 drops the connection after that many events (0: never).
	closeAt int
	// reject answers the upgrade with this status instead.
	reject int
}

func (f *jetstreamFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/subscribe":
		f.mu.Lock()
		f.cursors = append(f.cursors, r.URL.Query().Get("cursor"))
		f.params = append(f.params, r.URL.Query().Get("wantedCollections"))
		f.mu.Unlock()
		if f.reject != 0 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(f.reject)
			return
		}
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		cursor, _ := strconv.ParseInt(r.URL.Query().Get("cursor"), 10, 64)
		sent := 0
		sc := bufio.NewScanner(bytes.NewReader(readFixture(f.t, "bluesky/jetstream.jsonl")))
		for sc.Scan() {
			var ev struct {
				TimeUS int64 `json:"time_us"`
			}
			json.Unmarshal(sc.Bytes(), &ev)
			if ev.TimeUS < cursor {
				continue
			}
			if f.closeAt > 0 && sent == f.closeAt {
				conn.Close(websocket.StatusInternalError, "shutting down")
				return
			}
			if err := conn.Write(r.Context(), websocket.MessageText, sc.Bytes()); err != nil {
				return
			}
			sent++
		}
		if f.closeAt < 0 {
			conn.Close(websocket.StatusInternalError, "shutting down")
			return
		}
		conn.Read(r.Context()) // stay open until the client leaves
	case "/xrpc/app.bsky.feed.getPosts":
		f.reqs.add(r)
		var all struct {
			Posts []json.RawMessage `json:"posts"`
		}
		json.Unmarshal(readFixture(f.t, "bluesky/get_posts.json"), &all)
		want := map[string]bool{}
		for _, u := range r.URL.Query()["uris"] {
			want[u] = true
		}
		out := []json.RawMessage{}
		for _, p := range all.Posts {
			var pv struct{ URI string }
			json.Unmarshal(p, &pv)
			if want[pv.URI] {
				out = append(out, p)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"posts": out})
	case "/xrpc/com.atproto.identity.resolveHandle":
		f.reqs.add(r)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("handle") == "acme.bsky.social" {
			w.Write([]byte(`{"did":"did:plc:acmeofficial0000000000001"}`))
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"InvalidRequest","message":"Unable to resolve handle"}`))
	default:
		http.NotFound(w, r)
	}
}

var jetstreamT0 = testNowC.UnixMicro()

func newJetstreamFake(t *testing.T) (*jetstreamFake, *Bluesky) {
	return newJetstreamFakeAt(t, nowC)
}

func newJetstreamFakeAt(t *testing.T, now func() time.Time) (*jetstreamFake, *Bluesky) {
	f := &jetstreamFake{t: t}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := NewBluesky(BlueskyConfig{BaseURL: srv.URL, JetstreamURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/subscribe",
		Client: srv.Client(), Now: now, JetstreamIdle: 2 * time.Second, JetstreamBudget: 5 * time.Second})
	return f, c
}

// movingNow is a clock the test moves.
type movingNow struct {
	mu sync.Mutex
	t  time.Time
}

func (m *movingNow) now() time.Time  { m.mu.Lock(); defer m.mu.Unlock(); return m.t }
func (m *movingNow) set(t time.Time) { m.mu.Lock(); defer m.mu.Unlock(); m.t = t }

// The first scan starts at the live edge (no backfill) and keeps the
// cursor of the last event read.
func TestJetstreamFirstScanIsLive(t *testing.T) {
	f, c := newJetstreamFake(t)
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-168 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if f.cursors[0] != strconv.FormatInt(jetstreamT0, 10) || f.params[0] != "app.bsky.feed.post" {
		t.Errorf("subscribed with cursor %s, wantedCollections %s; want the scan's start %d", f.cursors[0], f.params[0], jetstreamT0)
	}
	// Only the event at the live edge (1 s after the start) is read.
	if len(b.Posts) != 1 || b.Posts[0].Text != "acme live edge post" {
		t.Fatalf("posts %+v", b.Posts)
	}
	if want := "jetstream:" + strconv.FormatInt(jetstreamT0+1e6, 10); b.State != want {
		t.Errorf("state %q, want %q", b.State, want)
	}
}

// A scan with a cursor (a restart, or the next scan) resumes from it,
// matches with the monitor's rule (keywords and watched accounts by DID),
// hydrates handles and counts, and drops a post the AppView no longer has.
func TestJetstreamResumesFromCursor(t *testing.T) {
	f, c := newJetstreamFake(t)
	cursor := jetstreamT0 - 600e6
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, WatchAccounts: []string{"@acme.bsky.social", "acme"},
		State: "jetstream:" + strconv.FormatInt(cursor, 10), Since: testNowC.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if f.cursors[0] != strconv.FormatInt(cursor, 10) {
		t.Errorf("cursor %s, want %d", f.cursors[0], cursor)
	}
	var texts []string
	for _, p := range b.Posts {
		texts = append(texts, p.Text)
	}
	want := []string{"acme status page says all green but nothing loads", "we shipped recurring tasks",
		"Switching to ACME projects tomorrow", "acme live edge post"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("posts %q\nwant %q", texts, want)
	}
	p := b.Posts[0]
	if p.ExternalID != "at://did:plc:k7m2quxv5xq3yjz2rrtbntq4/app.bsky.feed.post/3kjs0000000a1" || p.AuthorHandle != "jules.bsky.social" ||
		p.URL != "https://bsky.app/profile/jules.bsky.social/post/3kjs0000000a1" || p.Engagement["likes"] != 7 || p.Engagement["reposts"] != 2 ||
		p.AuthorID != "did:plc:k7m2quxv5xq3yjz2rrtbntq4" || !p.PublishedAt.Equal(time.Date(2024, 5, 3, 17, 50, 0, 0, time.UTC)) {
		t.Errorf("hydrated post %+v", p)
	}
	// The watched account's post has no keyword: taken by its DID, and
	// the pipeline's matcher (by handle or DID) keeps it too.
	if p := b.Posts[1]; p.AuthorHandle != "acme.bsky.social" || !Compile(Rule{Keywords: []string{"acme"}, WatchAccounts: []string{"acme.bsky.social"}}).Match(p) {
		t.Errorf("watched post %+v", p)
	}
	// Too new for the AppView: kept as read, by DID.
	if p := b.Posts[3]; p.AuthorHandle != "" || p.URL != "https://bsky.app/profile/did:plc:live000000000000000000001/post/3kjs0000000a7" {
		t.Errorf("unhydrated post %+v", p)
	}
	if want := "jetstream:" + strconv.FormatInt(jetstreamT0+1e6, 10); b.State != want {
		t.Errorf("state %q, want %q", b.State, want)
	}

	// The handle was resolved once and is remembered.
	c.Fetch(context.Background(), Query{WatchAccounts: []string{"acme.bsky.social"}, State: b.State})
	n := 0
	for _, r := range f.reqs.all() {
		if r.URL.Path == "/xrpc/com.atproto.identity.resolveHandle" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("resolveHandle called %d times", n)
	}
}

// A cursor older than the catch-up limit moves forward: Jetstream mode is
// not a backfill of the whole network.
func TestJetstreamOldCursorIsClamped(t *testing.T) {
	f, c := newJetstreamFake(t)
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, State: "jetstream:" + strconv.FormatInt(jetstreamT0-24*3600e6, 10)}); err != nil {
		t.Fatal(err)
	}
	if want := strconv.FormatInt(jetstreamT0-2*3600e6, 10); f.cursors[0] != want {
		t.Errorf("cursor %s, want %s", f.cursors[0], want)
	}
}

// A stream that breaks after some events keeps what was read and resumes
// after it; one that breaks before any event, or refuses the connection,
// fails the scan.
func TestJetstreamBrokenStream(t *testing.T) {
	f, c := newJetstreamFake(t)
	f.closeAt = 2
	cursor := jetstreamT0 - 600e6
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, State: "jetstream:" + strconv.FormatInt(cursor, 10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Posts) != 1 || b.State != "jetstream:"+strconv.FormatInt(jetstreamT0-590e6, 10) {
		t.Errorf("after a drop: %d posts, state %q", len(b.Posts), b.State)
	}

	f1, c1 := newJetstreamFakeAt(t, func() time.Time { return testNowC.Add(2 * time.Minute) })
	f1.closeAt = -1 // closes at once when nothing is after the cursor
	b, err = c1.Fetch(context.Background(), Query{Keywords: []string{"acme"}, State: "jetstream:" + strconv.FormatInt(jetstreamT0+60e6, 10)})
	if err == nil || b.State != "" {
		t.Errorf("a stream closed before any event: state %q, err %v", b.State, err)
	}

	f2, c2 := newJetstreamFake(t)
	f2.reject = http.StatusTooManyRequests
	_, err = c2.Fetch(context.Background(), Query{Keywords: []string{"acme"}})
	if rl, ok := IsRateLimited(err); !ok || !rl.Until.Equal(testNowC.Add(2*time.Minute)) {
		t.Errorf("429 on connect: %v", err)
	}
	f2.reject = http.StatusBadGateway
	if _, err = c2.Fetch(context.Background(), Query{Keywords: []string{"acme"}}); err == nil || rateLimitedErr(err) {
		t.Errorf("502 on connect: %v", err)
	}
}

func rateLimitedErr(err error) bool { _, ok := IsRateLimited(err); return ok }

func TestJetstreamCursorState(t *testing.T) {
	for state, want := range map[string]int64{"": 0, "jetstream:1714759200000000": 1714759200000000, "jetstream:x": 0,
		"jetstream:-5": 0, "1714759200000000": 0} {
		if got := jetstreamCursor(state); got != want {
			t.Errorf("jetstreamCursor(%q) = %d, want %d", state, got, want)
		}
	}
}

// Through the scheduler: the Jetstream source is ok with a note that it is
// live only, and the next scan resumes from the cursor the first one left
// in the source's state.
func TestSchedulerJetstreamNoteAndResume(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	clock := &movingNow{t: testNowC}
	js, c := newJetstreamFakeAt(t, clock.now)
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Sources = []string{"bluesky"} })
	s, clk := newTestScheduler(f, registryOf(c), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	st := sourceStatus(t, f, m, "bluesky")
	if st.Status != "ok" || !strings.Contains(st.Detail, "live only") {
		t.Fatalf("status %+v, want ok saying live only", st)
	}
	clk.add(20 * time.Minute)
	clock.set(testNowC.Add(4 * time.Second))
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	if len(js.cursors) != 2 || js.cursors[1] != strconv.FormatInt(jetstreamT0+1e6, 10) {
		t.Errorf("cursors asked %v; the second scan should resume at %d", js.cursors, jetstreamT0+1e6)
	}
}

// Monitors share what was read: a second monitor whose cursor the shared
// stretch covers is served without reading the stream again, with its own
// rule; a monitor new to the share is read afresh from its cursor once.
func TestJetstreamSharedAcrossMonitors(t *testing.T) {
	clock := &movingNow{t: testNowC}
	f, c := newJetstreamFakeAt(t, clock.now)
	old := "jetstream:" + strconv.FormatInt(jetstreamT0-600e6, 10)
	scan := func(id string, kw []string, state string) Batch {
		t.Helper()
		b, err := c.Fetch(context.Background(), Query{MonitorID: id, Keywords: kw, State: state})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	texts := func(b Batch) string {
		var out []string
		for _, p := range b.Posts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "|")
	}
	a1 := scan("A", []string{"acme"}, old)
	l1 := scan("L", []string{"recurring"}, old) // new to the share: read again from its cursor
	if texts(l1) != "we shipped recurring tasks" || len(a1.Posts) != 3 {
		t.Fatalf("round 1: A %q, L %q", texts(a1), texts(l1))
	}
	clock.set(testNowC.Add(4 * time.Second))
	a2 := scan("A", []string{"acme"}, a1.State)
	l2 := scan("L", []string{"recurring"}, l1.State)
	f.mu.Lock()
	cursors := append([]string(nil), f.cursors...)
	f.mu.Unlock()
	want := []string{strconv.FormatInt(jetstreamT0-600e6, 10), strconv.FormatInt(jetstreamT0-600e6, 10), strconv.FormatInt(jetstreamT0+1e6, 10)}
	if strings.Join(cursors, ",") != strings.Join(want, ",") {
		t.Errorf("connections with cursors %v, want %v (L's second scan served from the share)", cursors, want)
	}
	if texts(a2) != "acme live edge post|acme after the scan started" || len(l2.Posts) != 0 || l2.State != a2.State {
		t.Errorf("round 2: A %q (%s), L %q (%s)", texts(a2), a2.State, texts(l2), l2.State)
	}
	// A changed rule is not served from posts kept for the old one.
	scan("L", []string{"recurring", "acme"}, l1.State)
	if f.mu.Lock(); len(f.cursors) != 4 || f.cursors[3] != strconv.FormatInt(jetstreamT0+1e6, 10) {
		t.Errorf("after L's rule changed: cursors %v", f.cursors)
	}
	f.mu.Unlock()
}

// A stream that goes quiet before reaching the scan's start (nothing more
// was posted) ends the scan as caught up, at the last event read.
func TestJetstreamQuietStreamEndsScan(t *testing.T) {
	_, c := newJetstreamFakeAt(t, func() time.Time { return testNowC.Add(10 * time.Minute) })
	c.cfg.JetstreamIdle = 200 * time.Millisecond
	start := time.Now()
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, State: "jetstream:" + strconv.FormatInt(jetstreamT0-30e6, 10)})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a quiet stream held the scan for %v", took)
	}
	// Three posts matched; ten minutes on, the AppView has only the first
	// (the other two count as deleted).
	if want := "jetstream:" + strconv.FormatInt(jetstreamT0+5e6, 10); b.State != want || len(b.Posts) != 1 ||
		b.Posts[0].Text != "Switching to ACME projects tomorrow" {
		t.Errorf("state %q (want %q), posts %+v", b.State, want, b.Posts)
	}
}
