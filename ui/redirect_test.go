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
