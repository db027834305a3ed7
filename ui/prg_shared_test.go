package ui_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"earshot/capability"
	"earshot/server"
	"earshot/store/storetest"
)

// twoProcesses is two dashboards on one database, as two `earshot serve`
// behind a load balancer: each its own store pool, service and server.
// Both are seeded through the first.
func twoProcesses(t *testing.T) (a, b *env) {
	t.Helper()
	sts := storetest.OpenShared(t, 2)
	envs := make([]*env, 2)
	for i, st := range sts {
		e := &env{t: t, st: st}
		e.http = httptest.NewUnstartedServer(nil)
		base := "http://" + e.http.Listener.Addr().String()
		e.svc = capability.New(st, capability.Config{BaseURL: base, PlanQuotas: map[string]int{"trial": 1000}, AllowPrivateWebhooks: true}, slog.New(slog.DiscardHandler))
		e.http.Config.Handler = server.New(e.svc, nil, server.Options{RateLimit: 10000, RateBurst: 10000})
		e.http.Start()
		t.Cleanup(e.http.Close)
		envs[i] = e
	}
	envs[0].seed(1)
	envs[1].owner, envs[1].proj = envs[0].owner, envs[0].proj
	return envs[0], envs[1]
}

// postNoFollow posts a form to e as c's browser and returns the 303's
// form cookie.
func postNoFollow(t *testing.T, c *client, e *env, path string, form url.Values) *http.Cookie {
	t.Helper()
	form.Set("_csrf", c.csrf)
	resp, err := c.c.PostForm(e.http.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST %s: %d, want 303", path, resp.StatusCode)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "earshot_form" && ck.Value != "" {
			return ck
		}
	}
	t.Fatalf("POST %s set no form cookie", path)
	return nil
}

// getOn is c's browser opening path on e (cookies are per host, not per
// port, so both processes see the same jar).
func getOn(t *testing.T, c *client, e *env, path string) string {
	t.Helper()
	old := c.e
	c.e = e
	defer func() { c.e = old }()
	st, body, _ := c.get(path)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d", path, st)
	}
	return body
}

var newKeyRe = regexpMust(`id="new-key">([^<]+)<`)

// TestPRGAcrossProcesses: the GET after a form's POST may land on another
// process; a created API key's secret is shown there once, and a failed
// form's errors and typed values survive the hop too.
func TestPRGAcrossProcesses(t *testing.T) {
	a, b := twoProcesses(t)
	c := a.client()
	c.login("owner@example.com")
	getOn(t, c, a, "/keys")

	ck := postNoFollow(t, c, a, "/a/create_api_key", url.Values{"name": {"ci"}, "scopes": {"mentions:read"}, "_back": {"/keys"}})
	if strings.Contains(ck.Value, "mk_") || len(ck.Value) > 3600 {
		t.Errorf("form cookie is not a sealed state: %q", ck.Value)
	}
	body := getOn(t, c, b, "/keys")
	key := newKeyRe.FindStringSubmatch(body)
	if key == nil {
		t.Fatal("the key created on A is not shown on B")
	}
	if strings.Contains(ck.Value, key[1]) {
		t.Error("the cookie carries the key in clear")
	}
	if body := getOn(t, c, b, "/keys"); strings.Contains(body, key[1]) {
		t.Error("reload on B shows the key again")
	}
	if body := getOn(t, c, a, "/keys"); strings.Contains(body, key[1]) {
		t.Error("A shows the key after B took it")
	}

	// the other secrets shown once: a webhook's signing secret, an invitation link
	getOn(t, c, a, "/webhooks")
	postNoFollow(t, c, a, "/a/create_webhook", url.Values{"url": {"https://hooks.example/x"}, "events": {"mention.created"}, "_back": {"/webhooks"}})
	if body := getOn(t, c, b, "/webhooks"); !strings.Contains(body, "whsec_") {
		t.Error("the webhook secret made on A is not shown on B")
	}
	getOn(t, c, a, "/members")
	postNoFollow(t, c, a, "/a/invite_member", url.Values{"email": {"ed@example.com"}, "role": {"editor"}, "_back": {"/members"}})
	if body := getOn(t, c, b, "/members"); !regexpMust(`<code id="new-secret">[^<]*/[^<]+</code>`).MatchString(body) {
		t.Error("the invitation link made on A is not shown on B")
	}

	getOn(t, c, a, "/alerts")
	postNoFollow(t, c, a, "/a/create_alert", url.Values{"name": {""}, "channel": {"email"}, "target": {"nope"}, "min_urgency": {"200"}, "_back": {"/alerts"}})
	body = getOn(t, c, b, "/alerts")
	must(t, body, "Name is required.", "Minimum urgency must be 100 or less.", `value="nope"`)
	if body := getOn(t, c, a, "/alerts"); strings.Contains(body, "Name is required.") {
		t.Error("reload shows the failed form again")
	}
}

