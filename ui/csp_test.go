package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// inlineStyle finds a style attribute in any tag: the CSP (style-src 'self')
// blocks them, so colours, widths and spacing set that way never show.
var inlineStyle = regexp.MustCompile(`(?is)<[a-z][^>]*\sstyle\s*=`)

// TestNoInlineStyles renders every page, with data in every list and a
// failed form, and finds no style attribute; the CSP stays strict.
func TestNoInlineStyles(t *testing.T) {
	e, c := ownerClient(t, 5)
	ctx := context.Background()
	for _, f := range []struct {
		path string
		form url.Values
	}{
		{"/a/create_keyword_group", url.Values{"name": {"Acme"}, "is_own": {"true"}}},
		{"/a/create_keyword_group", url.Values{"name": {"Rival"}}},
		{"/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}}},
		{"/a/create_alert", url.Values{"name": {"Urgent"}, "channel": {"email"}, "target": {"ops@example.com"}}},
		{"/a/create_webhook", url.Values{"url": {"https://hooks.example/x"}, "events": {"mention.created"}}},
		{"/a/create_api_key", url.Values{"name": {"ci"}, "scopes": {"mentions:read"}}},
		{"/a/set_public_dashboard", url.Values{"id": {e.proj.ID}, "enabled": {"true"}}},
	} {
		f.form.Set("_back", "/")
		if st, body, _ := c.post(f.path, f.form, true); st >= 400 {
			t.Fatalf("%s: %d %s", f.path, st, body)
		}
	}
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	whs, _ := e.st.ListWebhooks(ctx, e.proj.ID)
	mentions := e.ingest(1, "one")
	pages := []string{"/", "/?min_urgency=500", "/monitors", "/monitors/new", "/monitors/" + ms[0].ID, "/mentions/" + mentions[0].ID,
		"/groups", "/alerts", "/webhooks", "/webhooks/" + whs[0].ID, "/categories", "/members", "/keys", "/account", "/usage", "/wall", "/?overview=1",
		"/settings", "/projects/new", "/doesnotexist", "/p/" + e.proj.Slug}
	check := func(what, body string, h http.Header) {
		t.Helper()
		if m := inlineStyle.FindString(body); m != "" {
			t.Errorf("%s has an inline style: %s", what, m)
		}
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s CSP %q", what, csp)
		}
	}
	for _, p := range pages {
		_, body, h := c.get(p)
		check(p, body, h)
	}
	// A page re-rendered with a form error.
	_, body, h := c.post("/a/create_alert", url.Values{"name": {""}, "target": {"x"}, "_back": {"/alerts"}}, true)
	check("failed create_alert", body, h)
	anon := e.client()
	for _, p := range []string{"/login", "/doesnotexist", "/p/" + e.proj.Slug} {
		_, body, h := anon.get(p)
		check(p+" logged out", body, h)
	}
	// The share-of-voice legend draws its colours as SVG fills.
	_, body, _ = c.get("/groups")
	if !regexp.MustCompile(`<svg class="swatch"[^>]*><rect [^>]*fill="#[0-9a-fA-F]{6}"`).MatchString(body) {
		t.Error("no coloured legend swatch")
	}
}
