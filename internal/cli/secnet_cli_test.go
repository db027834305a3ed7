package cli

import (
	"fmt"
	"io"
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

// Issue 25 M8, black box: /healthz answers anyone, so with an OLLAMA_HOST
// that carries credentials and does not answer, an anonymous caller sees
// which classifier runs but not the host, its credentials or the dial
// error (which names the address); the operator, with the metrics token,
// sees the host and the error without the credentials. Before, both
// modes printed them to anyone.
func TestHealthzHidesOllamaDetailsFromAnonymous(t *testing.T) {
	ollama := freePort(t) // nothing listens: every dial is refused
	for _, mode := range []string{"auto", "ollama"} {
		t.Run(mode, func(t *testing.T) {
			addr := startServe(t, map[string]string{"EARSHOT_DATA": t.TempDir(), "EARSHOT_LOG_LEVEL": "error",
				"EARSHOT_CLASSIFIER": mode, "OLLAMA_HOST": "http://admin:hunter-s3cret@" + ollama,
				"EARSHOT_METRICS_TOKEN": "metrics-token-42", "EARSHOT_OLLAMA_DETECT_TIMEOUT": "5s"})
			get := func(token string) string {
				req, _ := http.NewRequest("GET", "http://"+addr+"/healthz", nil)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return string(b)
			}
			anon := get("")
			if !strings.Contains(anon, `"classifier"`) {
				t.Fatalf("no classifier in /healthz: %s", anon)
			}
			for _, leak := range []string{"hunter-s3cret", "admin", ollama, "refused", "dial"} {
				if strings.Contains(anon, leak) {
					t.Errorf("anonymous /healthz shows %q: %s", leak, anon)
				}
			}
			op := get("metrics-token-42")
			if strings.Contains(op, "hunter-s3cret") || strings.Contains(op, "admin") {
				t.Errorf("/healthz with the metrics token shows credentials: %s", op)
			}
			if !strings.Contains(op, ollama) {
				t.Errorf("/healthz with the metrics token does not name the host: %s", op)
			}
			if wrong := get("not-the-token"); wrong != anon && strings.Contains(wrong, ollama) {
				t.Errorf("a wrong token sees details: %s", wrong)
			}
		})
	}
}
