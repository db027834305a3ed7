package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"earshot/collect/wire"
)

var xNow = time.Date(2024, 5, 1, 13, 0, 0, 0, time.UTC)

const (
	xNewestID = "1785640309355446273"
	xToken    = "b26v89c19zqg8o3fpdpcfcgkdwv2t7zxmsr3hxvvctnp"
)

func xPages(t *testing.T, log *requestLog, hdr http.Header) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.Header.Get("Authorization") != "Bearer AAAA-token" {
			w.WriteHeader(401)
			w.Write(readFixture(t, "x/unauthorized.json"))
			return
		}
		if r.URL.Path != "/2/tweets/search/recent" {
			http.NotFound(w, r)
			return
		}
		for k, v := range hdr {
			w.Header()[k] = v
		}
		switch {
		case r.URL.Query().Get("since_id") == xNewestID:
			w.Write(readFixture(t, "x/empty.json"))
		case r.URL.Query().Get("next_token") == xToken:
			w.Write(readFixture(t, "x/page2.json"))
		default:
			w.Write(readFixture(t, "x/page1.json"))
		}
	}
}

func TestXFetchPagesAndNormalises(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(xPages(t, &log, http.Header{"X-Rate-Limit-Remaining": {"449"}, "X-Rate-Limit-Limit": {"450"}}))
	defer srv.Close()
	c := NewX(XConfig{BaseURL: srv.URL, BearerToken: "AAAA-token", Client: srv.Client(), Now: fixedNow(xNow)})
	since := xNow.Add(-24 * time.Hour)
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme", "acme.io"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	reqs := log.all()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 pages", len(reqs))
	}
	q := reqs[0].URL.Query()
	if q.Get("query") != `(acme OR "acme.io") -is:retweet` || q.Get("max_results") != "100" ||
		q.Get("start_time") != "2024-04-30T13:00:00Z" || q.Get("since_id") != "" || q.Get("expansions") != "author_id" ||
		q.Get("tweet.fields") != "created_at,public_metrics,author_id,entities" || q.Get("user.fields") != "username,public_metrics" {
		t.Errorf("params %v", q)
	}
	if reqs[1].URL.Query().Get("next_token") != xToken {
		t.Errorf("second page next_token = %q", reqs[1].URL.Query().Get("next_token"))
	}
	if len(b.Posts) != 5 || b.State != xNewestID {
		t.Fatalf("%d posts, state %q", len(b.Posts), b.State)
	}
	p := b.Posts[0]
	if p.ExternalID != xNewestID || p.URL != "https://x.com/devperson/status/"+xNewestID || p.AuthorHandle != "devperson" ||
		p.AuthorFollowers != 5120 || p.Text != "Loving @acmehq's new release & the timeline view <3 https://t.co/AbCdEf1234" ||
		!p.PublishedAt.Equal(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)) ||
		p.Engagement["likes"] != 40 || p.Engagement["retweets"] != 5 || p.Engagement["replies"] != 2 ||
		p.Engagement["quotes"] != 1 || p.Engagement["impressions"] != 5012 {
		t.Errorf("first post = %+v", p)
	}
	gone := b.Posts[3] // author not in includes (suspended): partial error
	if gone.AuthorHandle != "" || gone.AuthorFollowers != 0 || gone.URL != "https://x.com/i/web/status/"+gone.ExternalID {
		t.Errorf("post by missing user = %+v", gone)
	}
	if len(b.Posts[4].Engagement) != 0 {
		t.Errorf("missing public_metrics became %v", b.Posts[4].Engagement)
	}
}

func TestXIncrementalUsesSinceID(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(xPages(t, &log, nil))
	defer srv.Close()
	c := NewX(XConfig{BaseURL: srv.URL, BearerToken: "AAAA-token", Client: srv.Client(), Now: fixedNow(xNow)})
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: xNow.Add(-30 * 24 * time.Hour), State: xNewestID})
	if err != nil {
		t.Fatal(err)
	}
	q := log.all()[0].URL.Query()
	if q.Get("since_id") != xNewestID {
		t.Errorf("since_id = %q", q.Get("since_id"))
	}
	// A Since older than the window is clamped to seven days.
	if st, _ := time.Parse(time.RFC3339, q.Get("start_time")); st.Before(xNow.Add(-7*24*time.Hour)) || st.After(xNow.Add(-7*24*time.Hour+2*time.Minute)) {
		t.Errorf("start_time = %q", q.Get("start_time"))
	}
	if len(b.Posts) != 0 || b.State != xNewestID {
		t.Errorf("batch = %+v", b)
	}
	// A since_id minted before the window is dropped (the API refuses it).
	old := strconv.FormatUint(uint64(xNow.Add(-8*24*time.Hour).UnixMilli()-wire.TwitterEpochMS)<<22, 10)
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, State: old}); err != nil {
		t.Fatal(err)
	}
	reqs := log.all()
	if got := reqs[len(reqs)-1].URL.Query().Get("since_id"); got != "" {
		t.Errorf("stale since_id sent: %q", got)
	}
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, State: "abc"}); err == nil {
		t.Error("bad state accepted")
	}
}

