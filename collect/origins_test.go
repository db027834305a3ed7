package collect

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
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
