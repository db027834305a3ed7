package collect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newsServer serves feeds under /feeds/<fixture>, Google News at
// /rss/search and GDELT at /api/v2/doc/doc; google and gdelt name the
// fixtures (or "429") those two answer with.
func newsServer(t *testing.T, google, gdelt string) (*httptest.Server, *requestLog) {
	t.Helper()
	reqs := &requestLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		switch {
		case strings.HasPrefix(r.URL.Path, "/feeds/"):
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Write(readFixture(t, "news/"+strings.TrimPrefix(r.URL.Path, "/feeds/")))
		case r.URL.Path == "/rss/search":
			w.Header().Set("Content-Type", "application/xml; charset=utf-8")
			w.Write(readFixture(t, "news/"+google))
		case r.URL.Path == "/api/v2/doc/doc" && gdelt == "429":
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(readFixture(t, "news/gdelt_throttle.txt"))
		case r.URL.Path == "/api/v2/doc/doc":
			// GDELT sends its throttle text and errors with status 200.
			if strings.HasSuffix(gdelt, ".txt") {
				w.Header().Set("Content-Type", "text/html")
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			w.Write(readFixture(t, "news/"+gdelt))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func newTestNews(srv *httptest.Server) *News {
	return NewNews(NewsConfig{GoogleNewsBaseURL: srv.URL, GDELTBaseURL: srv.URL, Client: srv.Client(), FeedClient: NewUserURLClient(true), Now: nowC})
}

func TestNewsFeedsAndSearches(t *testing.T) {
	srv, reqs := newsServer(t, "google_search.xml", "gdelt.json")
	since := testNowC.Add(-48 * time.Hour)
	b, err := newTestNews(srv).Fetch(context.Background(), Query{
		Keywords: []string{"acme", "globex"},
		FeedURLs: []string{srv.URL + "/feeds/feed_rss.xml", srv.URL + "/feeds/feed_atom.xml", srv.URL + "/feeds/feed_one_item.xml", srv.URL + "/feeds/feed_atom_one.xml"},
		Since:    since,
	})
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]Post{}
	for _, p := range b.Posts {
		if _, dup := byURL[p.URL]; dup {
			t.Errorf("duplicate link %s", p.URL)
		}
		byURL[p.URL] = p
		if p.Source != "news" || p.ExternalID == "" || p.PublishedAt.Before(since) {
			t.Errorf("bad post %+v", p)
		}
	}
	// rss 2 (old one dropped) + atom 2 + one-item 1 + atom-one 1 + google 2
	// (third is a duplicate link) + gdelt 2 (third duplicate) = 10.
	if len(b.Posts) != 10 {
		for _, p := range b.Posts {
			t.Logf("%s %s", p.URL, p.PublishedAt)
		}
		t.Fatalf("%d posts, want 10", len(b.Posts))
	}
	cases := []struct{ url, id, author, text string }{
		{"https://pmweekly.example/2024/05/acme-vs-globex/", "https://pmweekly.example/?p=4812", "Jamie Rivera",
			"Acme & Globex: the kanban showdown\n\nWe ran both tools for a month.\n\nAcme’s timeline won on speed; Globex on reporting."},
		{"https://pmweekly.example/2024/05/acme-outage/", "https://pmweekly.example/2024/05/acme-outage/", "Sam Lee",
			"Why Acme's outage lasted four hours\n\nA postmortem summary — with timeline"},
		{"https://acme.example/blog/timeline", "tag:acme.example,2024:post-42", "Priya N.",
			"Shipping the timeline view\n\nToday Acme ships timelines & dependencies."},
		{"https://acme.example/blog/sync", "tag:acme.example,2024:post-41", "Acme Engineering Blog",
			"Sync latency update\n\nSync is 2x faster."},
		{"https://tiny.example/acme-cafe", "https://tiny.example/acme-cafe", "Tiny Blog",
			"Café owners love Acme\n\nAcme keeps our rota straight"},
		{"https://solo.example/1", "urn:solo:1", "Solo", "Acme for nonprofits\n\nFree tier announced"},
		{"https://news.google.com/rss/articles/CBMitwFBVV95cUxPWA?oc=5", "CBMitwFBVV95cUxPWA", "Reuters", "Acme raises $50M to take on Globex"},
		{"https://www.elsiglo.com.mx/acme", "https://www.elsiglo.com.mx/acme", "elsiglo.com.mx", "Acme llega a México"},
	}
	for _, c := range cases {
		p, ok := byURL[c.url]
		if !ok {
			t.Errorf("missing %s", c.url)
			continue
		}
		if p.ExternalID != c.id || p.AuthorHandle != c.author || p.Text != c.text {
			t.Errorf("%s:\n got id=%q author=%q text=%q\nwant id=%q author=%q text=%q", c.url, p.ExternalID, p.AuthorHandle, p.Text, c.id, c.author, c.text)
		}
	}
	if p := byURL["https://acme.example/blog/sync"]; !p.PublishedAt.Equal(time.Date(2024, 5, 2, 18, 0, 0, 0, time.UTC)) {
		t.Errorf("atom updated with offset: %v", p.PublishedAt)
	}
	if p := byURL["https://www.elsiglo.com.mx/acme"]; !p.PublishedAt.Equal(time.Date(2024, 5, 3, 3, 15, 0, 0, time.UTC)) {
		t.Errorf("gdelt seendate: %v", p.PublishedAt)
	}
	// The searches carry the keywords, the window and the fixed params.
	for _, r := range reqs.all() {
		q := r.URL.Query()
		switch r.URL.Path {
		case "/rss/search":
			if q.Get("q") != `"acme" OR "globex" when:49h` || q.Get("hl") != "en-US" || q.Get("gl") != "US" || q.Get("ceid") != "US:en" {
				t.Errorf("google news query %v", q)
			}
		case "/api/v2/doc/doc":
			if q.Get("query") != `("acme" OR "globex")` || q.Get("mode") != "artlist" || q.Get("format") != "json" ||
				q.Get("maxrecords") != "250" || q.Get("startdatetime") != "20240501180000" || q.Get("enddatetime") != "20240503180000" {
				t.Errorf("gdelt query %v", q)
			}
		}
	}
}

func TestNewsFeedsOnlyWithoutKeywords(t *testing.T) {
	srv, reqs := newsServer(t, "google_search.xml", "gdelt.json")
	b, err := newTestNews(srv).Fetch(context.Background(), Query{FeedURLs: []string{srv.URL + "/feeds/feed_latin1.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs.all()) != 1 || len(b.Posts) != 1 || b.Posts[0].Text != "Olé Acme" {
		t.Fatalf("%d requests, posts %+v", len(reqs.all()), b.Posts)
	}
}

func TestNewsEmptyResults(t *testing.T) {
	srv, _ := newsServer(t, "google_empty.xml", "gdelt_empty.json")
	b, err := newTestNews(srv).Fetch(context.Background(), Query{Keywords: []string{"zzqx"}, Since: testNowC.Add(-time.Hour)})
	if err != nil || len(b.Posts) != 0 {
		t.Fatalf("posts %v, err %v", b.Posts, err)
	}
}

func TestNewsGDELTThrottleIsRateLimit(t *testing.T) {
	for _, gdelt := range []string{"gdelt_throttle.txt", "429"} {
		t.Run(gdelt, func(t *testing.T) {
			srv, _ := newsServer(t, "google_search.xml", gdelt)
			b, err := newTestNews(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
			rl, ok := IsRateLimited(err)
			if !ok {
				t.Fatalf("err = %v, want RateLimitedError", err)
			}
			if rl.Source != "news" || !rl.Until.After(testNowC) {
				t.Errorf("rate limit %+v", rl)
			}
			// Google News still answered; its posts are kept beside the error.
			if len(b.Posts) != 3 {
				t.Errorf("%d posts from google news", len(b.Posts))
			}
		})
	}
}

func TestNewsMalformed(t *testing.T) {
	cases := []struct{ name, feed, google, gdelt string }{
		{"broken xml", "malformed.xml", "google_empty.xml", "gdelt_empty.json"},
		{"html page", "not_a_feed.html", "google_empty.xml", "gdelt_empty.json"},
		{"gdelt broken json", "", "google_empty.xml", "gdelt_malformed.json"},
		{"gdelt text error", "", "google_empty.xml", "gdelt_error.txt"},
		{"google broken", "", "malformed.xml", "gdelt_empty.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := newsServer(t, c.google, c.gdelt)
			q := Query{Keywords: []string{"acme"}}
			if c.feed != "" {
				q.FeedURLs = []string{srv.URL + "/feeds/" + c.feed}
			}
			_, err := newTestNews(srv).Fetch(context.Background(), q)
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := IsRateLimited(err); ok {
				t.Errorf("malformed reported as rate limit: %v", err)
			}
		})
	}
	var se *StatusError
	srv, _ := newsServer(t, "google_empty.xml", "gdelt_empty.json")
	_, err := newTestNews(srv).Fetch(context.Background(), Query{FeedURLs: []string{srv.URL + "/nope.xml"}})
	if !errors.As(err, &se) || se.Status != 404 {
		t.Errorf("404 feed: %v", err)
	}
}

func TestNewsQueries(t *testing.T) {
	now := testNowC
	cases := []struct {
		q              Query
		google, gdeltQ string
	}{
		{Query{Keywords: []string{"acme"}, Since: now.Add(-2 * time.Hour)}, `"acme" when:3h`, `"acme"`},
		{Query{Keywords: []string{"acme", "projects"}, QueryMode: "all", Since: now.Add(-72 * time.Hour)}, `"acme" "projects" when:4d`, `"acme" "projects"`},
		{Query{Keywords: []string{"acme", "projects"}, QueryMode: "phrase", ExcludeKeywords: []string{"anvil"}}, `"acme projects" -"anvil" when:30d`, `"acme projects"`},
		{Query{WatchAccounts: []string{"acme"}}, "", ""},
	}
	for _, c := range cases {
		if got := googleNewsQuery(c.q, now); got != c.google {
			t.Errorf("google %q, want %q", got, c.google)
		}
		if got := gdeltQuery(c.q); got != c.gdeltQ {
			t.Errorf("gdelt %q, want %q", got, c.gdeltQ)
		}
	}
}
