package collect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"earshot/netguard"
)

// bskyFake fakes a PDS/AppView: sessions, searchPosts (two pages by
// cursor), getAuthorFeed. Access tokens are "access-N"; expire makes the
// first session's access token answer 400 ExpiredToken.
type bskyFake struct {
	t       *testing.T
	mu      sync.Mutex
	reqs    requestLog
	creates int
	refresh int
	// expire: the first access token is refused, as expired.
	expire bool
	used   map[string]bool
	// refreshFails: refreshSession answers ExpiredToken (the refresh token
	// has expired too), so the session is created again.
	refreshFails bool
	// hook, when set, answers instead of the fake for the XRPC method.
	hook func(w http.ResponseWriter, r *http.Request) bool
}

func (f *bskyFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.reqs.add(r)
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if f.hook != nil && f.hook(w, r) {
		return
	}
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch r.URL.Path {
	case "/xrpc/com.atproto.server.createSession":
		var in struct{ Identifier, Password string }
		json.NewDecoder(r.Body).Decode(&in)
		if r.Method != http.MethodPost || in.Identifier != "earshot.bsky.social" || in.Password != "app-pass" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"AuthenticationRequired","message":"Invalid identifier or password"}`))
			return
		}
		f.creates++
		f.session(w, f.creates+f.refresh)
		return
	case "/xrpc/com.atproto.server.refreshSession":
		if f.refreshFails || !strings.HasPrefix(token, "refresh-") {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"ExpiredToken","message":"Token has expired"}`))
			return
		}
		f.refresh++
		f.session(w, f.creates+f.refresh)
		return
	}
	if !strings.HasPrefix(token, "access-") {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"AuthenticationRequired","message":"Authentication Required"}`))
		return
	}
	if f.expire && token == "access-1" && !f.used[token] {
		f.used[token] = true
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":"ExpiredToken","message":"Token has expired"}`))
		return
	}
	w.Header().Set("RateLimit-Limit", "3000")
	w.Header().Set("RateLimit-Remaining", "2990")
	switch r.URL.Path {
	case "/xrpc/app.bsky.feed.searchPosts":
		if r.URL.Query().Get("cursor") == "MTcxNDc1ODQwMDAwMDo6YmFmeQ" {
			w.Write(readFixture(f.t, "bluesky/search_page2.json"))
		} else {
			w.Write(readFixture(f.t, "bluesky/search_page1.json"))
		}
	case "/xrpc/app.bsky.feed.getAuthorFeed":
		w.Write(readFixture(f.t, "bluesky/author_feed.json"))
	default:
		w.WriteHeader(http.StatusNotImplemented)
		w.Write([]byte(`{"error":"MethodNotImplemented"}`))
	}
}

func (f *bskyFake) session(w http.ResponseWriter, n int) {
	var s map[string]any
	json.Unmarshal(readFixture(f.t, "bluesky/session.json"), &s)
	s["accessJwt"], s["refreshJwt"] = "access-"+strconv.Itoa(n), "refresh-"+strconv.Itoa(n)
	json.NewEncoder(w).Encode(s)
}

