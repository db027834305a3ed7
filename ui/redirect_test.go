package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestLoginNextStaysOnSite: after a login, ?next= leads only to a path of
// this site, whatever encoding, dot segments, backslashes or control
// characters it uses to look like one; anything else lands on "/". The
// first row is the reported finding (Location: /\evil.example, which
// browsers read as //evil.example).
func TestLoginNextStaysOnSite(t *testing.T) {
	e := newEnv(t)
	e.seed(0)
	cases := []struct{ next, want string }{
		{"/a/../\\evil.example", "/"},
		{"/a/../%5Cevil.example", "/"},
		{"/\\evil.example", "/"},
		{"\\\\evil.example", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{"/%2F%2Fevil.example", "/evil.example"},
		{"/%2F/evil.example", "/evil.example"},
		{"/./\\/evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/%09/evil.example", "/"},
		{"https://evil.example/", "/"},
		{"http:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"/x/..//evil.example", "/evil.example"},
		{"/..//evil.example", "/evil.example"},
		{"evil.example", "/"},
		{"/monitors", "/monitors"},
		{"/mentions/abc?status=new&x=1", "/mentions/abc?status=new&x=1"},
		{"/a/b/../monitors", "/a/monitors"},
	}
	for _, tc := range cases {
		c := e.client()
		c.get("/login?next=" + url.QueryEscape(tc.next))
		st, body, h := c.post("/login", url.Values{"email": {"owner@example.com"}, "password": {"correct-horse-42"}, "next": {tc.next}}, true)
		loc := h.Get("Location")
		if st != http.StatusSeeOther || loc != tc.want {
			t.Errorf("next=%q: %d Location %q, want %q (%.200s)", tc.next, st, loc, tc.want, body)
		}
		if strings.Contains(loc, "\\") || strings.HasPrefix(loc, "//") {
			t.Errorf("next=%q: Location %q leaves the site", tc.next, loc)
		}
	}
	// The login page's hidden field carries the same normalised value.
	c := e.client()
	_, body, _ := c.get("/login?next=%2Fa%2F..%2F%255Cevil.example")
	if strings.Contains(body, "evil.example") {
		t.Errorf("the login form keeps a foreign next: %.400s", body[strings.Index(body, "next"):])
	}
}

// TestStaticNoDirectoryListing: /static/ serves files, never a listing of
// a directory.
func TestStaticNoDirectoryListing(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	for _, p := range []string{"/static/", "/static", "/static/.", "/static/./", "/static/x/.."} {
		st, body, _ := c.get(p)
		if st != http.StatusNotFound || strings.Contains(body, `href="app.js"`) {
			t.Errorf("GET %s: %d, listing %v", p, st, strings.Contains(body, `href="app.js"`))
		}
	}
	if st, _, _ := c.get("/static/app.css"); st != http.StatusOK {
		t.Errorf("GET /static/app.css: %d", st)
	}
}

// failBigForm posts a create_alert whose name is size bytes (refused as
// too long) and returns the form cookie it set, without following it.
func failBigForm(t *testing.T, c *client, size int) *http.Cookie {
	t.Helper()
	form := url.Values{"name": {strings.Repeat("n", size)}, "channel": {"email"}, "target": {"ops@example.com"}, "_back": {"/alerts"}, "_csrf": {c.csrf}}
	resp, err := c.c.PostForm(c.e.http.URL+"/a/create_alert", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("failed form: %d", resp.StatusCode)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "earshot_form" {
			return ck
		}
	}
	t.Fatal("no form cookie")
	return nil
}

// TestFormStashBoundedOverHTTP: a failed form too big for the cookie waits
// in memory only up to a size (a 900 KB name is dropped from the state,
// which then travels sealed in the cookie; the error still shows), and
// one user has at most a few such states: the oldest is gone.
func TestFormStashBoundedOverHTTP(t *testing.T) {
	_, c := ownerClient(t, 0)
	c.get("/alerts")
	big := failBigForm(t, c, 900<<10)
	if !strings.HasPrefix(big.Value, "s1.") {
		t.Errorf("a 900 KB failed form is kept in the server's memory (cookie %.20q…), want it sealed without the values", big.Value)
	}
	_, body, _ := c.get("/alerts")
	if !strings.Contains(body, "Name") || strings.Contains(body, strings.Repeat("n", 1000)) {
		t.Errorf("the page after a huge failed form: error shown %v, value refilled %v", strings.Contains(body, "Name"), strings.Contains(body, strings.Repeat("n", 1000)))
	}

	// 20 KB: too big for the cookie, small enough to keep.
	var toks []*http.Cookie
	for range 10 {
		toks = append(toks, failBigForm(t, c, 20<<10))
	}
	u, _ := url.Parse(c.e.http.URL + "/")
	show := func(ck *http.Cookie) bool {
		c.c.Jar.SetCookies(u, []*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/"}})
		_, body, _ := c.get("/alerts")
		return strings.Contains(body, strings.Repeat("n", 1000))
	}
	if show(toks[0]) {
		t.Error("the oldest of 10 failed forms still waits: one user's stash is unbounded")
	}
	if !show(toks[len(toks)-1]) {
		t.Error("the newest failed form was not kept")
	}
}
