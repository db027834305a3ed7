package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"earshot/internal/replay"
	"earshot/vocab"
)

func TestRegistryBuildsEverySource(t *testing.T) {
	reg := NewRegistry(Config{}, nil)
	var names []string
	for _, c := range reg.All() {
		names = append(names, c.Source())
	}
	if !reflect.DeepEqual(names, vocab.Sources) {
		t.Fatalf("All() = %v, want %v", names, vocab.Sources)
	}
	if _, ok := reg.Get("myspace"); ok {
		t.Error("unknown source found")
	}
	// Without credentials, the keyed sources say what is missing.
	missing := map[string]string{
		"x":         "EARSHOT_X_BEARER_TOKEN",
		"youtube":   "EARSHOT_YOUTUBE_API_KEY",
		"threads":   "EARSHOT_THREADS_ACCESS_TOKEN",
		"mastodon":  "EARSHOT_MASTODON_INSTANCES",
		"discourse": "EARSHOT_DISCOURSE_FORUMS",
		"linkedin":  "EARSHOT_LINKEDIN_ACCESS_TOKEN (a token with r_organization_social for the pages in watch_accounts; LinkedIn has no public keyword search)",
	}
	for _, c := range reg.All() {
		ok, m := c.Configured()
		if want, keyed := missing[c.Source()]; keyed {
			if ok || m != want {
				t.Errorf("%s: Configured() = %v, %q; want false, %q", c.Source(), ok, m, want)
			}
		} else if !ok {
			t.Errorf("%s needs no credentials but says %q", c.Source(), m)
		}
	}
}

// TestRegistryBaseURLOverrides checks that the base URLs of the four C
// sources reach their collectors: each answers from the fake server.
func TestRegistryBaseURLOverrides(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	reg := NewRegistry(Config{
		Threads:  ThreadsConfig{BaseURL: srv.URL + "/th", AccessToken: "t"},
		LinkedIn: LinkedInConfig{BaseURL: srv.URL + "/li", AccessToken: "t"},
		News:     NewsConfig{GoogleNewsBaseURL: srv.URL + "/gn", GDELTBaseURL: srv.URL + "/gd"},
		Reviews:  ReviewsConfig{AppStoreBaseURL: srv.URL + "/as", TrustpilotBaseURL: srv.URL + "/tp", TrustpilotAPIKey: "k"},
	}, srv.Client())
	q := Query{Keywords: []string{"acme"}, WatchAccounts: []string{"1"},
		ReviewURLs: []string{"https://apps.apple.com/us/app/x/id1234567890", "https://www.trustpilot.com/review/acme.example"}}
	for _, s := range []string{"threads", "linkedin", "news", "reviews"} {
		c, _ := reg.Get(s)
		if _, err := c.Fetch(context.Background(), q); err == nil {
			t.Errorf("%s: teapot answer was not an error", s)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/th/v1.0/keyword_search", "/li/rest/posts", "/gn/rss/search", "/gd/api/v2/doc/doc",
		"/as/us/rss/customerreviews/page=1/id=1234567890/sortby=mostrecent/json", "/tp/v1/business-units/find"} {
		if hits[p] == 0 {
			t.Errorf("no request to %s (saw %v)", p, hits)
		}
	}
}

// TestReplayAllSources runs every collector, built by the registry from
// DemoConfig, against replay.NewHandler: each must return posts.
func TestReplayAllSources(t *testing.T) {
	srv := httptest.NewServer(replay.NewHandler())
	defer srv.Close()
	reg := NewRegistry(DemoConfig(srv.URL, replay.BlueskyHandle), srv.Client())
	q := demoQuery(srv.URL, time.Now().Add(-7*24*time.Hour))
	handled := replay.Sources()
	for _, c := range reg.All() {
		t.Run(c.Source(), func(t *testing.T) {
			if !slices.Contains(handled, c.Source()) {
				t.Fatalf("no replay handler for %s", c.Source())
			}
			if ok, missing := c.Configured(); !ok {
				t.Fatalf("not configured under DemoConfig: %s", missing)
			}
			b, err := c.Fetch(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Posts) == 0 {
				t.Fatal("no posts")
			}
			for _, p := range b.Posts {
				if p.Source != c.Source() || p.ExternalID == "" || p.PublishedAt.IsZero() {
					t.Errorf("incomplete post %+v", p)
				}
			}
		})
	}
}
