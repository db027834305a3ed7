package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var hnNow = time.Date(2024, 5, 1, 13, 0, 0, 0, time.UTC)

func TestHNFetchPagesAndNormalises(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.URL.Path != "/search_by_date" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(readFixture(t, "hn/page"+r.URL.Query().Get("page")+".json"))
	}))
	defer srv.Close()

	c := NewHN(HNConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(hnNow)})
	since := hnNow.Add(-24 * time.Hour)
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	reqs := log.all()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 pages", len(reqs))
	}
	q := reqs[0].URL.Query()
	if q.Get("query") != "acme" || q.Get("tags") != "(story,comment)" || q.Get("page") != "0" {
		t.Errorf("first request %v", q)
	}
	wantFilter := fmt.Sprintf("created_at_i>%d,created_at_i<=%d", since.Unix()-1, hnNow.Unix())
	if got := q.Get("numericFilters"); got != wantFilter {
		t.Errorf("numericFilters = %q, want %q", got, wantFilter)
	}
	if reqs[1].URL.Query().Get("page") != "1" {
		t.Errorf("second request page = %q", reqs[1].URL.Query().Get("page"))
	}
	if len(b.Posts) != 5 {
		t.Fatalf("%d posts, want 5", len(b.Posts))
	}
	byID := map[string]Post{}
	for _, p := range b.Posts {
		byID[p.ExternalID] = p
		if p.Source != "hn" || p.PublishedAt.Location() != time.UTC {
			t.Errorf("post %s: source %q, location %v", p.ExternalID, p.Source, p.PublishedAt.Location())
		}
	}
	c3 := byID["39800003"]
	if want := "I tried Acme & it's fine.\n\nBut the \"board\" view is slow"; c3.Text != want {
		t.Errorf("comment text = %q, want %q", c3.Text, want)
	}
	if _, ok := c3.Engagement["points"]; ok {
		t.Errorf("comment has points: %v", c3.Engagement)
	}
	if c3.URL != "https://news.ycombinator.com/item?id=39800003" || c3.AuthorHandle != "tcas" {
		t.Errorf("comment url/author = %q %q", c3.URL, c3.AuthorHandle)
	}
	if !c3.PublishedAt.Equal(time.Unix(1714565400, 0)) {
		t.Errorf("published %v", c3.PublishedAt)
	}
	story := byID["39800001"]
	if story.Text != "Acme launches X" || story.Engagement["points"] != 57 || story.Engagement["num_comments"] != 2 {
		t.Errorf("story = %+v", story)
	}
	ask := byID["39799990"]
	if want := "Ask HN: Acme vs Globex for a 30-person team?\n\nWe're choosing between Acme and Globex.\n\nPricing > features for us."; ask.Text != want {
		t.Errorf("ask text = %q, want %q", ask.Text, want)
	}
	deleted := byID["39799980"]
	if deleted.AuthorHandle != "" || len(deleted.Engagement) != 0 {
		t.Errorf("deleted-author story = %+v", deleted)
	}
}

func TestHNWatchAccountsAndModes(t *testing.T) {
	got := hnSearches(Query{Keywords: []string{"acme", " ", "globex"}, QueryMode: "all", WatchAccounts: []string{"@pg"}})
	want := []hnSearch{{query: "acme globex", tags: "(story,comment)"}, {query: "", tags: "(story,comment),author_pg"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hnSearches = %v, want %v", got, want)
	}
}

func TestHNRateLimitedAndMalformed(t *testing.T) {
	now := hnNow
	tests := []struct {
		name    string
		status  int
		header  map[string]string
		body    string
		limited bool
		until   time.Time
	}{
		{"429 with Retry-After", 429, map[string]string{"Retry-After": "120"}, "hn/throttle.html", true, now.Add(120 * time.Second)},
		{"429 without headers", 429, nil, "hn/throttle.html", true, now.Add(time.Minute)},
		{"truncated JSON", 200, nil, "hn/malformed.json", false, time.Time{}},
		{"HTML with 200", 200, nil, "hn/throttle.html", false, time.Time{}},
		{"JSON of another shape", 200, nil, "hn/wrong_shape.json", false, time.Time{}},
		{"1000-hit error", 400, nil, "hn/error_1000.json", false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, tt.status, tt.header, tt.body)
			c := NewHN(HNConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(now)})
			b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: now.Add(-time.Hour)})
			if err == nil {
				t.Fatalf("no error, batch %+v", b)
			}
			rl, ok := IsRateLimited(err)
			if ok != tt.limited {
				t.Fatalf("rate limited = %v, want %v (err %v)", ok, tt.limited, err)
			}
			if ok && !rl.Until.Equal(tt.until) {
				t.Errorf("Until = %v, want %v", rl.Until, tt.until)
			}
		})
	}
}

