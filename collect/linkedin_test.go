package collect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// linkedInServer fakes api.linkedin.com's Posts and Social Actions APIs.
// override replaces every posts answer with a fixture ("429" sends a 429).
func linkedInServer(t *testing.T, override string) (*httptest.Server, *requestLog) {
	t.Helper()
	reqs := &requestLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("X-Restli-Protocol-Version") != "2.0.0" || r.Header.Get("LinkedIn-Version") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write(readFixture(t, "linkedin/error_401.json"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/rest/posts" && override == "429":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(readFixture(t, "linkedin/error_429.json"))
		case r.URL.Path == "/rest/posts" && override != "":
			w.Write(readFixture(t, "linkedin/"+override+".json"))
		case r.URL.Path == "/rest/posts" && r.URL.Query().Get("start") == "50":
			w.Write(readFixture(t, "linkedin/posts_page2.json"))
		case r.URL.Path == "/rest/posts":
			w.Write(readFixture(t, "linkedin/posts_page1.json"))
		case strings.HasPrefix(r.URL.Path, "/rest/socialActions/") && strings.HasSuffix(r.URL.Path, "/comments"):
			urn := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/rest/socialActions/"), "/comments")
			id := urn[strings.LastIndex(urn, ":")+1:]
			b, err := os.ReadFile("testdata/linkedin/comments_" + id + ".json")
			if err != nil {
				w.WriteHeader(http.StatusForbidden)
				w.Write(readFixture(t, "linkedin/comments_forbidden.json"))
				return
			}
			w.Write(b)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func newTestLinkedIn(srv *httptest.Server) *LinkedIn {
	return NewLinkedIn(LinkedInConfig{BaseURL: srv.URL, AccessToken: "tok", Client: srv.Client(), Now: nowC})
}

func TestLinkedInPostsAndComments(t *testing.T) {
	srv, reqs := linkedInServer(t, "")
	since := testNowC.Add(-36 * time.Hour)
	b, err := newTestLinkedIn(srv).Fetch(context.Background(), Query{
		Keywords:      []string{"acme"},
		WatchAccounts: []string{"urn:li:organization:5515715", "@someone", "5515715"},
		Since:         since,
	})
	if err != nil {
		t.Fatal(err)
	}
	first := reqs.all()[0].URL.Query()
	if first.Get("author") != "urn:li:organization:5515715" || first.Get("q") != "author" || first.Get("sortBy") != "CREATED" {
		t.Errorf("posts query %v", first)
	}
	byID := map[string]Post{}
	for _, p := range b.Posts {
		byID[p.ExternalID] = p
	}
	// Two published posts in the window (the draft and older ones are
	// skipped), two comments on the newest, one recent comment on an
	// eight-day-old post.
	if len(b.Posts) != 5 {
		t.Fatalf("%d posts, want 5: %+v", len(b.Posts), b.Posts)
	}
	p := byID["urn:li:share:7192000000000000001"]
	if p.URL != "https://www.linkedin.com/feed/update/urn:li:share:7192000000000000001/" ||
		p.AuthorHandle != "urn:li:organization:5515715" || !p.PublishedAt.Equal(time.Date(2024, 5, 3, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("post %+v", p)
	}
	wantText := "Acme 4.2 is out: timeline view, faster sync & a new API. Thanks @Globex Corp for the migration feedback #ProjectManagement"
	if p.Text != wantText {
		t.Errorf("text %q\nwant %q", p.Text, wantText)
	}
	if a := byID["urn:li:ugcPost:7191000000000000002"]; a.Text != "New on the blog\n\nHow Acme plans a quarter\n\nOur \"no-meeting\" planning week" {
		t.Errorf("article post text %q", a.Text)
	}
	c := byID["urn:li:comment:(urn:li:activity:7192000000000000100,7192000000000000201)"]
	if c.AuthorHandle != "urn:li:person:Ab12Cd34Ef" || c.Engagement["likes"] != 3 ||
		!strings.HasPrefix(c.URL, "https://www.linkedin.com/feed/update/urn:li:activity:7192000000000000100/?commentUrn=") {
		t.Errorf("comment %+v", c)
	}
	if _, ok := byID["urn:li:comment:(urn:li:activity:7190000000000000300,7192000000000000301)"]; !ok {
		t.Error("recent comment on an older post missing")
	}
	if _, ok := byID["urn:li:comment:(urn:li:share:7192000000000000001,7192000000000000202)"]; !ok {
		t.Error("comment without commentUrn not given a synthesised id")
	}
	// The duplicate watch entry ("5515715") does not fetch twice, and paging
	// stopped at the post older than the comment lookback.
	posts := 0
	for _, r := range reqs.all() {
		if r.URL.Path == "/rest/posts" {
			posts++
		}
	}
	if posts != 2 {
		t.Errorf("%d posts requests, want 2", posts)
	}
}

func TestLinkedInNoOrganizations(t *testing.T) {
	srv, reqs := linkedInServer(t, "")
	_, err := newTestLinkedIn(srv).Fetch(context.Background(), Query{Keywords: []string{"acme"}, WatchAccounts: []string{"@acme"}})
	if !errors.Is(err, ErrLinkedInNoOrganizations) || err.Error() != LinkedInNoKeywordSearch {
		t.Fatalf("err = %v", err)
	}
	if len(reqs.all()) != 0 {
		t.Errorf("%d requests made", len(reqs.all()))
	}
}

func TestLinkedInOrganizations(t *testing.T) {
	got := LinkedInOrganizations([]string{"urn:li:organization:1", " 2 ", "https://www.linkedin.com/company/3/admin/", "urn:li:company:4", "acme", "@5x", "1"})
	want := "urn:li:organization:1 urn:li:organization:2 urn:li:organization:3 urn:li:organization:4"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v", got)
	}
}

func TestLinkedInErrors(t *testing.T) {
	for _, c := range []struct {
		fixture     string
		rateLimited bool
	}{{"malformed", false}, {"no_elements", false}, {"429", true}} {
		t.Run(c.fixture, func(t *testing.T) {
			srv, _ := linkedInServer(t, c.fixture)
			_, err := newTestLinkedIn(srv).Fetch(context.Background(), Query{WatchAccounts: []string{"5515715"}, Since: testNowC.Add(-time.Hour)})
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := IsRateLimited(err); ok != c.rateLimited {
				t.Errorf("rate limited = %v (%v)", ok, err)
			}
		})
	}
	srv, _ := linkedInServer(t, "empty")
	b, err := newTestLinkedIn(srv).Fetch(context.Background(), Query{WatchAccounts: []string{"5515715"}})
	if err != nil || len(b.Posts) != 0 {
		t.Errorf("empty: %v %v", b.Posts, err)
	}
	// A bad token is an error, not an empty batch.
	bad := NewLinkedIn(LinkedInConfig{BaseURL: srv.URL, AccessToken: "wrong", Client: srv.Client(), Now: nowC})
	if _, err := bad.Fetch(context.Background(), Query{WatchAccounts: []string{"5515715"}}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("bad token: %v", err)
	}
}

func TestLinkedInConfigured(t *testing.T) {
	ok, missing := NewLinkedIn(LinkedInConfig{}).Configured()
	if ok || !strings.Contains(missing, "EARSHOT_LINKEDIN_ACCESS_TOKEN") {
		t.Errorf("Configured() = %v, %q", ok, missing)
	}
	if ok, _ := NewLinkedIn(LinkedInConfig{AccessToken: "x"}).Configured(); !ok {
		t.Error("token given but not configured")
	}
}
