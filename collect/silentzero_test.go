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

	"earshot/store"
)

// Issue 27, no silent zero: a real App Store reviews feed whose 50 entries
// carry no "updated" stored 0 of 50 with status ok. They are now dated by
// the feed's "updated" (or, without one, the collection time), and the
// source status says what the scan read and stored and how they were dated.
func TestAppStoreFeedWithoutEntryDatesStoresAll(t *testing.T) {
	for _, c := range []struct {
		fixture, note string
		at            time.Time
	}{
		{"appstore_50_no_updated", NoteFeedDated, time.Date(2024, 5, 3, 17, 41, 5, 0, time.UTC)},
		{"appstore_50_no_dates", NoteCollectedDated, testNowC},
	} {
		srv, _ := reviewsServer(t, c.fixture)
		b, err := newTestReviews(srv, "").Fetch(context.Background(), Query{
			ReviewURLs: []string{"https://apps.apple.com/us/app/acme-projects/id1234567890"},
			Since:      testNowC.Add(-72 * time.Hour),
		})
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.fixture, err)
		}
		if len(b.Posts) != 50 {
			t.Fatalf("%s: %d reviews, want 50", c.fixture, len(b.Posts))
		}
		for _, p := range b.Posts {
			if p.Note != c.note || !p.PublishedAt.Equal(c.at) {
				t.Fatalf("%s: review %s dated %s (%q), want %s (%q)", c.fixture, p.ExternalID, p.PublishedAt, p.Note, c.at, c.note)
			}
		}
	}
}

// The same feed through the scheduler: 50 stored, status ok, and the
// summary names the stand-in date; every scan row records read and stored.
func TestSchedulerSummaryAppStoreWithoutDates(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	srv, _ := reviewsServer(t, "appstore_50_no_updated")
	defer srv.Close()
	rev := NewReviews(ReviewsConfig{AppStoreBaseURL: srv.URL, Client: srv.Client(), PageClient: NewUserURLClient(true)})
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Sources = []string{"reviews"}
		m.ReviewURLs = []string{"https://apps.apple.com/us/app/acme-projects/id1234567890"}
		m.BackfillHours = 24 * 365 * 10
	})
	s, _ := newTestScheduler(f, registryOf(rev), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	st := sourceStatus(t, f, m, "reviews")
	want := "read 50, stored 50 (50 " + NoteFeedDated + ")"
	if st.Status != "ok" || st.LastScan == nil || st.LastScan.Summary != want {
		t.Fatalf("status %+v last scan %+v, want ok and %q", st, st.LastScan, want)
	}
	scans, err := f.st.RecentScans(ctx, m.ID, 5)
	if err != nil || len(scans) != 1 || scans[0].Read != 50 || scans[0].New != 50 {
		t.Fatalf("scans %+v %v", scans, err)
	}
}

// A source that reads posts and can store none of them (each lacks a date)
// is degraded, not ok, and says so: "read 50, stored 0, skipped 50: no
// date". A later scan that stores again is ok. Posts skipped only because
// they are already stored or do not match the keywords are an ordinary
// empty scan: ok, with the reasons in the summary.
func TestSchedulerDegradedWhenEveryPostIsSkipped(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	now := time.Now().UTC()
	var scan atomic.Int32
	c := &fakeCollector{source: "hn", fetch: func(context.Context, Query) (Batch, error) {
		switch scan.Add(1) {
		case 1:
			b := Batch{}
			b.Skipped.Add("no date", 50)
			return b, nil
		case 2:
			return Batch{Posts: []Post{hnPost("1", "acme is great", now), hnPost("2", "nothing to see", now)}}, nil
		default:
			return Batch{Posts: []Post{hnPost("1", "acme is great", now)}}, nil
		}
	}}
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Sources = []string{"hn"}; m.Keywords = []string{"acme"} })
	s, clk := newTestScheduler(f, registryOf(c), SchedulerConfig{})
	steps := []struct{ status, summary string }{
		{"degraded", "read 50, stored 0, skipped 50: no date"},
		{"ok", "read 2, stored 1, skipped 1: no keyword match"},
		{"ok", "read 1, stored 0, skipped 1: already stored"},
	}
	for i, want := range steps {
		if i > 0 {
			clk.add(2 * time.Duration(m.ScanIntervalMinutes) * time.Minute) // past the jitter
		}
		if _, err := s.ScanDue(ctx); err != nil {
			t.Fatal(err)
		}
		st := sourceStatus(t, f, m, "hn")
		if st.Status != want.status || st.LastScan == nil || st.LastScan.Summary != want.summary {
			t.Fatalf("scan %d: %+v (last scan %+v), want %s %q", i+1, st, st.LastScan, want.status, want.summary)
		}
		if want.status == "degraded" && st.Detail != want.summary {
			t.Errorf("degraded detail %q, want the summary", st.Detail)
		}
		mon, err := f.st.Monitor(ctx, f.project.ID, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if rec := mon.Record().SourceStatus[0]; rec.LastScan == nil || rec.LastScan.Summary != want.summary || rec.LastScan.Read != st.LastScan.Read {
			t.Errorf("scan %d: API last_scan %+v", i+1, rec.LastScan)
		}
	}
	scans, err := f.st.RecentScans(ctx, m.ID, 5)
	if err != nil || len(scans) != 3 || scans[2].Read != 50 || scans[2].Skipped["no date"] != 50 {
		t.Fatalf("scan rows %+v %v", scans, err)
	}
}

