// Package netguard decides which addresses Earshot's outbound HTTP may
// reach: the SSRF guard for webhook, Slack and user-supplied fetch URLs
// (checked when saved, and again at connect time by NewClient's dialer),
// and the loopback-only switch that keeps tests hermetic. Delivery and the
// collectors both use it; it depends on neither.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DefaultTimeout bounds one request of a NewClient client when the caller
// gives none; it is also the default of one delivery attempt.
const DefaultTimeout = 15 * time.Second

// resolveTimeout bounds the DNS lookup ValidateURL does at create/update.
const resolveTimeout = 5 * time.Second

var (
	// ErrInvalidURL is returned for a webhook URL that is malformed, uses
	// another scheme than https (http too with allowPrivate), carries
	// userinfo, or whose host does not resolve.
	ErrInvalidURL = errors.New("invalid webhook URL")
	// ErrForbiddenAddress is returned when a webhook URL, or the address it
	// resolves to at connect time, is not a public unicast address.
	ErrForbiddenAddress = errors.New("webhook address not allowed")
)

// URLError is a refused webhook URL: Kind is ErrInvalidURL or
// ErrForbiddenAddress, Reason says why in words fit for the API caller (a
// host name and an address class, never a resolver address or Go error
// text).
type URLError struct {
	Kind   error
	Reason string
}

func (e *URLError) Error() string { return e.Kind.Error() + ": " + e.Reason }

// Unwrap lets errors.Is match Kind.
func (e *URLError) Unwrap() error { return e.Kind }

func invalidURL(format string, args ...any) error {
	return &URLError{Kind: ErrInvalidURL, Reason: fmt.Sprintf(format, args...)}
}

func forbiddenAddress(format string, args ...any) error {
	return &URLError{Kind: ErrForbiddenAddress, Reason: fmt.Sprintf(format, args...)}
}

// resolveFailure says why host could not be resolved without the
// resolver's own words (they name the DNS server, an internal address).
func resolveFailure(host string, err error) error {
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return invalidURL("host %s does not resolve", host)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &dnsErr) && dnsErr.IsTimeout:
		return invalidURL("host %s could not be resolved in time", host)
	}
	return invalidURL("host %s could not be resolved", host)
}

// ValidateURL checks a webhook or Slack URL when it is created or updated:
// https only, no userinfo, no numeric IPv4 spellings other than dotted
// quads, and a host whose every resolved address is public. With
// allowPrivate (EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1) http and private
// addresses are accepted and the host is not resolved; cloud-metadata
// addresses stay refused, since no development setup needs to post to them.
//
// Resolution here only gives the user an early 400; NewClient checks the
// address again at connect time, which is what defeats DNS rebinding.
func ValidateURL(raw string, allowPrivate bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	return validateURL(ctx, raw, allowPrivate, net.DefaultResolver.LookupNetIP)
}

// ValidateFetchURL checks a URL Earshot will fetch for a user (a monitor's
// feed or review page) when it is saved: http or https, no userinfo, and a
// host that is not written as a refused address (an IP literal of a
// private, loopback, link-local or metadata range, a non-canonical IPv4
// spelling, localhost). It does not resolve names, so a self-hosted
// instance without DNS can still save a monitor; the collectors' client
// (NewClient) checks every resolved address at connect time.
func ValidateFetchURL(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalidURL("must be an absolute http(s) URL")
	}
	if u.User != nil {
		return invalidURL("userinfo is not allowed")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		return checkLiteral(host, addr.WithZone(""), allowPrivate)
	}
	if endsInNumber(host) {
		return forbiddenAddress("%q is a non-canonical IPv4 address", host)
	}
	if !allowPrivate && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
		return forbiddenAddress("%s is loopback", host)
	}
	return nil
}

// EnvLoopbackOnly set to 1 keeps every outbound connection of the
// collectors and of delivery on loopback (the test scripts set it).
const EnvLoopbackOnly = "EARSHOT_LOOPBACK_ONLY"

