package collect

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"earshot/netguard"
)

// URLs that users put in monitors (feed_urls, and review_urls read as pages)
// are fetched by the server, so they get the webhook URL guard
// (docs/decisions.md#webhooks): no loopback, private, link-local, multicast,
// unspecified, CGNAT or metadata address, IPv4-mapped and NAT64 forms included,
// checked at connect time on the resolved address (which defeats DNS
// rebinding), and no proxy from the environment.
// EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1 lifts it (metadata addresses stay refused)
// for development and tests. Platform API hosts, including EARSHOT_*_BASE_URL
// overrides, are operator configuration and use the ordinary client.

// EnvAllowPrivate is the development switch shared with webhooks.
const EnvAllowPrivate = "EARSHOT_ALLOW_PRIVATE_WEBHOOKS"

const (
	userURLTimeout      = 30 * time.Second
	userURLMaxRedirects = 5
)

// NewUserURLClient returns the client for user-supplied URLs: deliver's
// guarded client (its dialer checks every address it connects to), which
// here follows up to five redirects, since feeds move between hosts and
// schemes; every hop is dialled through the same guard.
func NewUserURLClient(allowPrivate bool) *http.Client {
	c := netguard.NewClient(allowPrivate, userURLTimeout)
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= userURLMaxRedirects {
			return fmt.Errorf("stopped after %d redirects", userURLMaxRedirects)
		}
		return checkUserURL(req.URL.String())
	}
	return c
}

// checkUserURL refuses what no feed or review page can be: not a URL,
// another scheme than http(s), or no host. The guarded client runs it on
// every redirect; the collectors before the first request.
func checkUserURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: URL scheme must be http or https", u.Redacted())
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%s: URL has no host", u.Redacted())
	}
	return nil
}

// ForbiddenAddressError is a user-supplied URL that leads to an address the
// guard refuses. Its text names the address class, never the response of
// anything (no connection was made).
type ForbiddenAddressError struct {
	Reason string // e.g. "127.0.0.1 is loopback"
	// Platform marks a platform API that redirected or linked to another
	// host the guard refuses (NewPlatformClient).
	Platform bool
}

func (e *ForbiddenAddressError) Error() string {
	if e.Platform {
		return "address not allowed: a redirect or link to another host: " + e.Reason + " (only the platform hosts configured are reached as written; other hosts must be public)"
	}
	if strings.Contains(e.Reason, "metadata") {
		return "address not allowed: " + e.Reason
	}
	return "address not allowed: " + e.Reason + " (feed and review URLs must reach public addresses; " + EnvAllowPrivate + "=1 lifts this for development)"
}

// Unwrap lets errors.Is(err, netguard.ErrForbiddenAddress) match.
func (e *ForbiddenAddressError) Unwrap() error { return netguard.ErrForbiddenAddress }

// forbiddenAddress turns the guarded dialer's refusal, wrapped in url.Error
// and net.OpError, into a ForbiddenAddressError; nil for other errors.
func forbiddenAddress(err error) *ForbiddenAddressError {
	if !errors.Is(err, netguard.ErrForbiddenAddress) {
		return nil
	}
	var ue *netguard.URLError
	if errors.As(err, &ue) {
		return &ForbiddenAddressError{Reason: ue.Reason}
	}
	return &ForbiddenAddressError{Reason: "not a public address"}
}
