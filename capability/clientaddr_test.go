package capability_test

import (
	"testing"

	"earshot/capability"
)

// TestClientAddrKeysIPv6PerSlash64: the login limiter's key is the IPv4
// address, or the /64 of an IPv6 one (with or without port, zone or
// IPv4 mapping).
func TestClientAddrKeysIPv6PerSlash64(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7:5555":            "192.0.2.7",
		"192.0.2.7":                 "192.0.2.7",
		"[2001:db8:1:2::1]:443":     "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff::9": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":         "fe80::/64",
		"[::ffff:198.51.100.7]:443": "198.51.100.7",
		"::1":                       "::/64",
		"not-an-address":            "not-an-address",
	} {
		if got := capability.ClientAddr(in); got != want {
			t.Errorf("ClientAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
