package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// TrustedProxies is the set of addresses (EARSHOT_TRUSTED_PROXIES) whose
// forwarding headers are believed. Any client can write X-Forwarded-For, so
// the headers are read only when the TCP peer itself is one of these
// proxies; the zero value trusts nobody and the peer is the client.
type TrustedProxies struct {
	prefixes []netip.Prefix
}

// ParseTrustedProxies reads a comma-separated list of CIDRs
// ("10.0.0.0/8") and single addresses ("127.0.0.1", "::1"). White space
// around entries is dropped; an empty string trusts nobody.
func ParseTrustedProxies(s string) (TrustedProxies, error) {
	var t TrustedProxies
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return TrustedProxies{}, fmt.Errorf("%q is not a CIDR like 10.0.0.0/8 or fd00::/8", part)
			}
			t.prefixes = append(t.prefixes, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return TrustedProxies{}, fmt.Errorf("%q is not an IP address or a CIDR like 10.0.0.0/8", part)
		}
		a = a.Unmap()
		t.prefixes = append(t.prefixes, netip.PrefixFrom(a, a.BitLen()))
	}
	return t, nil
}

// String lists the ranges, for the start-up log.
func (t TrustedProxies) String() string {
	s := make([]string, len(t.prefixes))
	for i, p := range t.prefixes {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// contains reports whether a is one of the trusted proxies.
func (t TrustedProxies) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// origin is where a request really comes from: the client's address, and
// the scheme and host the client used, as the trusted proxies report them.
type origin struct {
	client string // an IP address (or the raw peer when it is not one)
	https  bool
	host   string // the Host the client sent ("" when no proxy told)
}

// hop is one proxy's record of the connection it received: the address it
// came from and, when known, the scheme and host the client used.
type hop struct {
	addr  string
	proto string
	host  string
}

// originOf works out the client of r. When the TCP peer is not a trusted
// proxy, the peer is the client and the forwarding headers are ignored.
// Otherwise the chain of addresses in X-Forwarded-For (or, when there is
// none, Forwarded, RFC 7239) is walked from the right, skipping trusted
// proxies: the right-most untrusted address is the client (addresses left
// of it were written by the client itself and may be anything). An entry
// that is not an address ("unknown", an obfuscated name) ends the walk at
// the last proxy that is known.
//
// X-Forwarded-For wins when both arrive: it is the header Caddy, nginx,
// Traefik, HAProxy and the cloud load balancers append to, and they pass a
// Forwarded header a client wrote through untouched, so reading Forwarded
// first would let any client choose its address.
func (t TrustedProxies) originOf(r *http.Request) origin {
	peer := r.RemoteAddr
	if h, _, err := net.SplitHostPort(peer); err == nil {
		peer = h
	}
	o := origin{client: peer, https: r.TLS != nil}
	pa, err := netip.ParseAddr(peer)
	if err != nil || len(t.prefixes) == 0 || !t.contains(pa) {
		return o
	}
	hops := xForwardedHops(r.Header)
	if len(hops) == 0 {
		hops = forwardedHops(r.Header)
	}
	if len(hops) == 0 {
		return o
	}
	k := -1
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := hopAddr(hops[i].addr)
		if !ok {
			break
		}
		k = i
		if !t.contains(a) {
			break
		}
	}
	if k < 0 {
		return o // the nearest entry is unreadable: only the peer is known
	}
	a, _ := hopAddr(hops[k].addr)
	o.client = a.String()
	if p := strings.ToLower(hops[k].proto); p != "" {
		o.https = p == "https"
	}
	o.host = hops[k].host
	return o
}

// hopAddr reads a node of Forwarded or X-Forwarded-For: an IPv4 address,
// a bracketed or bare IPv6 address, either with or without a port.
func hopAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"`))
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if strings.HasPrefix(s, "[") {
		if end := strings.Index(s, "]"); end > 0 {
			if a, err := netip.ParseAddr(s[1:end]); err == nil {
				return a.Unmap(), true
			}
		}
	}
	return netip.Addr{}, false
}

// forwardedHops parses every Forwarded header line (RFC 7239):
// comma-separated elements of semicolon-separated name=value pairs. nil
// when there is no Forwarded header.
func forwardedHops(h http.Header) []hop {
	lines := h.Values("Forwarded")
	if len(lines) == 0 {
		return nil
	}
	hops := []hop{}
	for _, line := range lines {
		for _, elem := range splitQuoted(line, ',') {
			var hp hop
			for _, pair := range splitQuoted(elem, ';') {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if !ok {
					continue
				}
				v = strings.Trim(strings.TrimSpace(v), `"`)
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "for":
					hp.addr = v
				case "proto":
					hp.proto = v
				case "host":
					hp.host = v
				}
			}
			hops = append(hops, hp)
		}
	}
	return hops
}

// splitQuoted splits s at sep outside double quotes (an IPv6 node is
// quoted, "[2001:db8::1]:4711", and may hold neither sep).
func splitQuoted(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// xForwardedHops reads X-Forwarded-For (every line, in order) with
// X-Forwarded-Proto and X-Forwarded-Host. A proxy usually sets the latter
// two once, for the client's side; when they hold one value per address,
// each goes with its address, else the right-most value (the nearest
// proxy's) goes with every address.
func xForwardedHops(h http.Header) []hop {
	addrs := listValues(h, "X-Forwarded-For")
	protos := listValues(h, "X-Forwarded-Proto")
	hosts := listValues(h, "X-Forwarded-Host")
	hops := make([]hop, len(addrs))
	for i, a := range addrs {
		hops[i] = hop{addr: a, proto: pick(protos, i, len(addrs)), host: pick(hosts, i, len(addrs))}
	}
	return hops
}

func pick(vals []string, i, n int) string {
	switch {
	case len(vals) == 0:
		return ""
	case len(vals) == n:
		return vals[i]
	default:
		return vals[len(vals)-1]
	}
}

// listValues is a comma-separated header's values over all its lines.
func listValues(h http.Header, name string) []string {
	var out []string
	for _, line := range h.Values(name) {
		for _, v := range strings.Split(line, ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
