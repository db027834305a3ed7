package collect

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// mastodonFake fakes one instance: the #acme timeline in two pages (Link
// rel="next" on another host, as instances give their public URL), search,
// account lookup and statuses.
func mastodonFake(t *testing.T, hook func(w http.ResponseWriter, r *http.Request) bool) (*httptest.Server, *requestLog) {
	t.Helper()
	reqs := &requestLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.add(r)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-RateLimit-Limit", "300")
		w.Header().Set("X-RateLimit-Remaining", "290")
		w.Header().Set("X-RateLimit-Reset", "2024-05-03T18:05:00.000Z")
		if hook != nil && hook(w, r) {
			return
		}
		q := r.URL.Query()
		switch {
		case strings.EqualFold(r.URL.Path, "/api/v1/timelines/tag/acme"):
			if q.Get("max_id") == "112376300000000007" {
				w.Write(readFixture(t, "mastodon/tag_page2.json"))
				return
			}
			w.Header().Set("Link", `<https://mastodon.test/api/v1/timelines/tag/acme?limit=40&max_id=112376300000000007>; rel="next", <https://mastodon.test/api/v1/timelines/tag/acme?limit=40&min_id=112376500000000009>; rel="prev"`)
			w.Write(readFixture(t, "mastodon/tag_page1.json"))
		case strings.HasPrefix(r.URL.Path, "/api/v1/timelines/tag/"):
			w.Write([]byte(`[]`))
		case r.URL.Path == "/api/v2/search":
			if r.Header.Get("Authorization") != "Bearer tok" {
				w.Write([]byte(`{"accounts":[],"statuses":[],"hashtags":[]}`))
				return
			}
			w.Write(readFixture(t, "mastodon/search.json"))
		case r.URL.Path == "/api/v1/accounts/lookup":
			if q.Get("acct") == "acme" {
				w.Write(readFixture(t, "mastodon/account_acme.json"))
				return
			}
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"Record not found"}`))
		case r.URL.Path == "/api/v1/accounts/109000000000000001/statuses":
			w.Write(readFixture(t, "mastodon/account_statuses.json"))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"Not Found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, reqs
}

func newTestMastodon(instances string, client *http.Client) *Mastodon {
	return NewMastodon(MastodonConfig{Instances: instances, Client: client, Now: nowC})
}

func TestMastodonTagTimelinePagesByLink(t *testing.T) {
	srv, reqs := mastodonFake(t, nil)
	b, err := newTestMastodon(srv.URL, srv.Client()).Fetch(context.Background(),
		Query{Keywords: []string{"#Acme", "acme.example"}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	all := reqs.all()
	if len(all) != 2 {
		t.Fatalf("%d requests, want two timeline pages (no search without a token)", len(all))
	}
	// The next page is asked of our base URL with the Link header's max_id.
	if all[1].Host != all[0].Host || all[1].URL.Query().Get("max_id") != "112376300000000007" || all[0].URL.Query().Get("limit") != "40" {
		t.Errorf("requests %s, %s", all[0].URL, all[1].URL)
	}
	if all[0].Header.Get("Authorization") != "" {
		t.Error("a token was sent to an instance configured without one")
	}
	// Page 1: two public posts (the followers-only one is left out); page
	// 2: one post in the window, then an old one that ends paging.
	if len(b.Posts) != 3 {
		t.Fatalf("%d posts: %+v", len(b.Posts), b.Posts)
	}
	want := Post{Source: "mastodon", ExternalID: "https://fosstodon.test/users/karin/statuses/112376500000000009",
		URL: "https://fosstodon.test/@karin/112376500000000009", AuthorHandle: "karin@fosstodon.test", AuthorFollowers: 870,
		Text: "Three weeks into #Acme & I'm a fan.\n\nWish: self-hosting.", PublishedAt: time.Date(2024, 5, 3, 17, 30, 0, 0, time.UTC),
		Engagement: map[string]int64{"favourites": 44, "reblogs": 12, "replies": 5}}
	if !reflect.DeepEqual(b.Posts[0], want) {
		t.Errorf("post\n got %+v\nwant %+v", b.Posts[0], want)
	}
	// A local account's acct is the bare name: the instance's domain is
	// added from its profile URL. The content warning leads the text.
	if p := b.Posts[1]; p.AuthorHandle != "teo@mastodon.test" || p.Text != "outage talk\n\nIs #acme down? Boards give 502\nsince noon" {
		t.Errorf("local post %+v", p)
	}
	if b.State != "" {
		t.Errorf("state %q", b.State)
	}
}

func TestMastodonSearchWithToken(t *testing.T) {
	srv, reqs := mastodonFake(t, nil)
	b, err := newTestMastodon(srv.URL+"=tok", srv.Client()).Fetch(context.Background(),
		Query{Keywords: []string{"acme.example"}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	all := reqs.all()
	if len(all) != 1 || all[0].URL.Path != "/api/v2/search" {
		t.Fatalf("requests %v", all)
	}
	q := all[0].URL.Query()
	if q.Get("q") != "acme.example" || q.Get("type") != "statuses" || q.Get("limit") != "40" || all[0].Header.Get("Authorization") != "Bearer tok" {
		t.Errorf("search request %s (%s)", all[0].URL, all[0].Header.Get("Authorization"))
	}
	if len(b.Posts) != 2 || !strings.HasPrefix(b.Posts[0].Text, "Accessibility note for @acme: cards have no labels.") {
		t.Fatalf("posts %+v", b.Posts)
	}
}

func TestMastodonWatchAccounts(t *testing.T) {
	srv, reqs := mastodonFake(t, nil)
	m := newTestMastodon(srv.URL, srv.Client())
	q := Query{WatchAccounts: []string{"@acme@mastodon.test", "@ghost@mastodon.test", "acme", "acme.bsky.social"}, Since: testNowC.Add(-24 * time.Hour)}
	b, err := m.Fetch(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var lookups []string
	for _, r := range reqs.all() {
		switch {
		case r.URL.Path == "/api/v1/accounts/lookup":
			lookups = append(lookups, r.URL.Query().Get("acct"))
		case strings.HasSuffix(r.URL.Path, "/statuses"):
			if r.URL.Query().Get("exclude_reblogs") != "true" {
				t.Errorf("statuses without exclude_reblogs: %s", r.URL)
			}
		}
	}
	// Neither home instance is listed: both are asked of the first one.
	// Only user@instance entries are Mastodon accounts.
	if !reflect.DeepEqual(lookups, []string{"acme@mastodon.test", "ghost@mastodon.test"}) {
		t.Errorf("lookups %v", lookups)
	}
	if len(b.Posts) != 0 {
		t.Errorf("lookup by full acct should miss on this fake: %+v", b.Posts)
	}

	// An instance whose host is the account's: looked up by bare name;
	// the boost and the old status are left out.
	reqs2 := &requestLog{}
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs2.add(r)
		r2 := r.Clone(r.Context())
		srv.Config.Handler.ServeHTTP(w, r2)
	}))
	defer srv2.Close()
	m2 := newTestMastodon(srv2.URL, srv2.Client())
	local := strings.Split(strings.TrimPrefix(srv2.URL, "http://"), ":")[0]
	b, err = m2.Fetch(context.Background(), Query{WatchAccounts: []string{"@acme@" + local}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Posts) != 1 || b.Posts[0].Text != "We're investigating slow boards." || b.Posts[0].AuthorHandle != "acme@mastodon.test" {
		t.Fatalf("posts %+v", b.Posts)
	}
	if !Compile(Rule{WatchAccounts: []string{"@acme@mastodon.test"}}).Match(b.Posts[0]) {
		t.Error("the watched account's post does not match its watch entry")
	}
	// The account id is remembered: a second scan does not look it up.
	n := len(reqs2.all())
	m2.Fetch(context.Background(), Query{WatchAccounts: []string{"@acme@" + local}, Since: testNowC.Add(-24 * time.Hour)})
	if got := len(reqs2.all()) - n; got != 1 {
		t.Errorf("second scan made %d requests, want 1 (statuses only)", got)
	}
}

func TestMastodonRateLimit(t *testing.T) {
	reset := time.Date(2024, 5, 3, 18, 5, 0, 0, time.UTC)
	srv, _ := mastodonFake(t, func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":"Too many requests"}`))
		return true
	})
	_, err := newTestMastodon(srv.URL, srv.Client()).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-time.Hour)})
	if rl, ok := IsRateLimited(err); !ok || !rl.Until.Equal(reset) || rl.Source != "mastodon" {
		t.Fatalf("err = %v", err)
	}

	// A page that spends the budget: no next page before the reset.
	srv2, reqs := mastodonFake(t, func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("X-RateLimit-Remaining", "0")
		return false
	})
	_, err = newTestMastodon(srv2.URL, srv2.Client()).Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
	if rl, ok := IsRateLimited(err); !ok || !rl.Until.Equal(reset) || len(reqs.all()) != 1 {
		t.Fatalf("err = %v after %d requests", err, len(reqs.all()))
	}
}