func TestXRateLimits(t *testing.T) {
	reset := xNow.Add(9 * time.Minute)
	t.Run("429 with x-rate-limit-reset", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("x-rate-limit-limit", "450")
			w.Header().Set("x-rate-limit-remaining", "0")
			w.Header().Set("x-rate-limit-reset", strconv.FormatInt(reset.Unix(), 10))
			w.WriteHeader(429)
			w.Write(readFixture(t, "x/rate_limited.json"))
		}))
		defer srv.Close()
		c := NewX(XConfig{BaseURL: srv.URL, BearerToken: "AAAA-token", Client: srv.Client(), Now: fixedNow(xNow)})
		_, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}})
		rl, ok := IsRateLimited(err)
		if !ok || !rl.Until.Equal(reset) || rl.Source != "x" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no requests left before the next page", func(t *testing.T) {
		var log requestLog
		hdr := http.Header{"X-Rate-Limit-Remaining": {"0"}, "X-Rate-Limit-Reset": {strconv.FormatInt(reset.Unix(), 10)}}
		srv := httptest.NewServer(xPages(t, &log, hdr))
		defer srv.Close()
		c := NewX(XConfig{BaseURL: srv.URL, BearerToken: "AAAA-token", Client: srv.Client(), Now: fixedNow(xNow)})
		_, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}})
		rl, ok := IsRateLimited(err)
		if !ok || !rl.Until.Equal(reset) {
			t.Fatalf("err = %v", err)
		}
		if len(log.all()) != 1 {
			t.Errorf("%d requests; the next page should wait for the reset", len(log.all()))
		}
	})
}

func TestXMalformedAndAuth(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"truncated JSON", 200, "x/malformed.json"},
		{"errors only, no meta", 200, "x/data_without_meta.json"},
		{"stale since_id refused", 400, "x/invalid_since_id.json"},
		{"bad token", 401, "x/unauthorized.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, tt.status, nil, tt.body)
			c := NewX(XConfig{BaseURL: srv.URL, BearerToken: "AAAA-token", Client: srv.Client(), Now: fixedNow(xNow)})
			b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}})
			if err == nil {
				t.Fatalf("no error; batch %+v", b)
			}
			if _, ok := IsRateLimited(err); ok {
				t.Fatalf("reported as rate limit: %v", err)
			}
		})
	}
	if ok, missing := NewX(XConfig{}).Configured(); ok || missing != "EARSHOT_X_BEARER_TOKEN" {
		t.Errorf("Configured without token = %v %q", ok, missing)
	}
}

func TestXQueries(t *testing.T) {
	tests := []struct {
		q    Query
		want []string
	}{
		{Query{Keywords: []string{"acme"}}, []string{"acme -is:retweet"}},
		{Query{Keywords: []string{"acme", "@acmehq", "#acme", "c++"}}, []string{`(acme OR @acmehq OR #acme OR "c++") -is:retweet`}},
		{Query{Keywords: []string{"acme", "outage"}, QueryMode: "all"}, []string{"(acme outage) -is:retweet"}},
		{Query{Keywords: []string{"acme", "board"}, QueryMode: "phrase", WatchAccounts: []string{"@AcmeHQ"}}, []string{`("acme board" OR from:AcmeHQ) -is:retweet`}},
		{Query{}, nil},
	}
	for _, tt := range tests {
		got := xQueries(tt.q)
		if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
			t.Errorf("xQueries(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
	var many []string
	for i := 0; i < 80; i++ {
		many = append(many, "keyword"+strconv.Itoa(i))
	}
	for _, q := range xQueries(Query{Keywords: many}) {
		if len(q) > xMaxQuery {
			t.Errorf("query of %d characters", len(q))
		}
	}
}
