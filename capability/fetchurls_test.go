package capability_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"earshot/capability"
)

// Feed and review URLs are fetched for the user, so a monitor cannot name a
// loopback, private or metadata address (the URL guard,
// docs/decisions.md#webhooks); names are not resolved at save time (the
// collectors check resolved addresses).
func TestMonitorFetchURLsGuard(t *testing.T) {
	e := newEnv(t)
	e.svc = capability.New(e.st, capability.Config{BaseURL: "http://earshot.test", PlanQuotas: map[string]int{"trial": 1000}}, slog.New(slog.DiscardHandler))
	for _, c := range []struct {
		name  string
		args  map[string]any
		param string
	}{
		{"loopback feed", map[string]any{"name": "m", "feed_urls": []string{"https://blog.example/rss", "http://127.0.0.1:8080/api/v1/monitors"}}, "feed_urls[1]"},
		{"metadata review page", map[string]any{"name": "m", "review_urls": []string{"http://169.254.169.254/latest/meta-data/"}}, "review_urls[0]"},
		{"localhost", map[string]any{"name": "m", "feed_urls": []string{"http://localhost/feed"}}, "feed_urls[0]"},
		{"decimal IPv4", map[string]any{"name": "m", "feed_urls": []string{"http://2130706433/feed"}}, "feed_urls[0]"},
	} {
		r := e.call(e.a, "create_monitor", "", c.args)
		wantErr(t, c.name, r, http.StatusBadRequest, "VALIDATION_ERROR", c.param)
		if !strings.Contains(r.Err.Message, "public") && !strings.Contains(r.Err.Message, "IPv4") {
			t.Errorf("%s: message %q", c.name, r.Err.Message)
		}
	}
	ok := e.call(e.a, "create_monitor", "", map[string]any{"name": "ok", "feed_urls": []string{"https://blog.example/rss", "http://news.example/atom.xml"}})
	if ok.Err != nil {
		t.Fatalf("public feeds refused: %v", ok.Err)
	}
	id := ok.data["id"].(string)
	r := e.call(e.a, "update_monitor", "", map[string]any{"id": id, "feed_urls": []string{"http://10.0.0.8/feed"}})
	wantErr(t, "update to a private feed", r, http.StatusBadRequest, "VALIDATION_ERROR", "feed_urls[0]")
}

// Google Play has no public reviews API: a Play URL is refused at create
// and update with what review_urls supports, instead of being read as a
// page with no review and reported ok forever (issue 27).
func TestMonitorRefusesGooglePlayReviewURL(t *testing.T) {
	e := newEnv(t)
	play := "https://play.google.com/store/apps/details?id=com.acme.projects&hl=en"
	r := e.call(e.a, "create_monitor", "", map[string]any{"name": "m", "review_urls": []string{"https://apps.apple.com/us/app/acme/id1234567890", play}})
	wantErr(t, "play review url", r, http.StatusBadRequest, "VALIDATION_ERROR", "review_urls[1]")
	if r.Err != nil && (!strings.Contains(r.Err.Message, "Google Play has no public reviews API") || !strings.Contains(r.Err.Message, "apps.apple.com")) {
		t.Errorf("message %q does not say what is supported", r.Err.Message)
	}
	ok := e.call(e.a, "create_monitor", "", map[string]any{"name": "ok", "review_urls": []string{"https://apps.apple.com/us/app/acme/id1234567890"}})
	if ok.Err != nil {
		t.Fatal(ok.Err)
	}
	r = e.call(e.a, "update_monitor", "", map[string]any{"id": ok.data["id"].(string), "review_urls": []string{play}})
	wantErr(t, "update to a play url", r, http.StatusBadRequest, "VALIDATION_ERROR", "review_urls[0]")
}
