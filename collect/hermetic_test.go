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
	env := func(name string) string {
		switch name {
		case EnvYouTubeAPIKey, EnvXBearerToken, EnvThreadsToken, EnvLinkedInToken:
			return "token" // so each collector gets as far as a request
		}
		return "" // no base URL: the real platform hosts
	}
	reg := NewRegistry(env, nil)
	for _, source := range []string{"hn", "reddit", "youtube", "x", "threads", "news"} {
		c, ok := reg.Get(source)
		if !ok {
			t.Fatalf("no collector %s", source)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.Fetch(ctx, Query{Keywords: []string{"acme"}, Since: time.Now().Add(-time.Hour)})
		cancel()
		if !errors.Is(err, netguard.ErrLoopbackOnly) {
			t.Errorf("%s on its default host: %v, want the loopback-only refusal", source, err)
		}
	}
}
