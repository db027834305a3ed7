package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// reviewsServer serves review pages under /pages/, the App Store feed and
// the Trustpilot API. appstore overrides the App Store fixture for page 1.
func reviewsServer(t *testing.T, appstore string) (*httptest.Server, *requestLog) {
	t.Helper()
	reqs := &requestLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/pages/"):
			b, err := os.ReadFile("testdata/reviews/" + strings.TrimPrefix(p, "/pages/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			w.Write(b)
		case strings.HasPrefix(p, "/us/rss/customerreviews/page=") && strings.HasSuffix(p, "/id=1234567890/sortby=mostrecent/json"):
			page := strings.TrimPrefix(strings.SplitN(p, "/", 6)[4], "page=")
			name := map[string]string{"1": "appstore_page1", "2": "appstore_page2"}[page]
			if name == "" {
				name = "appstore_empty"
			}
			if appstore == "429" {
				w.Header().Set("Retry-After", "600")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			if appstore != "" {
				name = appstore
			}
			w.Write(readFixture(t, "reviews/"+name+".json"))
		case strings.HasPrefix(p, "/v1/business-units/"):
			if r.Header.Get("apikey") != "tp-key" {
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"message":"Unauthorized","errorCode":0}`))
				return
			}
			if p == "/v1/business-units/find" {
				if r.URL.Query().Get("name") != "acme.example" {
					http.NotFound(w, r)
					return
				}
				w.Write(readFixture(t, "reviews/trustpilot_find.json"))
				return
			}
			if p != "/v1/business-units/5f1e2d3c4b5a697887766554/reviews" || r.URL.Query().Get("orderBy") != "createdat.desc" {
				http.NotFound(w, r)
				return
			}
			w.Write(readFixture(t, "reviews/trustpilot_reviews_"+r.URL.Query().Get("page")+".json"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func newTestReviews(srv *httptest.Server, key string) *Reviews {
	return NewReviews(ReviewsConfig{AppStoreBaseURL: srv.URL, TrustpilotBaseURL: srv.URL, TrustpilotAPIKey: key, Client: srv.Client(), PageClient: NewUserURLClient(true), Now: nowC})
}

func TestReviewsAllKinds(t *testing.T) {
	srv, reqs := reviewsServer(t, "")
	since := testNowC.Add(-48 * time.Hour)
	b, err := newTestReviews(srv, "tp-key").Fetch(context.Background(), Query{
		ReviewURLs: []string{
			srv.URL + "/pages/page_product.html",
			srv.URL + "/pages/page_graph.html",
			"https://apps.apple.com/us/app/acme-projects/id1234567890",
			"https://www.trustpilot.com/review/acme.example",
		},
		Since: since,
	})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Post{}
	for _, p := range b.Posts {
		byID[p.ExternalID] = p
		if p.Source != "reviews" || p.PublishedAt.Before(since.Truncate(24*time.Hour)) {
			t.Errorf("bad post %+v", p)
		}
	}
	// product page 2 (one too old), graph page 1, app store 3 (app entry
	// skipped), trustpilot 2 (one too old).
	if len(b.Posts) != 8 {
		for _, p := range b.Posts {
			t.Logf("%s %q %s", p.ExternalID, p.Text, p.PublishedAt)
		}
		t.Fatalf("%d posts, want 8", len(b.Posts))
	}
	var jd Post
	for _, p := range b.Posts {
		if p.AuthorHandle == "J. Doe" {
			jd = p
		}
	}
	if jd.Text != "Solid & simple\n\nAcme boards just work." || !jd.PublishedAt.Equal(time.Date(2024, 5, 3, 0, 0, 0, 0, time.UTC)) ||
		jd.Engagement["rating"] != 5 || jd.Engagement["bestRating"] != 5 || jd.URL != srv.URL+"/pages/page_product.html" {
		t.Errorf("JSON-LD review %+v", jd)
	}
	g := byID["jsonld:https://blog.example/acme-review/#review"]
	if g.AuthorHandle != "Morgan Blake" || g.URL != "https://blog.example/acme-review/" || g.Engagement["rating"] != 4 {
		t.Errorf("@graph review %+v", g)
	}
	a := byID["appstore:11290024630"]
	if a.AuthorHandle != "jdoe" || a.Text != "Great app\n\nAcme works well & the widget is handy" ||
		!a.PublishedAt.Equal(time.Date(2024, 5, 3, 14, 49, 30, 0, time.UTC)) || a.Engagement["rating"] != 4 ||
		a.URL != "https://apps.apple.com/us/app/id1234567890?see-all=reviews#11290024630" {
		t.Errorf("app store review %+v", a)
	}
	if s := byID["appstore:11285559638"]; s.Engagement["voteSum"] != 2 || s.Engagement["voteCount"] != 3 {
		t.Errorf("app store votes %+v", s.Engagement)
	}
	if _, ok := byID["appstore:11280000001"]; !ok {
		t.Error("single-object entry on page 2 missing")
	}
	tp := byID["trustpilot:6634e1f2a9b8c7d6e5f40001"]
	if tp.AuthorHandle != "Chris P." || tp.Engagement["stars"] != 1 || tp.URL != "https://www.trustpilot.com/reviews/6634e1f2a9b8c7d6e5f40001" ||
		tp.Text != "Billing nightmare\n\nCharged twice for the Acme Pro plan & support took 5 days." {
		t.Errorf("trustpilot review %+v", tp)
	}
	if byID["trustpilot:6634e1f2a9b8c7d6e5f40002"].AuthorHandle != "" {
		t.Error("empty display name")
	}
	// App Store: pages 1, 2 and the empty page 3; Trustpilot: find + page 1.
	count := map[string]int{}
	for _, r := range reqs.all() {
		switch {
		case strings.Contains(r.URL.Path, "customerreviews"):
			count["appstore"]++
		case strings.HasPrefix(r.URL.Path, "/v1/"):
			count["trustpilot"]++
		}
	}
	if count["appstore"] != 3 || count["trustpilot"] != 2 {
		t.Errorf("requests %v", count)
	}
}

func TestReviewsDateOnlyComparedByDay(t *testing.T) {
	srv, _ := reviewsServer(t, "")
	// The last scan ran at 06:00 today; a review dated today still counts.
	b, err := newTestReviews(srv, "").Fetch(context.Background(), Query{
		ReviewURLs: []string{srv.URL + "/pages/page_product.html"},
		Since:      time.Date(2024, 5, 3, 6, 0, 0, 0, time.UTC),
	})
	if err != nil || len(b.Posts) != 1 || b.Posts[0].AuthorHandle != "J. Doe" {
		t.Fatalf("posts %+v, err %v", b.Posts, err)
	}
}

func TestReviewsErrors(t *testing.T) {
	cases := []struct {
		name, url, appstore string
		rateLimited         bool
	}{
		{"page without json-ld", "/pages/page_no_ld.html", "", false},
		{"broken json-ld", "/pages/page_bad_ld.html", "", false},
		{"review without date", "/pages/page_review_no_date.html", "", false},
		{"missing page", "/pages/nope.html", "", false},
		{"app store malformed", "apple", "appstore_malformed", false},
		{"app store not a feed", "apple", "appstore_nofeed", false},
		{"app store 429", "apple", "429", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := reviewsServer(t, c.appstore)
			u := srv.URL + c.url
			if c.url == "apple" {
				u = "https://itunes.apple.com/us/rss/customerreviews/id=1234567890/sortBy=mostRecent/json"
			}
			_, err := newTestReviews(srv, "").Fetch(context.Background(), Query{ReviewURLs: []string{u}})
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := IsRateLimited(err); ok != c.rateLimited {
				t.Errorf("rate limited = %v: %v", ok, err)
			}
		})
	}
	// An empty App Store feed is no reviews, not an error.
	srv, _ := reviewsServer(t, "appstore_empty")
	b, err := newTestReviews(srv, "").Fetch(context.Background(), Query{ReviewURLs: []string{"https://apps.apple.com/gb/app/x/id1234567890"}})
	if err == nil && len(b.Posts) != 0 {
		t.Errorf("posts from empty feed: %v", b.Posts)
	}
	// One bad URL does not hide the others' reviews.
	srv2, _ := reviewsServer(t, "")
	b, err = newTestReviews(srv2, "").Fetch(context.Background(), Query{ReviewURLs: []string{srv2.URL + "/pages/page_no_ld.html", srv2.URL + "/pages/page_graph.html"}})
	if err == nil || len(b.Posts) != 1 {
		t.Errorf("partial: posts %d err %v", len(b.Posts), err)
	}
}

func TestClassifyReviewURL(t *testing.T) {
	cases := []struct {
		url                 string
		kind                ReviewURLKind
		country, idOrDomain string
	}{
		{"https://apps.apple.com/us/app/acme-projects/id1234567890", ReviewKindAppStore, "us", "1234567890"},
		{"https://apps.apple.com/gb/app/acme-projects/id1234567890?see-all=reviews", ReviewKindAppStore, "gb", "1234567890"},
		{"https://itunes.apple.com/de/rss/customerreviews/id=1234567890/sortBy=mostRecent/json", ReviewKindAppStore, "de", "1234567890"},
		{"https://itunes.apple.com/rss/customerreviews/page=1/id=1234567890/sortby=mostrecent/json", ReviewKindAppStore, "us", "1234567890"},
		{"http://127.0.0.1:9/reviews/us/rss/customerreviews/id=1234567890/sortBy=mostRecent/json", ReviewKindAppStore, "us", "1234567890"},
		{"https://www.trustpilot.com/review/acme.example", ReviewKindTrustpilot, "", "acme.example"},
		{"https://uk.trustpilot.com/review/acme.example?page=2", ReviewKindTrustpilot, "", "acme.example"},
		{"https://www.g2.com/products/acme/reviews", ReviewKindJSONLD, "", ""},
		{"https://apps.apple.com/us/story/id1", ReviewKindJSONLD, "", ""},
	}
	for _, c := range cases {
		kind, country, id := ClassifyReviewURL(c.url)
		if kind != c.kind || country != c.country || id != c.idOrDomain {
			t.Errorf("%s: %s %s %s", c.url, kind, country, id)
		}
	}
}

// A review without "updated" (an App Store capture from 2020 lacks it) is
// dated by the feed's own "updated" and marked so; it used to be skipped
// without a word (issue 27).
func TestReviewsAppStoreEntryWithoutUpdated(t *testing.T) {
	srv, _ := reviewsServer(t, "appstore_no_updated")
	b, err := newTestReviews(srv, "").Fetch(context.Background(), Query{
		ReviewURLs: []string{"https://apps.apple.com/us/app/acme-projects/id1234567890"},
		Since:      testNowC.Add(-72 * time.Hour),
	})
	if err != nil {
		t.Fatalf("one review without a date failed the source: %v", err)
	}
	if len(b.Posts) != 2 || b.Posts[0].ExternalID != "appstore:11290024630" || b.Posts[0].Note != "" {
		t.Fatalf("posts %+v, want the dated review then the undated one", b.Posts)
	}
	undated := b.Posts[1]
	if undated.ExternalID != "appstore:11285559638" || undated.Note != NoteFeedDated ||
		!undated.PublishedAt.Equal(time.Date(2024, 5, 3, 18, 0, 0, 0, time.UTC)) {
		t.Errorf("undated review %+v, want the feed's updated (2024-05-03T11:00:00-07:00) and the note", undated)
	}
}
