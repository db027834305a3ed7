package deliver

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"earshot/netguard"
)

// Issue 25 L1: a failed attempt's error (the delivery log's text) names the
// URL's host and the guard's rule or the kind of failure, never the address
// the host resolved to: "localhost" stands in for a rebinding or CNAME'd
// name that resolves to an internal address.
func TestDeliveryErrorNamesNoResolvedAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close() // nothing listens: with the guard lifted, the dial is refused
	url := "http://localhost:" + port + "/hook"
	for _, c := range []struct {
		allowPrivate bool
		want         string
	}{
		{false, "post to http://localhost:" + port + ": refused: the resolved address is a loopback address"},
		{true, "post to http://localhost:" + port + ": connection refused"},
	} {
		res := Send(context.Background(), netguard.NewClient(c.allowPrivate, time.Minute), url, []string{"whsec_" + strings.Repeat("A", 32)}, "msg_1", []byte(`{}`), time.Now())
		if res.Err == nil {
			t.Fatalf("allowPrivate=%v: delivered to a closed port", c.allowPrivate)
		}
		got := res.Err.Error()
		if got != c.want || strings.Contains(got, "127.0.0.1") || strings.Contains(got, "::1") {
			t.Errorf("allowPrivate=%v: error %q, want %q", c.allowPrivate, got, c.want)
		}
	}
}
