package netguard

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// forwardProxy is a plain HTTP forward proxy: it records the absolute
// URLs asked of it and answers for them itself (no destination is ever
// reached, so the test stays on loopback).
type forwardProxy struct {
	mu   sync.Mutex
	seen []string
}

func (p *forwardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !r.URL.IsAbs() {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.seen = append(p.seen, r.URL.String())
	p.mu.Unlock()
	if r.URL.Path == "/away" { // a platform redirecting to the metadata service
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		return
	}
	io.WriteString(w, "via proxy: "+r.URL.Host)
}

func (p *forwardProxy) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// An operator's outbound proxy carries every platform and webhook request
// whose destination passes the guard; a destination the guard refuses
// (metadata, private addresses, a redirect to them) never reaches the
// proxy; loopback destinations are not proxied.
func TestUseProxy(t *testing.T) {
	fp := &forwardProxy{}
	proxySrv := httptest.NewServer(fp)
	defer proxySrv.Close()
	proxy, err := ParseProxy(proxySrv.URL)
	if err != nil {
		t.Fatal(err)
	}
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") }))
	defer local.Close()

	get := func(c *http.Client, u string) (string, error) {
		resp, err := c.Get(u)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}

	platform := NewPlatformClient(false, 0, []string{"api.platform.test:80"})
	UseProxy(platform, proxy, false, []string{"api.platform.test:80"})
	// A trusted origin (as configured; not resolved here) goes through the proxy.
	if body, err := get(platform, "http://api.platform.test/search"); err != nil || body != "via proxy: api.platform.test" {
		t.Fatalf("trusted origin through the proxy: %q %v", body, err)
	}
	// An address the guard refuses is refused before the proxy sees it,
	// as a URL and as a redirect target.
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/admin", "http://api.platform.test/away"} {
		_, err := get(platform, u)
		// Under go test the redirect check's loopback-only rule refuses the
		// redirect first; in production the proxy's guard does.
		if err == nil || !errors.Is(err, ErrForbiddenAddress) && !(strings.HasSuffix(u, "/away") && errors.Is(err, ErrLoopbackOnly)) {
			t.Errorf("GET %s through the proxy: %v, want refused by the guard", u, err)
		}
	}
	for _, u := range fp.asked() {
		if strings.Contains(u, "169.254") || strings.Contains(u, "10.1.2.3") {
			t.Errorf("the proxy was asked for %s", u)
		}
	}
	// Loopback is never proxied.
	if body, err := get(platform, local.URL); err == nil || body == "direct" {
		// local is not a trusted origin: the guard refuses loopback.
		t.Errorf("untrusted loopback: %q %v", body, err)
	}
	if n := len(fp.asked()); n != 2 { // /search and /away
		t.Errorf("proxy asked %d times (%q), want 2", n, fp.asked())
	}

	// Webhooks with private destinations allowed: a private address is
	// passed to the proxy, metadata still refused.
	hooks := NewClient(true, 0)
	UseProxy(hooks, proxy, true, nil)
	if body, err := get(hooks, "http://10.1.2.3/hook"); err != nil || body != "via proxy: 10.1.2.3" {
		t.Errorf("private webhook through the proxy with private allowed: %q %v", body, err)
	}
	if _, err := get(hooks, "http://169.254.169.254/"); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("metadata with private allowed: %v", err)
	}
}

func TestParseProxy(t *testing.T) {
	for raw, ok := range map[string]bool{
		"":                            true,
		"http://proxy.corp:3128":      true,
		"https://u:p@proxy.corp:8443": true,
		"socks5://proxy:1080":         false,
		"proxy.corp:3128":             false,
		"http://":                     false,
		"http://proxy/path":           false,
	} {
		_, err := ParseProxy(raw)
		if (err == nil) != ok {
			t.Errorf("ParseProxy(%q): %v", raw, err)
		}
	}
}

// Before a proxy is asked, a host name counts by every address it
// resolves to, and a numeric IPv4 spelling is refused outright.
func TestDestinationCheck(t *testing.T) {
	lookup := func(_ context.Context, _, host string) ([]netip.Addr, error) {
		switch host {
		case "public.test":
			return []netip.Addr{netip.MustParseAddr("1.1.1.1")}, nil
		case "mixed.test":
			return []netip.Addr{netip.MustParseAddr("1.1.1.1"), netip.MustParseAddr("10.0.0.7")}, nil
		}
		return nil, nil
	}
	check := destinationCheck(false, lookup)
	for raw, ok := range map[string]bool{
		"http://public.test/feed": true,
		"http://mixed.test/feed":  false,
		"http://empty.test/":      false,
		"http://0x7f.1/":          false,
		"http://1.1.1.1/":         true,
		"http://[fd00::1]/":       false,
	} {
		u, _ := url.Parse(raw)
		if err := check(context.Background(), u); (err == nil) != ok {
			t.Errorf("%s: %v", raw, err)
		}
	}
}
