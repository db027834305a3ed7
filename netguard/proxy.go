package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// ParseProxy reads the outbound proxy an operator names
// (EARSHOT_OUTBOUND_PROXY): an http or https URL with a host, optional
// user:password. "" is no proxy.
func ParseProxy(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("want http://host:port or https://host:port, got %s://%s", u.Scheme, u.Host)
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return nil, fmt.Errorf("a proxy URL has no path or query")
	}
	return u, nil
}

// UseProxy sends the connections of c (a client from NewClient or
// NewPlatformClient) through the forward proxy at proxy; nil leaves c
// alone. The environment's HTTP(S)_PROXY is never read: an installation
// uses a proxy only when its operator names one for Earshot.
//
// Through a proxy Earshot no longer dials the destination, so the guard
// moves before the request: the destination's host, an address as
// written or a name as it resolves here, must pass the same rules as a
// direct connection (trusted origins excepted, as in NewPlatformClient).
// The proxy resolves the name again on its own, so a name that rebinds
// between the two lookups is the proxy's to refuse; the README says so.
// The proxy itself is dialled as the operator configured it, like a
// trusted origin.
func UseProxy(c *http.Client, proxy *url.URL, allowPrivate bool, trusted []string) {
	if proxy == nil {
		return
	}
	tr := c.Transport.(*http.Transport)
	allowed := make(map[string]bool, len(trusted))
	for _, o := range trusted {
		allowed[strings.ToLower(o)] = true
	}
	proxyOrigin := Origin(proxy.String())
	check := destinationCheck(allowPrivate, net.DefaultResolver.LookupNetIP)
	tr.Proxy = func(req *http.Request) (*url.URL, error) {
		if loopbackHost(req.URL.Hostname()) {
			return nil, nil // never proxied (as Go's own proxy rules): dialled, and guarded, directly
		}
		if !allowed[Origin(req.URL.String())] {
			if err := check(req.Context(), req.URL); err != nil {
				return nil, err
			}
		}
		return proxy, nil
	}
	direct := &net.Dialer{Timeout: DefaultTimeout, KeepAlive: 30 * time.Second, Control: loopbackControl}
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if strings.EqualFold(addr, proxyOrigin) {
			return direct.DialContext(ctx, network, addr)
		}
		return dial(ctx, network, addr) // a loopback destination, not proxied
	}
}

// destinationCheck applies the dial guard to a URL's host before a proxy
// connects to it: an address as written, a name on every address it
// resolves to here (as validateURL does for a webhook), and no
// non-canonical IPv4 spelling, which the proxy might read otherwise.
func destinationCheck(allowPrivate bool, lookup lookupFunc) func(context.Context, *url.URL) error {
	return func(ctx context.Context, u *url.URL) error {
		host := u.Hostname()
		addrs := make([]netip.Addr, 1)
		if a, err := netip.ParseAddr(host); err == nil {
			addrs[0] = a
		} else if endsInNumber(host) {
			return forbiddenAddress("%q is a non-canonical IPv4 address", host)
		} else if addrs, err = lookup(ctx, "ip", host); err != nil {
			return resolveFailure(host, err)
		} else if len(addrs) == 0 {
			return invalidURL("host %s has no address", host)
		}
		for _, a := range addrs {
			if err := checkAddr(a.Unmap(), allowPrivate); err != nil {
				return err
			}
		}
		return nil
	}
}
