package collect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"earshot/netguard"
	"earshot/store"
)

// userURLServer stands for both an operator-configured platform host
// (Google News, GDELT, App Store under EARSHOT_*_BASE_URL) and an internal
// service a user might point a feed or review URL at (/api/…, /pages/…).
func userURLServer(t *testing.T, internal *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/rss/search":
			w.Write(readFixture(t, "news/google_empty.xml"))
		case r.URL.Path == "/api/v2/doc/doc":
			w.Write(readFixture(t, "news/gdelt_empty.json"))
		case strings.Contains(r.URL.Path, "/rss/customerreviews/"):
			w.Write(readFixture(t, "reviews/appstore_empty.json"))
		case r.URL.Path == "/redirect":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		default:
			internal.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"code":"UNAUTHORIZED","message":"SECRET-INTERNAL-DETAIL esk_live_abc"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func userURLConfig(srv *httptest.Server, allowPrivate bool) Config {
	return Config{News: NewsConfig{GoogleNewsBaseURL: srv.URL, GDELTBaseURL: srv.URL},
		Reviews: ReviewsConfig{AppStoreBaseURL: srv.URL}, AllowPrivate: allowPrivate}
}

// feed_urls and review pages on loopback or metadata addresses are refused
// before any connection; the operator's platform base URLs, on the same
// loopback host, still work.
func TestUserURLsRefusePrivateAddresses(t *testing.T) {
	var internal atomic.Int32
	srv := userURLServer(t, &internal)
	reg := NewRegistry(userURLConfig(srv, false), srv.Client())
	ctx := context.Background()
	since := time.Now().Add(-time.Hour)

	news, _ := reg.Get("news")
	_, err := news.Fetch(ctx, Query{Keywords: []string{"acme"}, Since: since,
		FeedURLs: []string{srv.URL + "/api/v1/mentions", "http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]:1/feed"}})
	if err == nil {
		t.Fatal("feeds on private addresses were read")
	}
	for _, want := range []string{"the resolved address is a loopback address", "the resolved address is a cloud metadata address"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("news error %q does not say %q", err, want)
		}
	}
	// The IPv4-mapped spelling is dialled as the IPv4 address it maps.
	if n := strings.Count(err.Error(), "the resolved address is a loopback address"); n != 2 {
		t.Errorf("news error %q: %d loopback refusals, want 2", err, n)
	}
	if !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Errorf("news error does not wrap netguard.ErrForbiddenAddress: %v", err)
	}
	if strings.Contains(err.Error(), "google news") || strings.Contains(err.Error(), "gdelt") {
		t.Errorf("operator-configured searches failed too: %v", err)
	}

	reviews, _ := reg.Get("reviews")
	_, err = reviews.Fetch(ctx, Query{Since: since,
		ReviewURLs: []string{srv.URL + "/pages/reviews.html", "https://apps.apple.com/us/app/acme/id1234567890"}})
	if err == nil || !strings.Contains(err.Error(), "the resolved address is a loopback address") || strings.Contains(err.Error(), "apps.apple.com") {
		t.Errorf("reviews error %v: want the page refused and the App Store (operator base URL) read", err)
	}
	if n := internal.Load(); n != 0 {
		t.Errorf("the internal service got %d requests", n)
	}
}

// EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1 lifts the guard for local development,
// except for metadata addresses, also when reached by a redirect.
func TestUserURLsAllowPrivateSwitch(t *testing.T) {
	var internal atomic.Int32
	srv := userURLServer(t, &internal)
	reg := NewRegistry(userURLConfig(srv, true), srv.Client())
	news, _ := reg.Get("news")
	_, err := news.Fetch(context.Background(), Query{Since: time.Now().Add(-time.Hour),
		FeedURLs: []string{srv.URL + "/api/v1/mentions", srv.URL + "/redirect"}})
	if internal.Load() != 1 {
		t.Errorf("with the switch, the loopback feed got %d requests, want 1", internal.Load())
	}
	if err == nil || !strings.Contains(err.Error(), "the resolved address is a cloud metadata address") {
		t.Errorf("redirect to the metadata address: %v", err)
	}
}

// A failed user-URL fetch reports its status line, never the body.
func TestUserURLErrorsDoNotEchoBodies(t *testing.T) {
	ctx := context.Background()
	var internal atomic.Int32
	srv := userURLServer(t, &internal)
	f := newFixture(t)
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Keywords = nil
		m.Sources = []string{"news", "reviews"}
		m.FeedURLs = []string{srv.URL + "/api/v1/mentions"}
		m.ReviewURLs = []string{srv.URL + "/api/v1/keys"}
	})
	s, _ := newTestScheduler(f, NewRegistry(userURLConfig(srv, true), srv.Client()), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"news", "reviews"} {
		st := sourceStatus(t, f, m, src)
		if st.Status != "failing" || !strings.Contains(st.LastError, "HTTP 401 Unauthorized") {
			t.Errorf("%s: %+v, want failing with the status line", src, st)
		}
		if strings.Contains(st.LastError, "SECRET") || strings.Contains(st.LastError, "esk_") {
			t.Errorf("%s last_error echoes the response body: %q", src, st.LastError)
		}
	}
	scans, err := f.st.RecentScans(ctx, m.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scans {
		if strings.Contains(sc.Error, "SECRET") {
			t.Errorf("scan record echoes the response body: %q", sc.Error)
		}
	}
}

// Finding 5 and 6 of the hardening issue: the IPv4-translated form
// ::ffff:0:a.b.c.d (and any IPv6 outside global unicast) is refused at
// connect time, and the refusal (what lands in source_status.last_error)
// names the rule, never the address a name resolved to.
func TestUserURLsRefuseIPv6OutsideGlobalUnicast(t *testing.T) {
	var internal atomic.Int32
	srv := userURLServer(t, &internal)
	reg := NewRegistry(userURLConfig(srv, false), srv.Client())
	news, _ := reg.Get("news")
	for _, host := range []string{"[::ffff:0:7f00:1]", "[::ffff:0:a00:5]", "[fd00::1]", "[100::1]", "[64:ff9b:1::a00:1]", "[2001:db8::1]"} {
		_, err := news.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: time.Now().Add(-time.Hour),
			FeedURLs: []string{"http://" + host + ":1/feed"}})
		if err == nil || !errors.Is(err, netguard.ErrForbiddenAddress) {
			t.Errorf("%s: not refused by the guard: %v", host, err)
			continue
		}
		if !strings.Contains(err.Error(), "the resolved address is ") {
			t.Errorf("%s: refusal does not name the rule: %v", host, err)
		}
	}
	if n := internal.Load(); n != 0 {
		t.Errorf("the internal service got %d requests", n)
	}
}