// TestPRGSealedCookieRefused: a tampered form cookie, or another session's,
// shows nothing and is cleared.
func TestPRGSealedCookieRefused(t *testing.T) {
	a, b := twoProcesses(t)
	c := a.client()
	c.login("owner@example.com")
	getOn(t, c, a, "/keys")
	base, _ := url.Parse(a.http.URL)

	// tampered: one character of the ciphertext changed
	ck := postNoFollow(t, c, a, "/a/create_api_key", url.Values{"name": {"ci"}, "scopes": {"mentions:read"}, "_back": {"/keys"}})
	v := []byte(ck.Value)
	i := len(v) - 10
	if v[i] == 'A' {
		v[i] = 'B'
	} else {
		v[i] = 'A'
	}
	c.c.Jar.SetCookies(base, []*http.Cookie{{Name: "earshot_form", Value: string(v), Path: "/"}})
	resp, err := c.c.Get(b.http.URL + "/keys")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cleared := false
	for _, k := range resp.Cookies() {
		if k.Name == "earshot_form" && k.MaxAge < 0 {
			cleared = true
		}
	}
	if !cleared {
		t.Error("a tampered form cookie is not cleared")
	}
	if body := getOn(t, c, b, "/keys"); newKeyRe.MatchString(body) {
		t.Error("a tampered cookie shows a key")
	}

	// another session: the owner logged in in a second browser
	ck = postNoFollow(t, c, a, "/a/create_api_key", url.Values{"name": {"ci2"}, "scopes": {"mentions:read"}, "_back": {"/keys"}})
	other := b.client()
	other.login("owner@example.com")
	other.c.Jar.SetCookies(base, []*http.Cookie{{Name: "earshot_form", Value: ck.Value, Path: "/"}})
	if body := getOn(t, other, b, "/keys"); newKeyRe.MatchString(body) {
		t.Error("another session's cookie shows its key")
	}
	// the session it was sealed for still takes it
	if body := getOn(t, c, b, "/keys"); !newKeyRe.MatchString(body) {
		t.Error("the key is not shown to the session that created it")
	}
}

// TestPRGLargeStateStaysInMemory: a state too big for a cookie stays in
// the memory of the process that took the POST and is shown there.
func TestPRGLargeStateStaysInMemory(t *testing.T) {
	_, c := ownerClient(t, 1)
	c.get("/alerts")
	long := strings.Repeat("x", 5000)
	ck := postNoFollow(t, c, c.e, "/a/create_alert", url.Values{"name": {long}, "channel": {"email"}, "target": {"nope"}, "min_urgency": {"200"}, "_back": {"/alerts"}})
	if len(ck.Value) > 100 {
		t.Errorf("a %d-byte form cookie for a large state", len(ck.Value))
	}
	st, body, _ := c.get("/alerts")
	if st != http.StatusOK {
		t.Fatalf("GET /alerts: %d", st)
	}
	must(t, body, "Minimum urgency must be 100 or less.", `value="nope"`)
}
