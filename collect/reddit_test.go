package collect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

var redditNow = time.Date(2024, 5, 1, 13, 30, 0, 0, time.UTC)

// redditPages serves page1.json, then page2.json for after=t3_1c2d3e.
func redditPages(t *testing.T, log *requestLog, hdr http.Header) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		for k, v := range hdr {
			w.Header()[k] = v
		}
		switch r.URL.Query().Get("after") {
		case "":
			w.Write(readFixture(t, "reddit/page1.json"))
		case "t3_1c2d3e":
			w.Write(readFixture(t, "reddit/page2.json"))
		default:
			w.Write(readFixture(t, "reddit/empty.json"))
		}
	}
}

func TestRedditPublicPagesAndNormalises(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(redditPages(t, &log, nil))
	defer srv.Close()
	c := NewReddit(RedditConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(redditNow)})
	if ok, missing := c.Configured(); !ok {
		t.Fatalf("public reddit not configured: %s", missing)
	}
	since := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme", "acme.io"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	reqs := log.all()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 pages", len(reqs))
	}
	q := reqs[0].URL.Query()
	if reqs[0].URL.Path != "/search.json" || q.Get("q") != `acme OR "acme.io"` || q.Get("sort") != "new" ||
		q.Get("limit") != "100" || q.Get("raw_json") != "1" || q.Get("t") != "day" {
		t.Errorf("first request %s %v", reqs[0].URL.Path, q)
	}
	if ua := reqs[0].Header.Get("User-Agent"); ua != RedditDefaultUserAgent {
		t.Errorf("User-Agent = %q", ua)
	}
	if reqs[0].Header.Get("Authorization") != "" {
		t.Error("public request carries Authorization")
	}
	if got := reqs[1].URL.Query().Get("after"); got != "t3_1c2d3e" {
		t.Errorf("second page after = %q", got)
	}
	// The r/looneytunes post is older than Since: paging stops there.
	if len(b.Posts) != 4 {
		t.Fatalf("%d posts, want 4", len(b.Posts))
	}
	byID := map[string]Post{}
	for _, p := range b.Posts {
		byID[p.ExternalID] = p
	}
	review := byID["t3_1c2d40"]
	if review.URL != "https://www.reddit.com/r/projectmanagement/comments/1c2d40/acme_after_30_days_honest_review/" ||
		review.AuthorHandle != "kanban_kate" || review.Engagement["upvotes"] != 88 || review.Engagement["comments"] != 31 ||
		!review.PublishedAt.Equal(time.Unix(1714568400, 0)) || review.PublishedAt.Location() != time.UTC {
		t.Errorf("review = %+v", review)
	}
	if want := "Acme vs Foo & Bar\n\nHas anyone used Acme's Go SDK? <3"; byID["t3_1c2d3f"].Text != want {
		t.Errorf("entities: %q, want %q", byID["t3_1c2d3f"].Text, want)
	}
	deleted := byID["t3_1c2d3e"]
	if deleted.AuthorHandle != "" || deleted.Text != "Acme outage today" {
		t.Errorf("deleted = %+v", deleted)
	}
	link := byID["t3_1c2d2a"]
	if _, ok := link.Engagement["upvotes"]; ok {
		t.Errorf("missing score became %v", link.Engagement)
	}
	if _, ok := link.Engagement["comments"]; ok {
		t.Errorf("missing num_comments became %v", link.Engagement)
	}
}

