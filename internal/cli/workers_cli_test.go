package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"earshot/internal/replay"
	"earshot/store/storetest"
)

// health is /healthz's answer: its code and body.
func health(t *testing.T, base string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func workerStatus(body map[string]any, name string) map[string]any {
	ws, _ := body["workers"].(map[string]any)
	w, _ := ws[name].(map[string]any)
	return w
}

func metricsText(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Issue 24, point 2, black box: `earshot serve` runs; another connection
// holds the database's write lock past the busy timeout, so the search
// indexer (and every other writing worker) fails. /healthz stays 200 but
// says "degraded" and names the failing worker; /metrics shows it. Once
// the lock is gone the workers recover without a restart: mentions
// collected afterwards are indexed (the queue drains to 0), /healthz says
// "ok" again and searches answer.
func TestWorkersRecoverFromALockedDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cli := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	_, k := opsProject(t, cli, "Brand", true)
	rp := httptest.NewServer(replay.NewHandler())
	defer rp.Close()
	env := append(replayVars(rp.URL), "EARSHOT_DATA="+dir, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1", "EARSHOT_LOOPBACK_ONLY=1",
		"EARSHOT_SPIKE_INTERVAL=0", "EARSHOT_REPLAY=0")
	_, base := startServeProcess(t, "serve", env)
	api := restClient{t, base, strings.TrimSpace(k)}

	if code, body := health(t, base); code != 200 || body["status"] != "ok" || workerStatus(body, "search_indexer")["status"] != "ok" {
		t.Fatalf("healthz at start: %d %v", code, body)
	}

	release := storetest.HoldSQLiteWriteLock(t, ctx, dir)
	var body map[string]any
	for {
		if ctx.Err() != nil {
			t.Fatalf("/healthz never showed the failing indexer: %v", body)
		}
		var code int
		code, body = health(t, base)
		if code != 200 {
			t.Fatalf("a failing worker must not fail the health check (restart loops): %d %v", code, body)
		}
		if w := workerStatus(body, "search_indexer"); w["status"] == "degraded" && w["consecutive_failures"].(float64) >= 1 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if body["status"] != "degraded" || workerStatus(body, "search_indexer")["last_error"] != "database_busy" {
		t.Errorf("while locked: %v", body)
	}
	if m := metricsText(t, base); !strings.Contains(m, `earshot_worker_degraded{worker="search_indexer"} 1`) {
		t.Errorf("/metrics does not show the failing indexer:\n%s", m)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	failedAt := time.Now()

	// Collection after the failure: its mentions reach the search index
	// without a restart.
	for _, m := range mpMonitors(rp.URL) {
		api.ok("POST", "/api/v1/monitors", m)
	}
	var n float64
	for {
		if ctx.Err() != nil {
			t.Fatalf("never recovered: %d mentions, healthz %v", int(n), body)
		}
		_, body = health(t, base)
		n = api.ok("GET", "/api/v1/mention-count", nil)["data"].(map[string]any)["count"].(float64)
		w := workerStatus(body, "search_indexer")
		if body["status"] == "ok" && n > 0 && w["backlog"] == float64(0) && allScanned(api) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("recovered %s after the lock was released; %d mentions indexed", time.Since(failedAt).Round(time.Millisecond), int(n))
	if w := workerStatus(body, "search_indexer"); w["failures_total"].(float64) < 1 || w["last_ok_at"] == nil {
		t.Errorf("recovered indexer: %v", w)
	}
	if m := metricsText(t, base); !strings.Contains(m, `earshot_worker_degraded{worker="search_indexer"} 0`) ||
		!strings.Contains(m, `earshot_worker_backlog{worker="search_indexer"} 0`) {
		t.Errorf("/metrics after recovery:\n%s", m)
	}

	// Searches answer from the index: the newest mention's words find it.
	items := api.ok("GET", "/api/v1/mentions?limit=1", nil)["data"].(map[string]any)["items"].([]any)
	text := items[0].(map[string]any)["text"].(string)
	term := longestWord(text)
	var took []time.Duration
	for range 20 {
		t0 := time.Now()
		got := api.ok("GET", "/api/v1/mentions?search="+url.QueryEscape(term), nil)["data"].(map[string]any)["items"].([]any)
		took = append(took, time.Since(t0))
		if len(got) == 0 {
			t.Fatalf("search %q found nothing", term)
		}
	}
	sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
	t.Logf("search %q after the indexer's error: p50 %s, max %s", term, took[len(took)/2], took[len(took)-1])
}

// allScanned reports whether every monitor finished a scan.
func allScanned(api restClient) bool {
	mons := api.ok("GET", "/api/v1/monitors", nil)["data"].(map[string]any)["monitors"].([]any)
	for _, m := range mons {
		if m.(map[string]any)["last_scanned_at"] == nil {
			return false
		}
	}
	return len(mons) > 0
}

func longestWord(s string) string {
	best := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		if len(w) > len(best) {
			best = w
		}
	}
	if best == "" {
		panic(fmt.Sprintf("no word in %q", s))
	}
	return best
}