// ErrLoopbackOnly is a connection refused because tests must stay on
// loopback.
var ErrLoopbackOnly = errors.New(EnvLoopbackOnly + " is set (or this is a Go test): refusing a non-loopback address; point the collector or webhook at a local server")

// LoopbackOnly reports whether outbound HTTP must stay on loopback: in
// every Go test binary, and in a process run with EARSHOT_LOOPBACK_ONLY=1
// (the end-to-end scripts). It is the guard that keeps the test suite
// hermetic: a collector left on a platform's real host fails the test
// instead of contacting it.
func LoopbackOnly() bool { return testing.Testing() || os.Getenv(EnvLoopbackOnly) == "1" }

// CheckLoopbackURL refuses, under LoopbackOnly, a URL whose host is not a
// loopback address or "localhost", before any DNS lookup or connection.
func CheckLoopbackURL(u *url.URL) error {
	if !LoopbackOnly() {
		return nil
	}
	if loopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrLoopbackOnly, u.Host)
}

// loopbackHost: "localhost" (or a name under it) or a loopback address.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// lookupFunc resolves a host name; net.Resolver.LookupNetIP in production, a
// fake in tests.
type lookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func validateURL(ctx context.Context, raw string, allowPrivate bool, lookup lookupFunc) error {
	u, err := url.Parse(raw)
	if err != nil {
		return invalidURL("not a valid URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowPrivate {
			return invalidURL("https is required")
		}
	default:
		return invalidURL("scheme must be https")
	}
	if u.Opaque != "" || u.Host == "" {
		return invalidURL("no host")
	}
	if u.User != nil {
		// Credentials in the URL would be stored and logged with it, and
		// "https://trusted@evil" is a classic way to mislead a reader.
		return invalidURL("userinfo is not allowed")
	}
	if p := u.Port(); p == "0" {
		return invalidURL("port 0 is not allowed")
	}
	host := u.Hostname()
	if host == "" {
		return invalidURL("no host")
	}

	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return forbiddenAddress("IPv6 zone in %s", host)
		}
		return checkLiteral(host, addr, allowPrivate)
	}
	if endsInNumber(host) {
		// 2130706433, 0x7f.1, 017700000001, 127.1: browsers and getaddrinfo
		// read these as IPv4 addresses, so a filter that only knows dotted
		// quads would let 127.0.0.1 through. Nobody needs them.
		return forbiddenAddress("%q is a non-canonical IPv4 address", host)
	}
	if allowPrivate {
		return nil
	}

	addrs, err := lookup(ctx, "ip", host)
	if err != nil {
		return resolveFailure(host, err)
	}
	if len(addrs) == 0 {
		return invalidURL("host %s has no address", host)
	}
	// Every address must be public: the dialer may pick any of them.
	// LookupNetIP returns IPv4 answers in their IPv4-mapped form; unmap
	// them so errors name the address the user knows.
	for _, a := range addrs {
		if reason, _ := classifyAddr(a.Unmap().WithZone("")); reason != "" {
			// The rule, not the address: what an internal name resolves
			// to is not the caller's business.
			return forbiddenAddress("host %s resolves to %s", host, reason)
		}
	}
	return nil
}

// endsInNumber reports whether the URL standard would parse host as an IPv4
// address: its last label is decimal digits or 0x-prefixed hex.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// NewClient returns the HTTP client for webhook and Slack deliveries. Its
// dialer checks the resolved address of every connection (so a name that
// resolves to a public address at create time and to 127.0.0.1 later is
// still refused), it ignores HTTP(S)_PROXY from the environment (a proxy
// would hide the real destination from that check), and it never follows a
// redirect: a 3xx is returned as the response and counts as a failure.
// timeout <= 0 means DefaultTimeout.
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	dialer := &net.Dialer{
		Timeout:   timeout,
		KeepAlive: 30 * time.Second,
		Control:   dialControl(allowPrivate),
	}
	transport := &http.Transport{
		Proxy:             nil,
		DialContext:       dialer.DialContext,
		ForceAttemptHTTP2: true,
		// Lanes to webhooks on one host (one receiver with several hooks, a
		// relay service) each keep their connection: with fewer idle slots
		// than lanes, every request past the fourth closed its connection
		// after the answer and dialled a new one.
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// dialControl runs after name resolution and before connect, with the
// address actually being dialled.
func dialControl(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if network != "tcp4" && network != "tcp6" {
			return fmt.Errorf("%w: network %s", ErrForbiddenAddress, network)
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrForbiddenAddress, err)
		}
		if err := checkAddr(ap.Addr(), allowPrivate); err != nil {
			return err
		}
		if LoopbackOnly() && !ap.Addr().Unmap().IsLoopback() {
			return ErrLoopbackOnly
		}
		return nil
	}
}