// Each instance stands alone: one that fails leaves the others' posts, and
// a status seen on two instances is one post.
func TestMastodonInstancesStandAlone(t *testing.T) {
	good, _ := mastodonFake(t, nil)
	good2, _ := mastodonFake(t, nil)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"error":"This API requires an authenticated user"}`))
	}))
	defer bad.Close()
	m := NewMastodon(MastodonConfig{Instances: good.URL + "," + bad.URL + " , " + good2.URL, Client: http.DefaultClient, Now: nowC})
	b, err := m.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: testNowC.Add(-24 * time.Hour)})
	var pe *PartialError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), bad.URL) {
		t.Fatalf("err = %v", err)
	}
	if len(b.Posts) != 3 {
		t.Errorf("%d posts from two instances holding the same 3", len(b.Posts))
	}
	// Every instance failing is a plain failure.
	m = NewMastodon(MastodonConfig{Instances: bad.URL, Client: http.DefaultClient, Now: nowC})
	if b, err := m.Fetch(context.Background(), Query{Keywords: []string{"acme"}}); err == nil || errors.As(err, &pe) || len(b.Posts) != 0 {
		t.Errorf("all failing: %d posts, %v", len(b.Posts), err)
	}
}

func TestParseMastodonInstances(t *testing.T) {
	got, err := ParseMastodonInstances(" mastodon.social=abc_DEF-123 , https://fosstodon.org/, http://127.0.0.1:8080/mastodon=tok,, MASTODON.social")
	want := []MastodonInstance{{"https://mastodon.social", "abc_DEF-123"}, {"https://fosstodon.org", ""}, {"http://127.0.0.1:8080/mastodon", "tok"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"ftp://x.org", "https://user:pw@x.org", "=tok", "https://x.org?a=b"} {
		if _, err := ParseMastodonInstances(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	m := NewMastodon(MastodonConfig{Instances: "ftp://x.org"})
	if ok, missing := m.Configured(); ok || !strings.Contains(missing, "entry 1") {
		t.Errorf("bad entry: %v %q", ok, missing)
	}
	if ok, missing := NewMastodon(MastodonConfig{}).Configured(); ok || missing != "EARSHOT_MASTODON_INSTANCES" {
		t.Errorf("empty: %v %q", ok, missing)
	}
	if NewMastodon(MastodonConfig{Instances: "a.org"}).StatusNote() == "" || NewMastodon(MastodonConfig{Instances: "a.org=t"}).StatusNote() != "" {
		t.Error("StatusNote should say hashtags only exactly when no instance has a token")
	}
}

func TestMastodonTagsAndQueries(t *testing.T) {
	if got, want := mastodonTags([]string{"Acme", "#acme", "Acme Projects", "acme.example", "@acme", "2024", "café_crème", `"Globex"`}),
		[]string{"Acme", "AcmeProjects", "café_crème", "Globex"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tags %q, want %q", got, want)
	}
	for _, c := range []struct {
		mode string
		want []string
	}{{"any", []string{"acme", `"mobile app"`}}, {"all", []string{`acme "mobile app"`}}, {"phrase", []string{`"acme mobile app"`}}} {
		if got := searchTerms(Query{Keywords: []string{"acme", "mobile app"}, QueryMode: c.mode}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q", c.mode, got)
		}
	}
	if got := linkNextMaxID(`<https://m.test/api/v1/timelines/tag/a?max_id=10>; rel="next", <https://m.test/x?min_id=20>; rel="prev"`); got != "10" {
		t.Errorf("linkNextMaxID = %q", got)
	}
	if got := linkNextMaxID(`<https://m.test/x?min_id=20>; rel="prev"`); got != "" {
		t.Errorf("prev only: %q", got)
	}
}

