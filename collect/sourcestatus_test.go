package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"earshot/store"
)

// YouTube and Threads search by keyword only: a monitor that watches
// accounts alone makes no request and says why in its source status,
// instead of reporting ok.
func TestSchedulerKeywordOnlySourcesWithWatchAccountsOnly(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Write([]byte(`{"items":[],"data":[]}`))
	}))
	defer srv.Close()
	reg := registryOf(
		NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k", Client: srv.Client()}),
		NewThreads(ThreadsConfig{BaseURL: srv.URL, AccessToken: "t", Client: srv.Client()}),
	)
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Keywords = nil
		m.WatchAccounts = []string{"@acmehq"}
		m.Sources = []string{"youtube", "threads"}
	})
	s, _ := newTestScheduler(f, reg, SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"youtube", "threads"} {
		st := sourceStatus(t, f, m, src)
		if st.Status != "not_configured" || !strings.Contains(st.Detail, "watch_accounts is not used for "+src) {
			t.Errorf("%s: %+v, want not_configured saying watch_accounts is not used", src, st)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests for a monitor with nothing to search", n)
	}
}

// Credentials removed while a source is rate limited: the next scan says
// not_configured at once instead of staying rate_limited until the reset.
func TestSchedulerCredentialsCheckedBeforeRateLimitSkip(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	x := &fakeCollector{source: "x", fetch: func(context.Context, Query) (Batch, error) {
		return Batch{}, &RateLimitedError{Source: "x", Until: time.Now().Add(6 * time.Hour)}
	}}
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Sources = []string{"x"} })
	s, clk := newTestScheduler(f, registryOf(x), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if st := sourceStatus(t, f, m, "x"); st.Status != "rate_limited" {
		t.Fatalf("x after a 429: %+v", st)
	}
	x.missing = "EARSHOT_X_BEARER_TOKEN"
	clk.add(20 * time.Minute)
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	st := sourceStatus(t, f, m, "x")
	if st.Status != "not_configured" || !strings.Contains(st.Detail, "EARSHOT_X_BEARER_TOKEN") || st.RateLimitedUntil != nil {
		t.Errorf("x with its token removed during a rate limit: %+v, want not_configured", st)
	}
	if n := len(x.got()); n != 1 {
		t.Errorf("x fetched %d times, want once", n)
	}
}