func newBskyFake(t *testing.T) (*bskyFake, *httptest.Server) {
	f := &bskyFake{t: t, used: map[string]bool{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func newTestBluesky(srv *httptest.Server) *Bluesky {
	return NewBluesky(BlueskyConfig{BaseURL: srv.URL, Handle: "earshot.bsky.social", AppPassword: "app-pass",
		Client: srv.Client(), Now: nowC})
}

func TestBlueskySearchPagesAndNormalises(t *testing.T) {
	f, srv := newBskyFake(t)
	since := testNowC.Add(-24 * time.Hour)
	b, err := newTestBluesky(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.reqs.all()
	if len(reqs) != 3 || reqs[0].URL.Path != "/xrpc/com.atproto.server.createSession" {
		t.Fatalf("requests: %d, first %s", len(reqs), reqs[0].URL.Path)
	}
	q := reqs[1].URL.Query()
	for k, want := range map[string]string{"q": "acme", "sort": "latest", "limit": "100",
		"since": "2024-05-02T18:00:00.000Z", "until": "2024-05-03T18:01:00.000Z"} {
		if q.Get(k) != want {
			t.Errorf("searchPosts %s = %q, want %q", k, q.Get(k), want)
		}
	}
	if reqs[1].Header.Get("Authorization") != "Bearer access-1" {
		t.Errorf("Authorization %q", reqs[1].Header.Get("Authorization"))
	}
	if reqs[2].URL.Query().Get("cursor") != "MTcxNDc1ODQwMDAwMDo6YmFmeQ" {
		t.Errorf("second page cursor %q", reqs[2].URL.Query().Get("cursor"))
	}
	// Three posts in the window; the one from April is older than since.
	if len(b.Posts) != 3 {
		t.Fatalf("%d posts: %+v", len(b.Posts), b.Posts)
	}
	p := b.Posts[0]
	want := Post{Source: "bluesky", ExternalID: "at://did:plc:k7m2quxv5xq3yjz2rrtbntq4/app.bsky.feed.post/3kro2a1b2c3d4",
		URL: "https://bsky.app/profile/jules.bsky.social/post/3kro2a1b2c3d4", AuthorHandle: "jules.bsky.social",
		AuthorID: "did:plc:k7m2quxv5xq3yjz2rrtbntq4", Text: "is acme down for anyone else? boards just spin & error",
		PublishedAt: time.Date(2024, 5, 3, 17, 40, 12, 120e6, time.UTC),
		Engagement:  map[string]int64{"likes": 6, "reposts": 1, "replies": 4, "quotes": 0}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("post\n got %+v\nwant %+v", p, want)
	}
	// handle.invalid: no handle, the DID in the URL; text is plain (no
	// HTML stripping of "<timeline>").
	if p := b.Posts[1]; p.AuthorHandle != "" || p.URL != "https://bsky.app/profile/did:plc:tq5bn3hc7jvtf3k6yhmhz2wa/post/3kro1z9y8x7w6" ||
		p.Text != "Acme <timeline> view is great" {
		t.Errorf("second post %+v", p)
	}
	if b.State != "" {
		t.Errorf("search mode keeps no state, got %q", b.State)
	}
	// The session is reused by the next scan.
	if _, err := newTestBluesky(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since}); err != nil {
		t.Fatal(err)
	}
	c := newTestBluesky(srv)
	c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since})
	n := f.creates
	c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since})
	if f.creates != n {
		t.Errorf("a second scan created a new session (%d → %d)", n, f.creates)
	}
}

func TestBlueskySessionRefresh(t *testing.T) {
	f, srv := newBskyFake(t)
	f.expire = true
	c := newTestBluesky(srv)
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Posts) != 3 || f.creates != 1 || f.refresh != 1 {
		t.Fatalf("%d posts, %d sessions created, %d refreshed; want 3, 1, 1", len(b.Posts), f.creates, f.refresh)
	}
	var refreshAuth []string
	for _, r := range f.reqs.all() {
		if r.URL.Path == "/xrpc/com.atproto.server.refreshSession" {
			refreshAuth = append(refreshAuth, r.Header.Get("Authorization"))
		}
	}
	if !reflect.DeepEqual(refreshAuth, []string{"Bearer refresh-1"}) {
		t.Errorf("refreshSession sent %v", refreshAuth)
	}

	// A refresh token that expired too: the session is created again.
	f2, srv2 := newBskyFake(t)
	f2.expire, f2.refreshFails = true, true
	if _, err := newTestBluesky(srv2).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if f2.creates != 2 {
		t.Errorf("createSession called %d times; want a new session after the failed refresh", f2.creates)
	}
}

func TestBlueskyBadAppPassword(t *testing.T) {
	_, srv := newBskyFake(t)
	c := NewBluesky(BlueskyConfig{BaseURL: srv.URL, Handle: "earshot.bsky.social", AppPassword: "wrong", Client: srv.Client(), Now: nowC})
	_, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-time.Hour)})
	if err == nil || !strings.Contains(err.Error(), "EARSHOT_BLUESKY_APP_PASSWORD") || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v", err)
	}
}