// A remote account the instance does not know yet is resolved through
// search (resolve=true) when the instance has a token.
func TestMastodonResolvesRemoteAccountWithToken(t *testing.T) {
	srv, reqs := mastodonFake(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/api/v2/search" && r.URL.Query().Get("type") == "accounts" {
			if r.URL.Query().Get("resolve") != "true" || r.URL.Query().Get("q") != "@acme@elsewhere.test" || r.Header.Get("Authorization") != "Bearer tok" {
				t.Errorf("resolve request %s", r.URL)
			}
			w.Write([]byte(`{"accounts":[{"id":"109000000000000001","acct":"acme@elsewhere.test"}],"statuses":[],"hashtags":[]}`))
			return true
		}
		return false
	})
	b, err := newTestMastodon(srv.URL+"=tok", srv.Client()).Fetch(context.Background(),
		Query{WatchAccounts: []string{"@acme@elsewhere.test"}, Since: testNowC.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Posts) != 1 || b.Posts[0].Text != "We're investigating slow boards." {
		t.Fatalf("posts %+v", b.Posts)
	}
	var paths []string
	for _, r := range reqs.all() {
		paths = append(paths, r.URL.Path)
	}
	if want := "/api/v1/accounts/lookup,/api/v2/search,/api/v1/accounts/109000000000000001/statuses"; strings.Join(paths, ",") != want {
		t.Errorf("requests %v", paths)
	}
}
