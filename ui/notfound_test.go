package ui_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestPageNotFound: unknown dashboard addresses, and item pages whose id
// names nothing, answer an HTML 404 with a way back; API paths keep the
// JSON envelope.
func TestPageNotFound(t *testing.T) {
	e, c := ownerClient(t, 1)
	for _, p := range []string{"/doesnotexist", "/monitors/nope", "/monitors/00000000-0000-4000-8000-000000000000",
		"/webhooks/nope", "/webhooks/00000000-0000-4000-8000-000000000000", "/mentions/nope", "/mentions/00000000-0000-4000-8000-000000000000"} {
		st, body, h := c.get(p)
		if st != http.StatusNotFound || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %q", p, st, h.Get("Content-Type"))
			continue
		}
		must(t, body, "<h1>Page not found</h1>", `<a href="/">Back to the inbox</a>`, `aria-label="Main"`)
		if strings.Contains(body, "UUID") {
			t.Errorf("%s shows the id check: %s", p, body)
		}
	}
	anon := e.client()
	st, body, h := anon.get("/doesnotexist")
	if st != http.StatusNotFound || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("logged out: %d %q", st, h.Get("Content-Type"))
	}
	must(t, body, "Page not found", `href="/login"`)
	for _, p := range []string{"/api/v1/nope", "/mcp/nope", "/healthz/nope"} {
		if st, body, h := c.get(p); st != http.StatusNotFound || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || !strings.Contains(body, "NOT_FOUND") {
			t.Errorf("%s: %d %q %s", p, st, h.Get("Content-Type"), body)
		}
	}
}
