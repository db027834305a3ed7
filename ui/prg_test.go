package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestFailedFormPRG: a failed form answers 303 back to its page, which
// shows every field's error at once in the words of the field's label;
// a reload of that page shows it clean and submits nothing again.
func TestFailedFormPRG(t *testing.T) {
	_, c := ownerClient(t, 1)
	c.get("/alerts")
	form := url.Values{"name": {""}, "channel": {"email"}, "target": {"nope"}, "min_urgency": {"200"}, "_back": {"/alerts"}, "_csrf": {c.csrf}}
	resp, err := c.c.PostForm(c.e.http.URL+"/a/create_alert", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/alerts" {
		t.Fatalf("failed form: %d to %q, want 303 to /alerts", resp.StatusCode, resp.Header.Get("Location"))
	}
	st, body, _ := c.get("/alerts")
	if st != http.StatusOK {
		t.Errorf("page with the errors: %d", st)
	}
	must(t, body, "Name is required.", "Minimum urgency must be 100 or less.", `value="nope"`)
	if strings.Contains(body, "min_urgency must") {
		t.Error("API wording shown to a person")
	}
	st, body, _ = c.get("/alerts")
	if st != http.StatusOK || strings.Contains(body, "Name is required.") || strings.Contains(body, `value="nope"`) {
		t.Errorf("reload shows the failed form again: %d", st)
	}
}

// TestSecretShownOnceAfterRedirect: a created key is shown on the page the
// form redirects to, and not again on reload.
func TestSecretShownOnceAfterRedirect(t *testing.T) {
	_, c := ownerClient(t, 1)
	c.get("/keys")
	st, body, _ := c.post("/a/create_api_key", url.Values{"name": {"ci"}, "scopes": {"mentions:read"}, "_back": {"/keys"}}, true)
	if st != http.StatusOK || c.lastRedirect != "/keys" {
		t.Fatalf("create key: %d via %q", st, c.lastRedirect)
	}
	key := regexpMust(`id="new-key">([^<]+)<`).FindStringSubmatch(body)
	if key == nil || !strings.Contains(body, `data-copy="#new-key"`) {
		t.Fatalf("no key with a copy button shown")
	}
	_, body, _ = c.get("/keys")
	if strings.Contains(body, key[1]) {
		t.Error("the key is shown again on reload")
	}
}
