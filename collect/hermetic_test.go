package collect

import (
	"context"
	"errors"
	"testing"
	"time"

	"earshot/netguard"
)

// Finding 12 of the hardening issue: a collector left on its platform's
// real host in a test fails at once instead of contacting it.
func TestCollectorsStayOnLoopbackUnderTest(t *testing.T) {
	// Tokens so each collector gets as far as a request; no base URL: the
	// real platform hosts.
	reg := NewRegistry(Config{YouTube: YouTubeConfig{APIKey: "token"}, X: XConfig{BearerToken: "token"},
		Threads: ThreadsConfig{AccessToken: "token"}, LinkedIn: LinkedInConfig{AccessToken: "token"}}, nil)
	for _, source := range []string{"hn", "reddit", "youtube", "x", "threads", "news"} {
		c, ok := reg.Get(source)
		if !ok {
			t.Fatalf("no collector %s", source)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // the refusal is immediate; the bound only ends a hang
		_, err := c.Fetch(ctx, Query{Keywords: []string{"acme"}, Since: time.Now().Add(-time.Hour)})
		cancel()
		if !errors.Is(err, netguard.ErrLoopbackOnly) {
			t.Errorf("%s on its default host: %v, want the loopback-only refusal", source, err)
		}
	}
}
