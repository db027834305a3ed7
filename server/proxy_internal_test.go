package server

import (
	"log/slog"
	"net/http"
	"testing"

	"earshot/capability"
	"earshot/store/storetest"
)

// originOf's walk over the chain, case by case.
func TestOriginOf(t *testing.T) {
	tp, err := ParseTrustedProxies(" 10.0.0.0/8 , ::1,192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer string
		hdr        []string
		client     string
		https      bool
	}{
		{"untrusted peer", "203.0.113.1:5000", []string{"X-Forwarded-For", "198.51.100.1", "X-Forwarded-Proto", "https"}, "203.0.113.1", false},
		{"trusted, no header", "10.1.2.3:5000", nil, "10.1.2.3", false},
		{"trusted, one hop", "10.1.2.3:5000", []string{"X-Forwarded-For", "198.51.100.1", "X-Forwarded-Proto", "https"}, "198.51.100.1", true},
		{"client-written entries left of the client", "10.1.2.3:5000", []string{"X-Forwarded-For", "1.1.1.1, 2.2.2.2, 198.51.100.1, 10.9.9.9"}, "198.51.100.1", false},
		{"every hop trusted", "10.1.2.3:5000", []string{"X-Forwarded-For", "10.0.0.7, 10.0.0.8"}, "10.0.0.7", false},
		{"unreadable nearest entry", "10.1.2.3:5000", []string{"X-Forwarded-For", "198.51.100.1, unknown"}, "10.1.2.3", false},
		{"unreadable entry after the client", "10.1.2.3:5000", []string{"X-Forwarded-For", "unknown, 198.51.100.1"}, "198.51.100.1", false},
		{"IPv4-mapped peer", "[::ffff:192.0.2.1]:5000", []string{"X-Forwarded-For", "[2001:db8::1]:443"}, "2001:db8::1", false},
		{"IPv6 loopback proxy", "[::1]:5000", []string{"X-Forwarded-For", "198.51.100.1:61000"}, "198.51.100.1", false},
		{"Forwarded with quoted IPv6", "[::1]:5000", []string{"Forwarded", `for="[2001:db8::2]:80";proto=HTTPS, for=10.0.0.5`}, "2001:db8::2", true},
		{"X-Forwarded-For wins over Forwarded", "[::1]:5000", []string{"Forwarded", "for=1.2.3.4", "X-Forwarded-For", "198.51.100.1"}, "198.51.100.1", false},
	} {
		r, _ := http.NewRequest("GET", "http://x/", nil)
		r.RemoteAddr = tc.peer
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			r.Header.Add(tc.hdr[i], tc.hdr[i+1])
		}
		o := tp.originOf(r)
		if o.client != tc.client || o.https != tc.https {
			t.Errorf("%s: got %s https=%v, want %s https=%v", tc.name, o.client, o.https, tc.client, tc.https)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0.1/8/8", "::1/129"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRoutePattern(t *testing.T) {
	svc := capability.New(storetest.Open(t), capability.Config{BaseURL: "http://x"}, slog.New(slog.DiscardHandler))
	srv := New(svc, nil, Options{})
	for path, want := range map[string]string{
		"/api/v1/monitors/mon_1": "/api/v1/monitors/:id",
		"/static/app.js":         "/static/*filepath",
		"/login":                 "/login",
		"/nope/nothing":          "-",
	} {
		if got := routePattern(srv.Router, "GET", path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}
