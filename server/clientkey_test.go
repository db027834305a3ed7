package server_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestLoginLimiterKeysIPv6PerSlash64: an IPv6 client (here named by a
// trusted proxy, 127.0.0.1) that moves to a new address of its /64 with
// every guess is still one client to the login limiter; a client of
// another /64 is not slowed by it.
func TestLoginLimiterKeysIPv6PerSlash64(t *testing.T) {
	p := newProxied(t, "127.0.0.1", "")
	proxy := from(t, "127.0.0.1")
	login := p.earshot.URL + "/api/v1/auth/sessions"
	for i := 0; i < 35; i++ {
		send(t, proxy, "POST", login, loginBody("wrong"), "X-Forwarded-For", "2001:db8:1:2::"+itoa(i+1))
	}
	if r := send(t, proxy, "POST", login, loginBody("right-password"), "X-Forwarded-For", "2001:db8:1:2:ffff::99"); r.status != http.StatusTooManyRequests {
		t.Fatalf("a fresh address of the same /64 escaped the limiter: %d %s", r.status, r.body)
	}
	if r := send(t, proxy, "POST", login, loginBody("right-password"), "X-Forwarded-For", "[::ffff:198.51.100.7]:443"); r.status != http.StatusOK {
		t.Fatalf("an IPv4 client (IPv4-mapped) got %d: %s", r.status, r.body)
	}
	if r := send(t, proxy, "POST", login, loginBody("right-password"), "X-Forwarded-For", "2001:db8:1:3::1"); r.status != http.StatusOK {
		t.Fatalf("a client of another /64 got %d: %s", r.status, r.body)
	}
}

var preCSRFRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// dashboardLogin posts the dashboard's login form through c and returns the
// status.
func dashboardLogin(t *testing.T, c *http.Client, base, password string) int {
	t.Helper()
	r := send(t, c, "GET", base+"/login", "")
	m := preCSRFRe.FindStringSubmatch(r.body)
	if m == nil {
		t.Fatalf("no CSRF token on the login page: %d", r.status)
	}
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(url.Values{"email": {"owner@example.com"}, "password": {password}, "_csrf": {m[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestDashboardLoginLockoutBehindProxy: the dashboard's login form behind
// a trusted reverse proxy locks out the visitor who guesses, by their own
// address, not the proxy's: the owner, through the same proxy from another
// address, logs in.
func TestDashboardLoginLockoutBehindProxy(t *testing.T) {
	p := newProxied(t, "127.0.0.1", "")
	a, b := from(t, "127.0.0.2"), from(t, "127.0.0.3")
	// Guess until locked out: the waits double after five failures, so
	// however slow the machine, a 429 comes within these tries.
	locked := false
	for i := 0; i < 40 && !locked; i++ {
		locked = dashboardLogin(t, a, p.proxy.URL, "wrong") == http.StatusTooManyRequests
	}
	if !locked {
		t.Fatal("the guesser is never locked out")
	}
	if st := dashboardLogin(t, b, p.proxy.URL, "right-password"); st != http.StatusSeeOther {
		t.Fatalf("the owner, from another address behind the same proxy, got %d", st)
	}
}