// checkAddr refuses addresses a webhook may not reach. Metadata services
// are refused even with allowPrivate.
func checkAddr(a netip.Addr, allowPrivate bool) error {
	reason, metadata := classifyAddr(a.WithZone(""))
	if reason == "" || (allowPrivate && !metadata) {
		return nil
	}
	// The rule only: at connect time the address came from a resolver, and
	// a message naming it (in an API answer or source_status.last_error)
	// would map the internal network.
	return forbiddenAddress("the resolved address is %s", reason)
}

// checkLiteral is checkAddr for an address the user wrote in the URL: the
// refusal may quote it, since it is their own input.
func checkLiteral(host string, a netip.Addr, allowPrivate bool) error {
	reason, metadata := classifyAddr(a.WithZone(""))
	if reason == "" || (allowPrivate && !metadata) {
		return nil
	}
	return forbiddenAddress("%s is %s", host, reason)
}

type prefixRule struct {
	prefix netip.Prefix
	reason string
}

func rules(pairs ...string) []prefixRule {
	out := make([]prefixRule, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, prefixRule{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// metadataAddrs are cloud instance-metadata and platform endpoints. Most sit
// in ranges refused anyway; they are listed so they stay refused with
// allowPrivate, and 168.63.129.16 (Azure) is a public address.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OCI, DigitalOcean…
	netip.MustParseAddr("169.254.169.253"): true, // AWS DNS
	netip.MustParseAddr("169.254.169.123"): true, // AWS time
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task credentials
	netip.MustParseAddr("169.254.170.23"):  true, // AWS EKS pod identity
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
	netip.MustParseAddr("fd00:ec2::23"):    true, // AWS EKS pod identity over IPv6
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"):   true, // Azure wire server
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud (classic)
}

var ipv4Rules = rules(
	"0.0.0.0/8", "an unspecified address",
	"10.0.0.0/8", "a private address",
	"100.64.0.0/10", "a shared (CGNAT) address",
	"127.0.0.0/8", "a loopback address",
	"169.254.0.0/16", "a link-local address",
	"172.16.0.0/12", "a private address",
	"192.0.0.0/24", "an address reserved for IETF protocol assignments",
	"192.0.2.0/24", "a documentation address",
	"192.88.99.0/24", "a 6to4 relay anycast address",
	"192.168.0.0/16", "a private address",
	"198.18.0.0/15", "a benchmarking address",
	"198.51.100.0/24", "a documentation address",
	"203.0.113.0/24", "a documentation address",
	"224.0.0.0/4", "a multicast address",
	"240.0.0.0/4", "a reserved or broadcast address",
)

// IPv6 is judged by an allowlist: only global unicast (2000::/3) may be
// reached, minus the special ranges inside it below. Everything else
// (loopback, unspecified, unique local, link-local, multicast, IPv4-mapped
// and -translated forms, discard, local NAT64 …) is refused, so a form
// nobody thought of is refused too. The forms that embed an IPv4 address
// and can route to it (mapped, NAT64, 6to4) are judged by that address.
var globalUnicast = netip.MustParsePrefix("2000::/3")

// ipv6Denied are the special ranges inside 2000::/3.
var ipv6Denied = rules(
	"2001::/32", "a Teredo address",
	"2001:2::/48", "a benchmarking address",
	"2001:10::/28", "an ORCHID address (deprecated)",
	"2001:20::/28", "an ORCHIDv2 address",
	"2001:db8::/32", "a documentation address",
	"3fff::/20", "a documentation address",
)

// ipv6Names name the common ranges outside 2000::/3 in refusals; any other
// address there is "not a global unicast IPv6 address".
var ipv6Names = rules(
	"::/128", "an unspecified address",
	"::1/128", "a loopback address",
	"::ffff:0:0:0/96", "an IPv4-translated address",
	"::/96", "an IPv4-compatible address (deprecated)",
	"64:ff9b:1::/48", "a local-use NAT64 address",
	"100::/64", "a discard-only address",
	"fc00::/7", "a unique local (private) address",
	"fec0::/10", "a site-local address (deprecated)",
	"fe80::/10", "a link-local address",
	"ff00::/8", "a multicast address",
)

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// classifyAddr returns why a is not a public unicast address ("" when it
// is), as a phrase naming the rule ("a loopback address"), never the
// address itself, and whether it is a cloud-metadata address.
func classifyAddr(a netip.Addr) (reason string, metadata bool) {
	if metadataAddrs[a] {
		return "a cloud metadata address", true
	}
	if a.Is4In6() {
		return embedded("IPv4-mapped", a.Unmap())
	}
	if a.Is4() {
		for _, r := range ipv4Rules {
			if r.prefix.Contains(a) {
				return r.reason, false
			}
		}
		return "", false
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return embedded("NAT64", netip.AddrFrom4([4]byte(b[12:16])))
	case sixTo4.Contains(a):
		return embedded("6to4", netip.AddrFrom4([4]byte(b[2:6])))
	}
	if !globalUnicast.Contains(a) {
		for _, r := range ipv6Names {
			if r.prefix.Contains(a) {
				return r.reason, false
			}
		}
		return "not a global unicast IPv6 address", false
	}
	for _, r := range ipv6Denied {
		if r.prefix.Contains(a) {
			return r.reason, false
		}
	}
	return "", false
}

func embedded(form string, v4 netip.Addr) (string, bool) {
	reason, metadata := classifyAddr(v4)
	if reason == "" {
		return "", false
	}
	return "an " + form + " form of " + reason, metadata
}

// NewPlatformClient returns the collectors' client for platform APIs. The
// origins in trusted ("host:port", as the operator configured them: a base
// URL override, a Mastodon instance, the demo's replay server) are dialled
// as written, since the operator chose them and tests and the demo run them
// on loopback. Every other connection (a redirect or a pagination link to
// another host) goes through the webhook guard at connect time, on the
// resolved address, so neither a 302 nor DNS rebinding turns a platform
// into a proxy to the private network. Redirects are followed (at most
// ten, http(s) only); the environment's HTTP(S)_PROXY is ignored, as a
// proxy would hide the destination from the guard.
func NewPlatformClient(allowPrivate bool, timeout time.Duration, trusted []string) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := NewClient(allowPrivate, timeout)
	guarded := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: dialControl(allowPrivate)}
	direct := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: loopbackControl}
	allowed := make(map[string]bool, len(trusted))
	for _, o := range trusted {
		allowed[strings.ToLower(o)] = true
	}
	c.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if allowed[strings.ToLower(addr)] {
			return direct.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxPlatformRedirects {
			return fmt.Errorf("stopped after %d redirects", maxPlatformRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return invalidURL("redirect to a %s URL", req.URL.Scheme)
		}
		return CheckLoopbackURL(req.URL)
	}
	return c
}

const maxPlatformRedirects = 10

// Origin is the "host:port" the HTTP transport dials for raw (an http(s)
// URL), the form NewPlatformClient's trusted list takes; "" when raw is
// not one.
func Origin(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https" || u.Scheme == "wss":
		port = "443"
	case u.Scheme == "http" || u.Scheme == "ws":
		port = "80"
	default:
		return ""
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// loopbackControl is dialControl for a trusted origin: any address, except
// that tests stay on loopback.
func loopbackControl(_, address string, _ syscall.RawConn) error {
	if !LoopbackOnly() {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return ErrLoopbackOnly
	}
	return nil
}