func TestBlueskyRateLimit(t *testing.T) {
	reset := testNowC.Add(4 * time.Minute).Truncate(time.Second)
	// A 429 with Bluesky's RateLimit-Reset (epoch seconds).
	f, srv := newBskyFake(t)
	f.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/xrpc/app.bsky.feed.searchPosts" {
			return false
		}
		w.Header().Set("RateLimit-Limit", "3000")
		w.Header().Set("RateLimit-Remaining", "0")
		w.Header().Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":"RateLimitExceeded","message":"Rate Limit Exceeded"}`))
		return true
	}
	_, err := newTestBluesky(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-time.Hour)})
	rl, ok := IsRateLimited(err)
	if !ok || !rl.Until.Equal(reset) || rl.Source != "bluesky" {
		t.Fatalf("err = %v (until %v, want %v)", err, rl, reset)
	}

	// A page that spends the budget: no second page until the reset.
	f2, srv2 := newBskyFake(t)
	f2.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/xrpc/app.bsky.feed.searchPosts" {
			return false
		}
		w.Header().Set("RateLimit-Remaining", "0")
		w.Header().Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		w.Write(readFixture(t, "bluesky/search_page1.json"))
		return true
	}
	_, err = newTestBluesky(srv2).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
	if rl, ok := IsRateLimited(err); !ok || !rl.Until.Equal(reset) {
		t.Fatalf("err = %v", err)
	}
	if n := len(f2.reqs.all()); n != 2 {
		t.Errorf("%d requests; want createSession and one page", n)
	}
}