// fakeAlgolia serves n synthetic hits spread over [from, to] and, like the
// real API, refuses to page past the 1,000th hit of a query.
type fakeAlgolia struct {
	hits     []map[string]any // newest first
	requests int
	mu       sync.Mutex
}

func newFakeAlgolia(n int, from, to int64) *fakeAlgolia {
	f := &fakeAlgolia{}
	for i := 0; i < n; i++ {
		ts := to - int64(i)*(to-from)/int64(n)
		f.hits = append(f.hits, map[string]any{
			"created_at":   time.Unix(ts, 0).UTC().Format("2006-01-02T15:04:05.000Z"),
			"created_at_i": ts, "author": "u" + strconv.Itoa(i), "comment_text": "acme #" + strconv.Itoa(i),
			"points": nil, "story_id": 1, "parent_id": 1, "_tags": []string{"comment"}, "objectID": strconv.Itoa(40000000 + i),
		})
	}
	return f
}

func (f *fakeAlgolia) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	f.mu.Unlock()
	q := r.URL.Query()
	lo, hi := int64(-1<<62), int64(1<<62)
	for _, cond := range strings.Split(q.Get("numericFilters"), ",") {
		switch {
		case strings.HasPrefix(cond, "created_at_i<="):
			hi, _ = strconv.ParseInt(strings.TrimPrefix(cond, "created_at_i<="), 10, 64)
		case strings.HasPrefix(cond, "created_at_i>"):
			lo, _ = strconv.ParseInt(strings.TrimPrefix(cond, "created_at_i>"), 10, 64)
		}
	}
	var in []map[string]any
	for _, h := range f.hits {
		if ts := h["created_at_i"].(int64); ts > lo && ts <= hi {
			in = append(in, h)
		}
	}
	hpp, _ := strconv.Atoi(q.Get("hitsPerPage"))
	page, _ := strconv.Atoi(q.Get("page"))
	if (page+1)*hpp > hnMaxHits && page*hpp >= hnMaxHits {
		w.WriteHeader(400)
		w.Write([]byte(`{"message":"you can only fetch the 1000 hits for this query","status":400}`))
		return
	}
	reachable := min(len(in), hnMaxHits)
	nbPages := (reachable + hpp - 1) / hpp
	start, end := min(page*hpp, reachable), min((page+1)*hpp, reachable)
	json.NewEncoder(w).Encode(map[string]any{
		"hits": in[start:end], "nbHits": len(in), "page": page, "nbPages": nbPages, "hitsPerPage": hpp,
		"exhaustiveNbHits": true, "query": q.Get("query"), "params": r.URL.RawQuery, "processingTimeMS": 1,
	})
}

func TestHNSplitsRangePast1000Hits(t *testing.T) {
	now := hnNow
	from := now.Add(-24 * time.Hour).Unix()
	fake := newFakeAlgolia(2500, from, now.Unix()-1)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c := NewHN(HNConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(now)})
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: time.Unix(from, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Posts) != 2500 {
		t.Fatalf("%d posts, want all 2500", len(b.Posts))
	}
	seen := map[string]bool{}
	for _, p := range b.Posts {
		if seen[p.ExternalID] {
			t.Fatalf("duplicate %s", p.ExternalID)
		}
		seen[p.ExternalID] = true
	}
	t.Logf("%d requests for 2500 hits", fake.requests)
}
