package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Platforms index some posts minutes after they are published. The
// scheduler's window overlaps the previous scan by an hour for them; these
// tests check that HN, Reddit and YouTube ask for that whole window on the
// next scan instead of starting at the newest post the previous scan saw.

// lateIndex is a platform's search index that grows between two scans:
// posts are (id, published) pairs, newest first.
type lateIndex struct {
	mu    sync.Mutex
	posts []latePost
}

type latePost struct {
	id        string
	published time.Time
}

func (l *lateIndex) add(id string, published time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.posts = append(l.posts, latePost{id, published})
	sort.Slice(l.posts, func(i, j int) bool { return l.posts[i].published.After(l.posts[j].published) })
}

func (l *lateIndex) all() []latePost {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]latePost(nil), l.posts...)
}

// lateIndexScans runs the two scans: the first sees only "newest"
// (published 5 minutes before it), then "late" (published 20 minutes before
// the first scan) is indexed, and the second scan, 15 minutes later, gets
// the scheduler's window (first scan - 1h) and the first scan's State.
func lateIndexScans(t *testing.T, idx *lateIndex, now *time.Time, fetch func(q Query) (Batch, error)) []Post {
	t.Helper()
	scan1 := *now
	idx.add("newest", scan1.Add(-5*time.Minute))
	b1, err := fetch(Query{Keywords: []string{"acme"}, Since: scan1.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b1.Posts) != 1 {
		t.Fatalf("first scan: %d posts, want 1", len(b1.Posts))
	}
	idx.add("late", scan1.Add(-20*time.Minute))
	*now = scan1.Add(15 * time.Minute)
	b2, err := fetch(Query{Keywords: []string{"acme"}, Since: scan1.Add(-time.Hour), State: b1.State})
	if err != nil {
		t.Fatal(err)
	}
	return b2.Posts
}

func hasPostSuffix(posts []Post, suffix string) bool {
	for _, p := range posts {
		if len(p.ExternalID) >= len(suffix) && p.ExternalID[len(p.ExternalID)-len(suffix):] == suffix {
			return true
		}
	}
	return false
}

var lateNow = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func TestHNLateIndexedPostInScanWindow(t *testing.T) {
	idx := &lateIndex{}
	var mu sync.Mutex
	var filters []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var lo, hi int64
		if _, err := fmt.Sscanf(q.Get("numericFilters"), "created_at_i>%d,created_at_i<=%d", &lo, &hi); err != nil {
			t.Errorf("numericFilters %q: %v", q.Get("numericFilters"), err)
		}
		mu.Lock()
		filters = append(filters, q.Get("numericFilters"))
		mu.Unlock()
		hits := []map[string]any{}
		for _, p := range idx.all() {
			if ts := p.published.Unix(); ts > lo && ts <= hi {
				hits = append(hits, map[string]any{"objectID": p.id, "created_at_i": ts, "author": "a", "comment_text": "acme", "_tags": []string{"comment"}})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"hits": hits, "nbHits": len(hits), "page": 0, "nbPages": 1})
	}))
	defer srv.Close()
	now := lateNow
	c := NewHN(HNConfig{BaseURL: srv.URL, Client: srv.Client(), Now: func() time.Time { return now }})
	posts := lateIndexScans(t, idx, &now, func(q Query) (Batch, error) { return c.Fetch(context.Background(), q) })
	if !hasPostSuffix(posts, "late") {
		t.Errorf("second scan missed the late-indexed post: %v (filters %v)", posts, filters)
	}
	// Bounded: the second scan starts at its window, not at the backfill.
	if want := "created_at_i>" + strconv.FormatInt(lateNow.Add(-time.Hour).Unix()-1, 10) + ","; filters[1][:len(want)] != want {
		t.Errorf("second scan numericFilters = %q, want prefix %q", filters[1], want)
	}
}

func TestRedditLateIndexedPostInScanWindow(t *testing.T) {
	idx := &lateIndex{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		children := []map[string]any{}
		for _, p := range idx.all() {
			children = append(children, map[string]any{"kind": "t3", "data": map[string]any{
				"name": "t3_" + p.id, "id": p.id, "author": "a", "title": "acme " + p.id, "permalink": "/r/x/comments/" + p.id + "/",
				"created_utc": float64(p.published.Unix()), "score": 1, "num_comments": 0,
			}})
		}
		// The index also holds an old post: paging stops at the window.
		children = append(children, map[string]any{"kind": "t3", "data": map[string]any{
			"name": "t3_old", "id": "old", "author": "a", "title": "acme old", "permalink": "/r/x/comments/old/",
			"created_utc": float64(lateNow.Add(-48 * time.Hour).Unix()),
		}})
		json.NewEncoder(w).Encode(map[string]any{"kind": "Listing", "data": map[string]any{"after": "t3_more", "children": children}})
	}))
	defer srv.Close()
	now := lateNow
	c := NewReddit(RedditConfig{BaseURL: srv.URL, Client: srv.Client(), Now: func() time.Time { return now }})
	posts := lateIndexScans(t, idx, &now, func(q Query) (Batch, error) { return c.Fetch(context.Background(), q) })
	if !hasPostSuffix(posts, "late") {
		t.Errorf("second scan missed the late-indexed post: %v", posts)
	}
	if hasPostSuffix(posts, "old") {
		t.Errorf("second scan took a post older than its window")
	}
}

func TestYouTubeLateIndexedVideoInScanWindow(t *testing.T) {
	idx := &lateIndex{}
	var mu sync.Mutex
	var after []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/videos" {
			w.Write([]byte(`{"kind":"youtube#videoListResponse","items":[]}`))
			return
		}
		pa := r.URL.Query().Get("publishedAfter")
		mu.Lock()
		after = append(after, pa)
		mu.Unlock()
		from, err := time.Parse(time.RFC3339, pa)
		if err != nil {
			t.Errorf("publishedAfter %q: %v", pa, err)
		}
		items := []map[string]any{}
		for _, p := range idx.all() {
			if !p.published.Before(from) {
				items = append(items, map[string]any{"id": map[string]any{"kind": "youtube#video", "videoId": p.id},
					"snippet": map[string]any{"publishedAt": p.published.Format(time.RFC3339), "title": "acme " + p.id, "channelTitle": "c"}})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"kind": "youtube#searchListResponse", "items": items})
	}))
	defer srv.Close()
	now := lateNow
	c := NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k", Client: srv.Client(), Now: func() time.Time { return now }})
	posts := lateIndexScans(t, idx, &now, func(q Query) (Batch, error) { return c.Fetch(context.Background(), q) })
	if !hasPostSuffix(posts, "late") {
		t.Errorf("second scan missed the late-indexed video: %v (publishedAfter %v)", posts, after)
	}
	if want := lateNow.Add(-time.Hour).Format(time.RFC3339); after[1] != want {
		t.Errorf("second scan publishedAfter = %q, want the window start %q", after[1], want)
	}
}