func TestBlueskyWatchAccounts(t *testing.T) {
	f, srv := newBskyFake(t)
	b, err := newTestBluesky(srv).Fetch(context.Background(), Query{
		WatchAccounts: []string{"acme", "@acme.bsky.social", "did:plc:acmeofficial0000000000001", "@acme@mastodon.social", "urn:li:organization:1"},
		Since:         testNowC.Add(-48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var actors []string
	for _, r := range f.reqs.all() {
		switch r.URL.Path {
		case "/xrpc/app.bsky.feed.getAuthorFeed":
			actors = append(actors, r.URL.Query().Get("actor"))
			if r.URL.Query().Get("limit") != "100" {
				t.Errorf("limit %q", r.URL.Query().Get("limit"))
			}
		case "/xrpc/app.bsky.feed.searchPosts":
			t.Error("searchPosts called for a monitor without keywords")
		}
	}
	// Only Bluesky handles and DIDs are asked: not the X handle, the
	// Mastodon account or the LinkedIn URN.
	if !reflect.DeepEqual(actors, []string{"acme.bsky.social", "did:plc:acmeofficial0000000000001"}) {
		t.Errorf("actors %v", actors)
	}
	// Per feed: two own posts in the window; the repost and the old post
	// are left out. The same posts from both actors count once.
	if len(b.Posts) != 2 || b.Posts[0].Text != "Boards are slow for some teams, we're on it" ||
		b.Posts[0].AuthorHandle != "acme.bsky.social" || b.Posts[1].Engagement["likes"] != 88 {
		t.Fatalf("posts %+v", b.Posts)
	}
	// The matcher takes them by handle or by DID.
	for _, w := range []string{"acme.bsky.social", "did:plc:acmeofficial0000000000001"} {
		if !Compile(Rule{WatchAccounts: []string{w}}).Match(b.Posts[0]) {
			t.Errorf("watch %s does not match %+v", w, b.Posts[0])
		}
	}
}

func TestBlueskyMalformed(t *testing.T) {
	for name, body := range map[string]string{
		"not json":   `<html>oops</html>`,
		"no posts":   `{"cursor":"x"}`,
		"bad uri":    `{"posts":[{"uri":"https://bsky.app/x","author":{"did":"did:plc:a","handle":"a.b"},"record":{"text":"acme","createdAt":"2024-05-03T10:00:00Z"}}]}`,
		"no dates":   `{"posts":[{"uri":"at://did:plc:a/app.bsky.feed.post/3k","author":{"did":"did:plc:a","handle":"a.b"},"record":{"text":"acme"}}]}`,
		"wrong type": `{"posts":{"uri":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			f, srv := newBskyFake(t)
			f.hook = func(w http.ResponseWriter, r *http.Request) bool {
				if r.URL.Path != "/xrpc/app.bsky.feed.searchPosts" {
					return false
				}
				w.Write([]byte(body))
				return true
			}
			b, err := newTestBluesky(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-time.Hour)})
			if err == nil || len(b.Posts) != 0 {
				t.Fatalf("malformed answer gave %d posts, err %v", len(b.Posts), err)
			}
		})
	}
}

func TestBlueskyConfigured(t *testing.T) {
	for _, c := range []struct {
		cfg     BlueskyConfig
		ok      bool
		missing string
		note    bool
	}{
		{BlueskyConfig{}, true, "", true}, // Jetstream
		{BlueskyConfig{Handle: "a.bsky.social", AppPassword: "p"}, true, "", false},
		{BlueskyConfig{Handle: "a.bsky.social"}, false, "EARSHOT_BLUESKY_APP_PASSWORD", false},
		{BlueskyConfig{AppPassword: "p"}, false, "EARSHOT_BLUESKY_HANDLE", false},
		{BlueskyConfig{JetstreamURL: "off"}, false, "EARSHOT_BLUESKY_HANDLE and EARSHOT_BLUESKY_APP_PASSWORD (Jetstream is off)", true},
	} {
		b := NewBluesky(c.cfg)
		ok, missing := b.Configured()
		if ok != c.ok || missing != c.missing || (b.StatusNote() != "") != c.note {
			t.Errorf("%+v: Configured() = %v, %q, note %q", c.cfg, ok, missing, b.StatusNote())
		}
	}
	if !strings.Contains(NewBluesky(BlueskyConfig{}).StatusNote(), "live only") {
		t.Error("Jetstream note does not say live only")
	}
}

func TestBlueskyQueries(t *testing.T) {
	for _, c := range []struct {
		mode string
		kws  []string
		want []string
	}{
		{"any", []string{"acme", "Acme Projects", `"acme.example"`, " "}, []string{"acme", `"Acme Projects"`, "acme.example"}},
		{"all", []string{"acme", "mobile app"}, []string{`acme "mobile app"`}},
		{"phrase", []string{"acme", "down"}, []string{`"acme down"`}},
		{"any", nil, nil},
	} {
		if got := searchTerms(Query{Keywords: c.kws, QueryMode: c.mode}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: %q, want %q", c.mode, c.kws, got, c.want)
		}
	}
}

func TestBlueskyWatchHandles(t *testing.T) {
	got := watchHandles("bluesky", []string{"acme", "@acme.bsky.social", "ACME.bsky.social", "acme.com", "did:plc:abc123",
		"did:web:acme.com", "@acme@mastodon.social", "urn:li:organization:1", "https://bsky.app/profile/x", "-bad-.com"})
	want := []string{"acme.bsky.social", "acme.com", "did:plc:abc123", "did:web:acme.com"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("watchHandles = %q, want %q", got, want)
	}
}

// Like every collector (hermetic_test.go), Bluesky in both modes and
// Mastodon left on their real hosts fail at once under test.
func TestBlueskyAndMastodonStayOnLoopbackUnderTest(t *testing.T) {
	for name, c := range map[string]Collector{
		"bluesky search":    NewBluesky(BlueskyConfig{Handle: "a.bsky.social", AppPassword: "p"}),
		"bluesky jetstream": NewBluesky(BlueskyConfig{}),
		"mastodon":          NewMastodon(MastodonConfig{Instances: "mastodon.social=tok"}),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // the refusal is immediate; the bound only ends a hang
		_, err := c.Fetch(ctx, Query{Keywords: []string{"acme"}, Since: time.Now().Add(-time.Hour)})
		cancel()
		if !errors.Is(err, netguard.ErrLoopbackOnly) {
			t.Errorf("%s on its default host: %v, want the loopback-only refusal", name, err)
		}
	}
}
