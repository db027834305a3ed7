package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// fakeDNS resolves the test's host names without touching the network.
func fakeDNS(ctx context.Context, network, host string) ([]netip.Addr, error) {
	table := map[string][]string{
		"hooks.example.com": {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"rebind.example":    {"127.0.0.1"},
		"mixed.example":     {"8.8.8.8", "10.0.0.1"},
		"v6loop.example":    {"::1"},
		"metadata.example":  {"169.254.169.254"},
		"mapped.example":    {"::ffff:192.168.1.1"},
	}
	ips, ok := table[strings.TrimSuffix(host, ".")]
	if !ok {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	out := make([]netip.Addr, len(ips))
	for i, s := range ips {
		out[i] = netip.MustParseAddr(s)
	}
	return out, nil
}

func TestValidateURL(t *testing.T) {
	tests := []struct {
		url          string
		allowPrivate bool
		want         error // nil, ErrInvalidURL or ErrForbiddenAddress
	}{
		// Public destinations.
		{"https://hooks.example.com/earshot", false, nil},
		{"https://hooks.example.com:8443/x?token=1", false, nil},
		{"https://8.8.8.8/hook", false, nil},
		{"https://[2606:4700:4700::1111]/hook", false, nil},
		{"https://[64:ff9b::808:808]/hook", false, nil}, // NAT64 of a public address

		// The refused list of docs/decisions.md#webhooks.
		{"https://127.0.0.1/", false, ErrForbiddenAddress},
		{"https://127.8.9.10/", false, ErrForbiddenAddress},
		{"https://[::1]/", false, ErrForbiddenAddress},
		{"https://10.0.0.1/", false, ErrForbiddenAddress},
		{"https://172.16.5.4/", false, ErrForbiddenAddress},
		{"https://192.168.1.1/", false, ErrForbiddenAddress},
		{"https://169.254.169.254/latest/meta-data/", false, ErrForbiddenAddress},
		{"https://169.254.1.1/", false, ErrForbiddenAddress},
		{"https://[::ffff:127.0.0.1]/", false, ErrForbiddenAddress},
		{"https://[::ffff:7f00:1]/", false, ErrForbiddenAddress},
		{"https://[::ffff:169.254.169.254]/", false, ErrForbiddenAddress},
		{"https://0.0.0.0/", false, ErrForbiddenAddress},
		{"https://[::]/", false, ErrForbiddenAddress},
		{"https://100.64.0.1/", false, ErrForbiddenAddress},
		{"https://100.127.255.254/", false, ErrForbiddenAddress},
		{"https://[fd00::1]/", false, ErrForbiddenAddress},
		{"https://[fc00::1]/", false, ErrForbiddenAddress},
		{"https://[fe80::1]/", false, ErrForbiddenAddress},
		{"https://[fe80::1%25eth0]/", false, ErrForbiddenAddress},
		{"https://224.0.0.1/", false, ErrForbiddenAddress},
		{"https://[ff02::1]/", false, ErrForbiddenAddress},
		{"https://255.255.255.255/", false, ErrForbiddenAddress},
		{"https://[64:ff9b::7f00:1]/", false, ErrForbiddenAddress},    // NAT64 of 127.0.0.1
		{"https://[64:ff9b::a9fe:a9fe]/", false, ErrForbiddenAddress}, // NAT64 of metadata
		{"https://[2002:7f00:1::]/", false, ErrForbiddenAddress},      // 6to4 of 127.0.0.1
		{"https://[::127.0.0.1]/", false, ErrForbiddenAddress},        // IPv4-compatible
		{"https://[fd00:ec2::254]/", false, ErrForbiddenAddress},
		{"https://100.100.100.200/", false, ErrForbiddenAddress},
		{"https://168.63.129.16/", false, ErrForbiddenAddress},

		// Numeric IPv4 spellings that resolvers and browsers accept.
		{"https://2130706433/", false, ErrForbiddenAddress},
		{"https://0x7f.1/", false, ErrForbiddenAddress},
		{"https://0x7f000001/", false, ErrForbiddenAddress},
		{"https://017700000001/", false, ErrForbiddenAddress},
		{"https://0177.0.0.1/", false, ErrForbiddenAddress},
		{"https://127.1/", false, ErrForbiddenAddress},
		{"https://127.0.0.1./", false, ErrForbiddenAddress},
		{"https://8.8.8.08/", false, ErrForbiddenAddress},

		// Names whose resolved addresses are not public.
		{"https://rebind.example/", false, ErrForbiddenAddress},
		{"https://v6loop.example/", false, ErrForbiddenAddress},
		{"https://mixed.example/", false, ErrForbiddenAddress}, // one bad address is enough
		{"https://metadata.example/", false, ErrForbiddenAddress},
		{"https://mapped.example/", false, ErrForbiddenAddress},

		// Malformed or refused URLs.
		{"http://hooks.example.com/", false, ErrInvalidURL},
		{"ftp://hooks.example.com/", false, ErrInvalidURL},
		{"hooks.example.com/x", false, ErrInvalidURL},
		{"https:///path", false, ErrInvalidURL},
		{"https://user:pass@hooks.example.com/", false, ErrInvalidURL},
		{"https://hooks.example.com@127.0.0.1/", false, ErrInvalidURL},
		{"https://nx.example/", false, ErrInvalidURL},
		{"https://hooks.example.com:0/", false, ErrInvalidURL},
		{"https://%zz/", false, ErrInvalidURL},

		// EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1.
		{"http://127.0.0.1:8080/hook", true, nil},
		{"http://localhost:8080/hook", true, nil},
		{"https://[::1]/", true, nil},
		{"http://10.0.0.1/", true, nil},
		{"http://169.254.169.254/", true, ErrForbiddenAddress}, // metadata stays refused
		{"http://[::ffff:169.254.169.254]/", true, ErrForbiddenAddress},
		{"http://[fd00:ec2::254]/", true, ErrForbiddenAddress},
		{"http://2130706433/", true, ErrForbiddenAddress},
		{"http://user@127.0.0.1/", true, ErrInvalidURL},
		{"ftp://127.0.0.1/", true, ErrInvalidURL},
	}
	for _, tt := range tests {
		name := tt.url
		if tt.allowPrivate {
			name += " (allowPrivate)"
		}
		t.Run(name, func(t *testing.T) {
			err := validateURL(context.Background(), tt.url, tt.allowPrivate, fakeDNS)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestValidateURLLocalhost uses the real resolver: localhost is answered
// from /etc/hosts or by the resolver itself, never from the network.
func TestValidateURLLocalhost(t *testing.T) {
	if err := ValidateURL("https://localhost/hook", false); !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("ValidateURL(localhost) = %v, want ErrForbiddenAddress", err)
	}
	if err := ValidateURL("http://localhost:9000/hook", true); err != nil {
		t.Fatalf("ValidateURL(localhost, allowPrivate) = %v", err)
	}
}

func TestClientRefusesMetadataEvenWhenPrivateAllowed(t *testing.T) {
	// The dialer's check runs before connect, so this never touches the
	// network.
	client := NewClient(true, 2*time.Second)
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://100.100.100.200/"} {
		_, err := client.Get(u)
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("GET %s: err = %v, want ErrForbiddenAddress", u, err)
		}
	}
}

// TestValidateURLReasons: a refused URL says why in words for the API
// caller: the host and what is wrong, never the resolver's address or Go's
// error text.
func TestValidateURLReasons(t *testing.T) {
	resolver := func(err error) lookupFunc {
		return func(ctx context.Context, network, host string) ([]netip.Addr, error) {
			if err != nil {
				return nil, err
			}
			return fakeDNS(ctx, network, host)
		}
	}
	tests := []struct {
		name   string
		url    string
		lookup lookupFunc
		kind   error
		reason string
	}{
		{"no such host", "https://example.com/hook",
			resolver(&net.DNSError{Err: "no such host", Name: "example.com", Server: "10.255.255.53:53", IsNotFound: true}),
			ErrInvalidURL, "host example.com does not resolve"},
		{"resolver timeout", "https://slow.example/hook",
			resolver(&net.DNSError{Err: "i/o timeout", Name: "slow.example", Server: "10.255.255.53:53", IsTimeout: true}),
			ErrInvalidURL, "host slow.example could not be resolved in time"},
		{"resolver failure", "https://broken.example/hook",
			resolver(&net.DNSError{Err: "server misbehaving", Name: "broken.example", Server: "10.255.255.53:53"}),
			ErrInvalidURL, "host broken.example could not be resolved"},
		{"bad escape", "https://%zz/", resolver(nil), ErrInvalidURL, "not a valid URL"},
		{"http", "http://hooks.example.com/", resolver(nil), ErrInvalidURL, "https is required"},
		{"resolves to loopback", "https://rebind.example/", resolver(nil), ErrForbiddenAddress, "host rebind.example resolves to a loopback address"},
		{"literal private", "https://10.0.0.1/", resolver(nil), ErrForbiddenAddress, "10.0.0.1 is a private address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateURL(context.Background(), tt.url, false, tt.lookup)
			var ue *URLError
			if !errors.As(err, &ue) || !errors.Is(err, tt.kind) {
				t.Fatalf("err = %#v, want a URLError of kind %v", err, tt.kind)
			}
			if ue.Reason != tt.reason {
				t.Errorf("reason %q, want %q", ue.Reason, tt.reason)
			}
			for _, leak := range []string{"10.255.255.53", "lookup", ":53", "parse "} {
				if strings.Contains(ue.Reason, leak) {
					t.Errorf("reason %q exposes %q", ue.Reason, leak)
				}
			}
		})
	}
}
