package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// threadsServer fakes graph.threads.net, serving page1 then page2 (by the
// "after" cursor) unless override names another fixture.
func threadsServer(t *testing.T, override string) (*httptest.Server, *requestLog) {
	t.Helper()
	reqs := &requestLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		if r.URL.Path != "/v1.0/keyword_search" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case override == "429":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"Too many calls","code":613}}`))
		case strings.HasPrefix(override, "error_"):
			w.WriteHeader(http.StatusBadRequest)
			w.Write(readFixture(t, "threads/"+override+".json"))
		case override != "":
			w.Write(readFixture(t, "threads/"+override+".json"))
		case r.URL.Query().Get("after") == "QVFIUk1aM0VnY2dQ":
			w.Write(readFixture(t, "threads/page2.json"))
		default:
			w.Write(readFixture(t, "threads/page1.json"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func newTestThreads(srv *httptest.Server) *Threads {
	return NewThreads(ThreadsConfig{BaseURL: srv.URL, AccessToken: "tok", Client: srv.Client(), Now: nowC})
}

func TestThreadsPagesAndNormalises(t *testing.T) {
	srv, reqs := threadsServer(t, "")
	since := testNowC.Add(-24 * time.Hour)
	b, err := newTestThreads(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs.all()) != 2 {
		t.Fatalf("%d requests, want 2 pages", len(reqs.all()))
	}
	q := reqs.all()[0].URL.Query()
	for k, want := range map[string]string{
		"q": "acme", "search_type": "RECENT", "access_token": "tok",
		"since": strconv.FormatInt(since.Unix(), 10), "until": strconv.FormatInt(testNowC.Unix(), 10),
	} {
		if q.Get(k) != want {
			t.Errorf("param %s = %q, want %q", k, q.Get(k), want)
		}
	}
	if !strings.Contains(q.Get("fields"), "permalink") || !strings.Contains(q.Get("fields"), "timestamp") {
		t.Errorf("fields = %q", q.Get("fields"))
	}
	// The second page is asked of our base URL, not of paging.next's host.
	if reqs.all()[1].Host != reqs.all()[0].Host || reqs.all()[1].URL.Query().Get("after") != "QVFIUk1aM0VnY2dQ" {
		t.Errorf("second request %s", reqs.all()[1].URL)
	}
	// 4 posts in the window; the week-old one is dropped.
	if len(b.Posts) != 4 {
		t.Fatalf("%d posts, want 4: %+v", len(b.Posts), b.Posts)
	}
	p := b.Posts[0]
	if p.Source != "threads" || p.ExternalID != "18049283745123456" || p.AuthorHandle != "dana.builds" ||
		p.URL != "https://www.threads.net/@dana.builds/post/C6xAbCdEfGh" ||
		!p.PublishedAt.Equal(time.Date(2024, 5, 3, 17, 42, 3, 0, time.UTC)) || p.Engagement["has_replies"] != 1 {
		t.Errorf("first post %+v", p)
	}
	if p.Text != "acme support was great, fixed my board in 10 min & no upsell" {
		t.Errorf("text %q", p.Text)
	}
	if p := b.Posts[2]; p.AuthorHandle != "" || p.Engagement["has_replies"] != 0 {
		t.Errorf("post without username/has_replies: %+v", p)
	}
	if p := b.Posts[3]; p.AuthorHandle != "other" {
		t.Errorf("handle not normalised: %q", p.AuthorHandle)
	}
}

// Meta's other Threads list endpoints page with cursors only
// ("paging":{"cursors":{"before","after"}}, no "next"): the after cursor
// alone must bring the second page.
func TestThreadsPagesWithCursorsOnly(t *testing.T) {
	var reqs requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		switch r.URL.Query().Get("after") {
		case "":
			w.Write(readFixture(t, "threads/page1_cursors.json"))
		case "QVFIUk1aM0VnY2dQ":
			w.Write(readFixture(t, "threads/page2.json"))
		default:
			t.Errorf("unexpected cursor %q", r.URL.Query().Get("after"))
			w.Write(readFixture(t, "threads/empty.json"))
		}
	}))
	defer srv.Close()
	b, err := newTestThreads(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// page2 holds a week-old post: paging stops there, with 2 requests.
	if n := len(reqs.all()); n != 2 {
		t.Fatalf("%d requests, want 2 (page 2 by the after cursor)", n)
	}
	if len(b.Posts) != 4 || b.Posts[3].ExternalID != "18049283745123453" {
		t.Errorf("%d posts, want page 1's three and page 2's one in the window: %+v", len(b.Posts), b.Posts)
	}
}

// A cursor that does not move, or an empty page, ends paging.
func TestThreadsCursorLoopStops(t *testing.T) {
	var reqs requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		w.Write([]byte(`{"data":[{"id":"1","text":"acme","timestamp":"2024-05-03T17:42:03+0000","username":"u"}],"paging":{"cursors":{"after":"SAME"}}}`))
	}))
	defer srv.Close()
	if _, err := newTestThreads(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if n := len(reqs.all()); n != 2 {
		t.Errorf("%d requests for a cursor that repeats, want 2", n)
	}
}

func TestThreadsStopsAtSince(t *testing.T) {
	srv, reqs := threadsServer(t, "")
	// Since after page1's oldest post: page2 is never asked for.
	b, err := newTestThreads(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-150 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs.all()) != 1 || len(b.Posts) != 2 {
		t.Fatalf("%d requests, %d posts; want 1 and 2", len(reqs.all()), len(b.Posts))
	}
}

func TestThreadsQueriesPerMode(t *testing.T) {
	srv, reqs := threadsServer(t, "empty")
	c := newTestThreads(srv)
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme", " globex "}, QueryMode: "any"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme", "projects"}, QueryMode: "phrase"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reqs.all() {
		got = append(got, r.URL.Query().Get("q"))
	}
	if strings.Join(got, "|") != "acme|globex|acme projects" {
		t.Errorf("queries %q", got)
	}
	b, err := c.Fetch(context.Background(), Query{WatchAccounts: []string{"acme"}})
	if err != nil || len(b.Posts) != 0 {
		t.Errorf("no keywords: %v %v", b, err)
	}
}

func TestThreadsErrors(t *testing.T) {
	cases := []struct {
		fixture     string
		rateLimited bool
	}{
		{"malformed", false},
		{"no_data", false},
		{"bad_timestamp", false},
		{"error_token", false},
		{"error_rate_limit", true},
		{"429", true},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			srv, _ := threadsServer(t, c.fixture)
			b, err := newTestThreads(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-time.Hour)})
			if err == nil {
				t.Fatalf("no error; posts %v", b.Posts)
			}
			rl, ok := IsRateLimited(err)
			if ok != c.rateLimited {
				t.Fatalf("rate limited = %v, want %v (%v)", ok, c.rateLimited, err)
			}
			if ok && !rl.Until.After(testNowC) {
				t.Errorf("until %v", rl.Until)
			}
		})
	}
}

func TestThreadsConfigured(t *testing.T) {
	c := NewThreads(ThreadsConfig{})
	if ok, missing := c.Configured(); ok || missing != "EARSHOT_THREADS_ACCESS_TOKEN" {
		t.Errorf("Configured() = %v, %q", ok, missing)
	}
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}}); err == nil {
		t.Error("unconfigured fetch succeeded")
	}
	if c.cfg.BaseURL != ThreadsBaseURL {
		t.Errorf("default base %q", c.cfg.BaseURL)
	}
}

// A short Retry-After is slept through by the HTTP helper: the scan
// succeeds on the second attempt instead of failing.
func TestThreadsShortRetryAfterIsHonoured(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write(readFixture(t, "threads/page2.json"))
	}))
	defer srv.Close()
	b, err := newTestThreads(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil || len(b.Posts) != 1 {
		t.Fatalf("posts %v, err %v", b.Posts, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 {
		t.Errorf("%d calls, want 2", calls)
	}
}
