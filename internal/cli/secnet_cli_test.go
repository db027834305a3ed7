package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Issue 25 M1, black box: a Mastodon instance the operator lists answers
// every request with a 302 to a loopback "metadata" service. The collector
// refuses the hop (the guard of webhooks, at connect time), so the service
// is never reached, and GET /api/v1/monitors shows the rule that refused
// it in last_error, never the service's answer. Before the fix the client
// followed the redirect and the secret body landed in last_error.
func TestCollectorRedirectToLoopbackIsRefused(t *testing.T) {
	const secret = "metadata-secret-5f1c9e"
	var metadataHits atomic.Int64
	metadata := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		metadataHits.Add(1)
		fmt.Fprintf(w, "AccessKeyId=%s", secret) // 200, not JSON: quoted by the old "body starts" error
	}))
	defer metadata.Close()
	instance := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, metadata.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer instance.Close()

	data, key := mcpProject(t)
	addr := startServe(t, map[string]string{"EARSHOT_DATA": data, "EARSHOT_LOG_LEVEL": "error",
		"EARSHOT_MASTODON_INSTANCES": instance.URL})
	api := restClient{t: t, base: "http://" + addr, auth: key}
	if code, out := api.call("POST", "/api/v1/monitors", map[string]any{"name": "Redirected", "keywords": []string{"acme"},
		"sources": []string{"mastodon"}}); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("create monitor: %d %v", code, out)
	}
	var lastError, raw string
	waitUntil(t, "the mastodon scan to fail", nil, func() bool {
		code, out := api.call("GET", "/api/v1/monitors", nil)
		if code != http.StatusOK {
			t.Fatalf("GET /api/v1/monitors: %d %v", code, out)
		}
		raw = fmt.Sprint(out)
		for _, m := range out["data"].(map[string]any)["monitors"].([]any) {
			for _, s := range m.(map[string]any)["source_status"].([]any) {
				st := s.(map[string]any)
				if st["source"] == "mastodon" {
					lastError, _ = st["last_error"].(string)
				}
			}
		}
		return lastError != ""
	})
	if strings.Contains(raw, secret) {
		t.Errorf("the redirected service's answer is readable in GET /api/v1/monitors: %s", lastError)
	}
	if !strings.Contains(lastError, "address not allowed") || !strings.Contains(lastError, "loopback") {
		t.Errorf("last_error %q does not name the rule that refused the redirect", lastError)
	}
	if n := metadataHits.Load(); n != 0 {
		t.Errorf("the loopback service behind the redirect was reached %d times", n)
	}
}