// X's 429 UsageCapExceeded (the monthly post cap; the body below is X's,
// quoted in xdevplatform/xdk#25, with no reset header) is its own status
// until the first of next month, and the source is not asked again every
// minute.
func TestXMonthlyCapIsItsOwnStatus(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Rate-Limit-Limit", "40000")
		w.Header().Set("X-Rate-Limit-Remaining", "39999")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(readFixture(t, "x/usage_cap_exceeded.json"))
	}))
	defer srv.Close()
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Sources = []string{"x"} })
	var clk *clock
	x := NewX(XConfig{BaseURL: srv.URL, BearerToken: "t", Client: srv.Client(), Now: func() time.Time { return clk.now() }})
	s, clk := newTestScheduler(f, registryOf(x), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	st := sourceStatus(t, f, m, "x")
	now := clk.now().UTC()
	next := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	var until time.Time
	if st.RateLimitedUntil != nil {
		until, _ = store.ParseTime(*st.RateLimitedUntil)
	}
	if st.Status != "cap_reached" || !until.Equal(next) ||
		!strings.Contains(st.Detail, "Usage cap exceeded: Monthly product cap") {
		t.Fatalf("x after UsageCapExceeded: %+v, want cap_reached until %s", st, next)
	}
	for range 3 {
		clk.add(2 * time.Duration(m.ScanIntervalMinutes) * time.Minute) // past the jitter
		if _, err := s.ScanDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 && clk.now().Before(next) {
		t.Errorf("%d requests to X during the cap, want 1", n)
	}
}

// A Play URL saved before they were refused fails its unit with the reason
// (the source is failing and says why) instead of reading a page with no
// review and reporting ok; the monitor's other review URLs still work.
func TestReviewsGooglePlayURLFailsWithReason(t *testing.T) {
	srv, reqs := reviewsServer(t, "")
	defer srv.Close()
	b, err := newTestReviews(srv, "").Fetch(context.Background(), Query{
		ReviewURLs: []string{"https://play.google.com/store/apps/details?id=com.acme.projects", "https://apps.apple.com/us/app/acme-projects/id1234567890"},
		Since:      testNowC.Add(-72 * time.Hour),
	})
	var pe *PartialError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "Google Play has no public reviews API") {
		t.Fatalf("err %v, want a partial error naming the Play URL", err)
	}
	if len(b.Posts) == 0 {
		t.Error("the App Store unit's reviews were dropped")
	}
	for _, r := range reqs.all() {
		if strings.Contains(r.URL.Path, "details") {
			t.Errorf("the Play page was requested: %s", r.URL)
		}
	}
}

// YouTube: Google refuses videos.list with a real 403 quotaExceeded after
// the search units were spent. The videos found are stored without
// counters (the summary says so) instead of the whole scan failing; the
// next scan, once the quota is back, fills their counters in.
func TestYouTubeKeepsVideosWhenVideosListRefused(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var refuse atomic.Bool
	refuse.Store(true)
	var log requestLog
	ok := fakeYouTube(t, &log)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/videos" && refuse.Load() {
			log.add(r)
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusForbidden)
			w.Write(readFixture(t, "youtube/quota_exceeded.json"))
			return
		}
		ok(w, r)
	}))
	defer srv.Close()
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Sources = []string{"youtube"}
		m.BackfillHours = 24 * 365 * 20
	})
	var clk *clock
	yt := NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k3y", Client: srv.Client(), Now: func() time.Time { return clk.now() }})
	s, clk := newTestScheduler(f, registryOf(yt), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	st := sourceStatus(t, f, m, "youtube")
	if st.Status != "ok" || st.LastScan == nil || st.LastScan.Stored != 4 || st.LastScan.Notes[NoteNoCounters] != 4 {
		t.Fatalf("after videos.list refused: %+v %+v, want ok with 4 videos stored without counters", st, st.LastScan)
	}
	views := func() (n int, withViews int) {
		ms, err := f.st.ListMentions(ctx, store.MentionFilter{ProjectID: f.project.ID}, nil, 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ms {
			if _, ok := x.Engagement["viewCount"]; ok {
				withViews++
			}
		}
		return len(ms), withViews
	}
	if n, wv := views(); n != 4 || wv != 0 {
		t.Fatalf("%d mentions, %d with views; want 4 without", n, wv)
	}
	refuse.Store(false)
	clk.add(2 * time.Duration(m.ScanIntervalMinutes) * time.Minute) // past the jitter
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n, wv := views(); n != 4 || wv != 4 {
		t.Fatalf("after the quota came back: %d mentions, %d with views; want 4 with", n, wv)
	}
	if st := sourceStatus(t, f, m, "youtube"); st.Status != "ok" {
		t.Errorf("status %+v", st)
	}
}