func TestRedditOAuthTokenCachedAndRefreshed(t *testing.T) {
	var mu sync.Mutex
	var tokenReqs, searchReqs int
	valid := map[string]bool{}
	issue := 0
	now := redditNow
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/api/v1/access_token":
			tokenReqs++
			id, secret, ok := r.BasicAuth()
			if r.Method != http.MethodPost || !ok || id != "cid" || secret != "csecret" || r.FormValue("grant_type") != "client_credentials" ||
				!strings.Contains(r.Header.Get("User-Agent"), "(by /u/") {
				w.WriteHeader(401)
				w.Write(readFixture(t, "reddit/unauthorized.json"))
				return
			}
			issue++
			tok := "tok" + string(rune('0'+issue))
			valid[tok] = true
			w.Write([]byte(`{"access_token": "` + tok + `", "token_type": "bearer", "expires_in": 3600, "scope": "*"}`))
		case "/search":
			searchReqs++
			if !valid[strings.TrimPrefix(r.Header.Get("Authorization"), "bearer ")] {
				w.WriteHeader(401)
				w.Write(readFixture(t, "reddit/unauthorized.json"))
				return
			}
			w.Write(readFixture(t, "reddit/empty.json"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := NewReddit(RedditConfig{BaseURL: srv.URL, OAuthBaseURL: srv.URL, ClientID: "cid", ClientSecret: "csecret", Client: srv.Client(), Now: clock})
	q := Query{Keywords: []string{"acme"}, Since: redditNow.Add(-time.Hour)}
	fetch := func() {
		t.Helper()
		if _, err := c.Fetch(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	fetch()
	fetch()
	if tokenReqs != 1 || searchReqs != 2 {
		t.Fatalf("after two fetches: %d token requests, %d searches; want the token cached", tokenReqs, searchReqs)
	}
	// Within a minute of expiry the token is renewed before use.
	mu.Lock()
	now = now.Add(59*time.Minute + 30*time.Second)
	mu.Unlock()
	fetch()
	if tokenReqs != 2 {
		t.Fatalf("%d token requests, want a refresh before expiry", tokenReqs)
	}
	// Reddit revokes the token early: the 401 triggers one refresh and retry.
	mu.Lock()
	valid = map[string]bool{}
	mu.Unlock()
	fetch()
	if tokenReqs != 3 || searchReqs != 5 {
		t.Fatalf("%d token requests, %d searches; want a refresh and a retry after 401", tokenReqs, searchReqs)
	}
	// Bad credentials: an error, not an empty batch.
	bad := NewReddit(RedditConfig{BaseURL: srv.URL, OAuthBaseURL: srv.URL, ClientID: "cid", ClientSecret: "wrong", Client: srv.Client(), Now: clock})
	if _, err := bad.Fetch(context.Background(), q); err == nil {
		t.Error("bad credentials gave no error")
	}
	if ok, missing := NewReddit(RedditConfig{ClientID: "cid"}).Configured(); ok || missing != "EARSHOT_REDDIT_CLIENT_SECRET" {
		t.Errorf("half credentials: %v %q", ok, missing)
	}
}

func TestRedditRateLimits(t *testing.T) {
	t.Run("429 with X-Ratelimit-Reset", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Ratelimit-Used", "10")
			w.Header().Set("X-Ratelimit-Remaining", "0")
			w.Header().Set("X-Ratelimit-Reset", "42")
			w.WriteHeader(429)
			w.Write(readFixture(t, "reddit/throttle_429.json"))
		}))
		defer srv.Close()
		c := NewReddit(RedditConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(redditNow)})
		_, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: redditNow.Add(-time.Hour)})
		rl, ok := IsRateLimited(err)
		if !ok || !rl.Until.Equal(redditNow.Add(42*time.Second)) || rl.Source != "reddit" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("budget spent before the next page", func(t *testing.T) {
		var log requestLog
		hdr := http.Header{"X-Ratelimit-Remaining": {"0.0"}, "X-Ratelimit-Reset": {"300"}, "X-Ratelimit-Used": {"100"}}
		srv := httptest.NewServer(redditPages(t, &log, hdr))
		defer srv.Close()
		c := NewReddit(RedditConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(redditNow)})
		_, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: redditNow.Add(-24 * time.Hour)})
		rl, ok := IsRateLimited(err)
		if !ok || !rl.Until.Equal(redditNow.Add(300*time.Second)) {
			t.Fatalf("err = %v", err)
		}
		if len(log.all()) != 1 {
			t.Errorf("%d requests; the second page should not be asked for", len(log.all()))
		}
	})
}

func TestRedditMalformed(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"truncated JSON", 200, "reddit/malformed.json"},
		{"not a listing", 200, "reddit/not_listing.json"},
		{"HTML block page with 200", 200, "reddit/blocked.html"},
		{"HTML block page with 403", 403, "reddit/blocked.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, tt.status, nil, tt.body)
			c := NewReddit(RedditConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(redditNow)})
			b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: redditNow.Add(-time.Hour)})
			if err == nil {
				t.Fatalf("no error; batch %+v", b)
			}
			if _, ok := IsRateLimited(err); ok {
				t.Fatalf("malformed input reported as rate limit: %v", err)
			}
			var se *StatusError
			if tt.status == 403 && !errors.As(err, &se) {
				t.Errorf("403 not a StatusError: %v", err)
			}
		})
	}
}

func TestRedditQueries(t *testing.T) {
	tests := []struct {
		q    Query
		want []string
	}{
		{Query{Keywords: []string{"acme", "c++"}}, []string{`acme OR "c++"`}},
		{Query{Keywords: []string{"acme", "board"}, QueryMode: "all"}, []string{`(acme AND board)`}},
		{Query{Keywords: []string{"acme", "board"}, QueryMode: "phrase", WatchAccounts: []string{"@acme_hq", "u/pm_kate", "urn:li:organization:7"}}, []string{`"acme board" OR author:acme_hq OR author:pm_kate`}},
		{Query{}, nil},
		{Query{Keywords: []string{strings.Repeat("a", 300), strings.Repeat("b", 300)}}, []string{strings.Repeat("a", 300), strings.Repeat("b", 300)}},
	}
	for _, tt := range tests {
		got := redditQueries(tt.q)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("redditQueries(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
