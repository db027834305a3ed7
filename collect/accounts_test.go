package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"earshot/store"
)

var mixedWatch = []string{"@acmehq", "urn:li:organization:123", "https://www.linkedin.com/company/123/", "u/acme-fan", "Acme Support", "a_handle_far_too_long_for_x_or_hn", "pg"}

// Each platform is sent only the watch_accounts that can be its accounts.
func TestWatchAccountsPerPlatform(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/x/"):
			got["x"] = append(got["x"], q.Get("query"))
			w.Write([]byte(`{"meta":{"result_count":0}}`))
		case strings.HasPrefix(r.URL.Path, "/reddit/"):
			got["reddit"] = append(got["reddit"], q.Get("q"))
			w.Write([]byte(`{"kind":"Listing","data":{"children":[]}}`))
		case strings.HasPrefix(r.URL.Path, "/hn/"):
			got["hn"] = append(got["hn"], q.Get("tags"))
			w.Write([]byte(`{"hits":[],"nbHits":0,"page":0,"nbPages":0}`))
		}
		mu.Unlock()
	}))
	defer srv.Close()
	q := Query{WatchAccounts: mixedWatch, Since: time.Now().Add(-time.Hour)}
	for _, c := range []Collector{
		NewX(XConfig{BaseURL: srv.URL + "/x", BearerToken: "t", Client: srv.Client()}),
		NewReddit(RedditConfig{BaseURL: srv.URL + "/reddit", Client: srv.Client()}),
		NewHN(HNConfig{BaseURL: srv.URL + "/hn", Client: srv.Client()}),
	} {
		if _, err := c.Fetch(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", c.Source(), err)
		}
	}
	want := map[string][]string{
		"x":      {"(from:acmehq OR from:pg) -is:retweet"},
		"reddit": {"author:acmehq OR author:acme-fan"},
		"hn":     {"(story,comment),author_acmehq", "(story,comment),author_acme-fan", "(story,comment),author_pg"},
	}
	for src, w := range want {
		if strings.Join(got[src], " | ") != strings.Join(w, " | ") {
			t.Errorf("%s queries %q, want %q", src, got[src], w)
		}
	}
	if orgs := LinkedInOrganizations(mixedWatch); len(orgs) != 1 || orgs[0] != "urn:li:organization:123" {
		t.Errorf("linkedin organizations %v", orgs)
	}
}

// A monitor whose only watch_accounts are of another platform gives X
// nothing to search: the source says so instead of running an empty scan.
func TestSchedulerWatchAccountsOfAnotherPlatform(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	x := &fakeCollector{source: "x"}
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Keywords = nil
		m.WatchAccounts = []string{"urn:li:organization:123"}
		m.Sources = []string{"x"}
	})
	s, _ := newTestScheduler(f, registryOf(x), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if len(x.got()) != 0 {
		t.Errorf("x fetched with nothing to search: %+v", x.got())
	}
	if st := sourceStatus(t, f, m, "x"); st.Status != "not_configured" || !strings.Contains(st.Detail, "x account") {
		t.Errorf("x status %+v", st)
	}
}
