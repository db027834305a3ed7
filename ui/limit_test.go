package ui_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"earshot/capability"
	"earshot/server"
	"earshot/store/storetest"
)

// limitedEnv is newEnv with a small rate-limit bucket that does not refill
// during a test (one token per 1000 s), so counts are exact.
func limitedEnv(t *testing.T, burst int) *env {
	t.Helper()
	st := storetest.Open(t)
	e := &env{t: t, st: st}
	e.http = httptest.NewUnstartedServer(nil)
	base := "http://" + e.http.Listener.Addr().String()
	e.svc = capability.New(st, capability.Config{BaseURL: base, PlanQuotas: map[string]int{"trial": 1000}}, slog.New(slog.DiscardHandler))
	e.http.Config.Handler = server.New(e.svc, nil, server.Options{RateLimit: 0.001, RateBurst: burst})
	e.http.Start()
	t.Cleanup(e.http.Close)
	e.seed(5)
	return e
}

// untilLimited sends GET path with c's cookie one by one until a 429 and
// returns how many were answered first.
func untilLimited(t *testing.T, c *client, path string) int {
	t.Helper()
	for n := 0; n < 1000; n++ {
		if st, _, _ := c.get(path); st == http.StatusTooManyRequests {
			return n
		} else if st != http.StatusOK {
			t.Fatalf("GET %s: %d", path, st)
		}
	}
	t.Fatalf("GET %s never limited", path)
	return 0
}

// TestDashboardRateLimited: a session's dashboard requests draw on the
// same per-credential bucket as REST and /mcp. 60 parallel /ui/mentions
// calls with a cookie: the bucket's worth answer, the rest are 429 with
// Retry-After; the session's REST calls are then limited too, and so are
// its pages.
func TestDashboardRateLimited(t *testing.T) {
	const burst = 30
	e := limitedEnv(t, burst)
	c := e.client()
	c.login("owner@example.com") // its GET / takes one token
	var mu sync.Mutex
	codes := map[int]int{}
	var retryAfter, code string
	var wg sync.WaitGroup
	for range 60 {
		wg.Go(func() {
			resp, err := c.c.Get(e.http.URL + "/ui/mentions")
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			codes[resp.StatusCode]++
			if resp.StatusCode == http.StatusTooManyRequests && retryAfter == "" {
				retryAfter = resp.Header.Get("Retry-After")
				var env struct{ Error capability.Error }
				json.NewDecoder(resp.Body).Decode(&env)
				code = env.Error.Code
			}
		})
	}
	wg.Wait()
	if codes[http.StatusOK] != burst-1 || codes[http.StatusTooManyRequests] != 60-(burst-1) {
		t.Errorf("60 parallel /ui/mentions: %v, want %d × 200 and the rest 429", codes, burst-1)
	}
	if retryAfter == "" || code != "RATE_LIMITED" {
		t.Errorf("a 429 with Retry-After %q, code %q", retryAfter, code)
	}
	// One budget: the same session over REST is out of tokens too.
	var tok string
	u, _ := http.NewRequest("GET", e.http.URL+"/", nil)
	for _, ck := range c.c.Jar.Cookies(u.URL) {
		if ck.Name == "earshot_session" {
			tok = ck.Value
		}
	}
	req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/mentions", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the session's REST call after its dashboard spent the budget: %d, want 429", resp.StatusCode)
	}
	if st, body, _ := c.get("/monitors"); st != http.StatusTooManyRequests || !strings.Contains(body, "Too many requests") {
		t.Errorf("a page over the budget: %d", st)
	}
}

// TestDashboardExportCostsMore: an export takes capability.CostExport
// tokens, a list one: after one export a session has that many fewer
// list calls left (minus the one the export itself would have been).
func TestDashboardExportCostsMore(t *testing.T) {
	const burst = 40
	e := limitedEnv(t, burst)
	lister := e.client()
	lister.login("owner@example.com")
	lists := untilLimited(t, lister, "/ui/mentions")

	exporter := e.client()
	exporter.login("owner@example.com")
	if st, _, h := exporter.get("/export.csv"); st != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", st, h.Get("Content-Type"))
	}
	afterExport := untilLimited(t, exporter, "/ui/mentions")
	if lists != burst-1 || lists-afterExport != capability.CostExport {
		t.Errorf("list calls: %d on a fresh session, %d after one export; want %d and %d fewer", lists, afterExport, burst-1, capability.CostExport)
	}
	// The preview, a scan of stored mentions, costs more than a list too.
	previewer := e.client()
	previewer.login("owner@example.com")
	st, _, _ := previewer.post("/ui/preview", map[string][]string{"keywords": {"acme"}}, true)
	if st == http.StatusTooManyRequests {
		t.Fatalf("first preview limited")
	}
	if n := untilLimited(t, previewer, "/ui/mentions"); lists-n != capability.CostPreview {
		t.Errorf("after one preview %d list calls were left, want %d", n, lists-capability.CostPreview)
	}
}
