package collect

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"earshot/netguard"
)

// Every configured platform URL is reached as written, loopback included
// (base URL overrides, the operator's Discourse forums), while the guard
// still refuses private addresses nobody configured.
func TestPlatformClientReachesConfiguredOrigins(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer srv.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer other.Close()
	for name, cfg := range map[string]Config{
		"github":        {GitHub: GitHubConfig{BaseURL: srv.URL}},
		"stackoverflow": {StackOverflow: StackOverflowConfig{BaseURL: srv.URL + "/2.3"}},
		"devto":         {Devto: DevtoConfig{BaseURL: srv.URL + "/api"}},
		"discourse":     {Discourse: DiscourseConfig{Forums: "https://forum.example.org," + srv.URL}},
	} {
		c := NewPlatformClient(cfg, time.Minute)
		res, err := c.Get(srv.URL + "/x")
		if err != nil {
			t.Errorf("%s: the configured origin is refused: %v", name, err)
			continue
		}
		res.Body.Close()
		if _, err := c.Get(other.URL + "/x"); err == nil {
			t.Errorf("%s: an unconfigured loopback origin was reached", name)
		}
	}
}

// With an outbound proxy (EARSHOT_OUTBOUND_PROXY) the platform client and
// the feed/review-page client reach their hosts through it: here at host
// names nothing resolves, which only the proxy answers. (The collectors
// themselves refuse non-loopback URLs under go test, so the clients are
// asked directly.)
func TestPlatformClientsUseOutboundProxy(t *testing.T) {
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		asked = append(asked, r.URL.Host+r.URL.Path)
		w.Write([]byte("{}"))
	}))
	defer proxy.Close()
	u, err := netguard.ParseProxy(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{GitHub: GitHubConfig{BaseURL: "http://api.github.proxied.test"}, Proxy: u}
	res, err := NewPlatformClient(cfg, time.Minute).Get("http://api.github.proxied.test/search/issues")
	if err != nil {
		t.Fatalf("platform client through the proxy: %v", err)
	}
	res.Body.Close()
	// The registry's client for users' feed URLs: a public address as
	// written is checked, then proxied (the proxy answers; nothing leaves
	// loopback).
	news := NewRegistry(cfg, nil).byName["news"].(*News)
	res, err = news.cfg.FeedClient.Get("http://1.1.1.1/feed.xml")
	if err != nil {
		t.Fatalf("feed client through the proxy: %v", err)
	}
	res.Body.Close()
	if want := []string{"api.github.proxied.test/search/issues", "1.1.1.1/feed.xml"}; len(asked) != 2 || asked[0] != want[0] || asked[1] != want[1] {
		t.Errorf("the proxy was asked %q, want %q", asked, want)
	}
}
