package collect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// A failed fetch stores nothing; a fetch of independent units (news feeds,
// review URLs, LinkedIn pages) keeps the units that completed and drops
// every post of the unit that failed (see PartialError).

func mentionCount(t *testing.T, f *fixture, source string) int {
	t.Helper()
	ms, err := f.st.ListMentions(context.Background(), store.MentionFilter{ProjectID: f.project.ID, Source: source}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}

func sourceStatus(t *testing.T, f *fixture, m *store.Monitor, source string) store.SourceStatus {
	t.Helper()
	mon, err := f.st.Monitor(context.Background(), f.project.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range mon.SourceStatus {
		if s.Source == source {
			return s
		}
	}
	t.Fatalf("no status for %s", source)
	return store.SourceStatus{}
}

// Threads page 1 is fine, page 2 is malformed: the scan fails, and page 1's
// posts are neither stored nor announced with mention.created.
func TestSchedulerThreadsHalfFailedScanStoresNothing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ts := time.Now().UTC().Add(-10 * time.Minute).Format("2006-01-02T15:04:05-0700")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("after") == "" {
			fmt.Fprintf(w, `{"data":[{"id":"1","text":"acme is great","timestamp":%q,"username":"a"},{"id":"2","text":"acme again","timestamp":%q,"username":"b"}],
				"paging":{"cursors":{"after":"P2"},"next":"https://graph.threads.net/v1.0/keyword_search?after=P2"}}`, ts, ts)
			return
		}
		w.Write([]byte(`{"data":[{"id":"3","text":"acme`)) // cut off
	}))
	defer srv.Close()
	reg := registryOf(NewThreads(ThreadsConfig{BaseURL: srv.URL, AccessToken: "t", Client: srv.Client()}))
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Sources = []string{"threads"} })
	s, _ := newTestScheduler(f, reg, SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := mentionCount(t, f, "threads"); n != 0 {
		t.Errorf("%d mentions stored from a failed scan, want 0", n)
	}
	if evs := f.events(t, "mention.created"); len(evs) != 0 {
		t.Errorf("%d mention.created events from a failed scan", len(evs))
	}
	if st := sourceStatus(t, f, m, "threads"); st.Status != "failing" || !strings.Contains(st.LastError, "malformed") {
		t.Errorf("threads status %+v, want failing with a malformed-response error", st)
	}
}

// The scheduler enforces the rule whatever a collector returns: posts that
// come with a plain error are dropped, those with a PartialError kept.
func TestSchedulerDropsPostsOfFailedFetch(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	now := time.Now()
	var fail error
	hn := &fakeCollector{source: "hn", fetch: func(context.Context, Query) (Batch, error) {
		return Batch{Posts: []Post{hnPost("1", "Acme one", now.Add(-time.Minute))}}, fail
	}}
	m := f.monitor(t, f.project.ID, nil)
	s, clk := newTestScheduler(f, registryOf(hn), SchedulerConfig{})

	fail = errors.New("hn: page 2: connection reset")
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := mentionCount(t, f, "hn"); n != 0 {
		t.Errorf("%d mentions stored from a failed fetch", n)
	}
	clk.add(20 * time.Minute)
	fail = &PartialError{Err: errors.New("feed https://dead.example/rss: HTTP 404")}
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := mentionCount(t, f, "hn"); n != 1 {
		t.Errorf("%d mentions stored from the completed units of a partial fetch, want 1", n)
	}
	if st := sourceStatus(t, f, m, "hn"); st.Status != "failing" || !strings.Contains(st.LastError, "dead.example") {
		t.Errorf("status %+v, want failing and naming the failed unit", st)
	}
}

// A feed that fails half-way adds none of its items; the good feed's are
// kept and the error names the failed feed.
func TestNewsFailedFeedAddsNothing(t *testing.T) {
	srv, _ := newsServer(t, "google_empty.xml", "gdelt_empty.json")
	bad := srv.URL + "/feeds/feed_bad_second_item.xml"
	b, err := newTestNews(srv).Fetch(context.Background(), Query{
		FeedURLs: []string{bad, srv.URL + "/feeds/feed_one_item.xml"},
		Since:    testNowC.Add(-72 * time.Hour),
	})
	var pe *PartialError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err = %v, want a PartialError naming %s", err, bad)
	}
	if len(b.Posts) != 1 || b.Posts[0].ExternalID != "https://tiny.example/acme-cafe" {
		t.Errorf("posts %+v, want only the good feed's item", b.Posts)
	}
}

// A review URL whose second App Store page is malformed adds none of page
// one's reviews; the other URL's reviews are kept.
func TestReviewsFailedURLAddsNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/pages/"):
			w.Write(readFixture(t, "reviews/page_product.html"))
		case strings.Contains(r.URL.Path, "/page=1/"):
			w.Write(readFixture(t, "reviews/appstore_page1.json"))
		default:
			w.Write(readFixture(t, "reviews/appstore_malformed.json"))
		}
	}))
	defer srv.Close()
	b, err := newTestReviews(srv, "").Fetch(context.Background(), Query{
		ReviewURLs: []string{"https://apps.apple.com/us/app/acme/id1234567890", srv.URL + "/pages/page_product.html"},
		Since:      time.Time{},
	})
	var pe *PartialError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "id1234567890") {
		t.Fatalf("err = %v, want a PartialError naming the App Store URL", err)
	}
	if len(b.Posts) == 0 {
		t.Fatal("the good page's reviews were dropped")
	}
	for _, p := range b.Posts {
		if strings.HasPrefix(p.ExternalID, "appstore:") {
			t.Errorf("kept %s from the App Store URL that failed", p.ExternalID)
		}
	}
}

// One organization page the token cannot read does not stop the others;
// it adds nothing.
func TestLinkedInFailedOrganizationAddsNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/rest/posts" && r.URL.Query().Get("author") == "urn:li:organization:1":
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"status":403,"message":"Not enough permissions"}`))
		case r.URL.Path == "/rest/posts":
			w.Write(readFixture(t, "linkedin/posts_page1.json"))
		default:
			w.Write(readFixture(t, "linkedin/empty.json"))
		}
	}))
	defer srv.Close()
	b, err := newTestLinkedIn(srv).Fetch(context.Background(), Query{WatchAccounts: []string{"urn:li:organization:1", "urn:li:organization:2"}, Since: testNowC.Add(-72 * time.Hour)})
	var pe *PartialError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "organization:1") {
		t.Fatalf("err = %v, want a PartialError naming organization 1", err)
	}
	if len(b.Posts) == 0 {
		t.Fatal("organization 2's posts were dropped")
	}
	for _, p := range b.Posts {
		if p.AuthorHandle == "urn:li:organization:1" {
			t.Errorf("post %s of the failed organization kept", p.ExternalID)
		}
	}
}
