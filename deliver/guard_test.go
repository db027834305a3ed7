package deliver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"earshot/netguard"
	"earshot/webhooksig"
)

// countingServer is a local receiver that counts the requests it gets, to
// prove that a refused or unfollowed request never reached it.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestClientRefusesPrivateAddressesAtConnectTime(t *testing.T) {
	srv, hits := countingServer(t, nil)
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	client := netguard.NewClient(false, 2*time.Second)

	for _, u := range []string{
		srv.URL,                          // 127.0.0.1
		"http://localhost:" + port + "/", // a name that resolves to loopback
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://2130706433:" + port + "/", // whatever the resolver makes of it
	} {
		t.Run(u, func(t *testing.T) {
			res := Send(context.Background(), client, u, []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
			if res.Outcome != Retry || res.StatusCode != 0 {
				t.Fatalf("outcome %s, status %d, want retry without response", res.Outcome, res.StatusCode)
			}
			if strings.HasPrefix(u, "http://2130706433") {
				return // the system resolver may fail to resolve it instead
			}
			if !errors.Is(res.Err, netguard.ErrForbiddenAddress) {
				t.Fatalf("err = %v, want netguard.ErrForbiddenAddress", res.Err)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("receiver got %d requests, want 0", n)
	}

	// The same client settings with allowPrivate reach the local receiver.
	res := Send(context.Background(), netguard.NewClient(true, 2*time.Second), srv.URL, []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
	if res.Outcome != Success {
		t.Fatalf("allowPrivate: outcome %s, err %v", res.Outcome, res.Err)
	}
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	// A second receiver stands in for an internal service the redirect
	// points at; it must never be reached.
	internal, internalHits := countingServer(t, nil)
	for _, target := range []string{"http://169.254.169.254/latest/meta-data/iam/security-credentials/", internal.URL + "/admin"} {
		t.Run(target, func(t *testing.T) {
			srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target, http.StatusFound)
			})
			res := Send(context.Background(), netguard.NewClient(true, 2*time.Second), srv.URL, []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
			if res.StatusCode != http.StatusFound || res.Outcome != Retry || res.Err == nil {
				t.Fatalf("got status %d outcome %s err %v, want 302 retry with error", res.StatusCode, res.Outcome, res.Err)
			}
		})
	}
	if n := internalHits.Load(); n != 0 {
		t.Fatalf("redirect target got %d requests, want 0", n)
	}
}

func TestClientIgnoresEnvironmentProxy(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://proxy.invalid:3128")
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
	client := netguard.NewClient(true, 0)
	tr, ok := client.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport is %T", client.Transport)
	}
	if tr.Proxy != nil {
		t.Fatal("transport uses a proxy")
	}
	if client.Timeout != netguard.DefaultTimeout {
		t.Fatalf("timeout %s, want %s", client.Timeout, netguard.DefaultTimeout)
	}
	// And a request really goes direct: the proxy name does not resolve.
	srv, hits := countingServer(t, nil)
	if res := Send(context.Background(), client, srv.URL, []string{webhooksig.NewSecret()}, "evt", []byte(`{}`), time.Now()); res.Outcome != Success {
		t.Fatalf("outcome %s, err %v", res.Outcome, res.Err)
	}
	if hits.Load() != 1 {
		t.Fatal("request did not reach the receiver directly")
	}
}

// The operator's outbound proxy (EARSHOT_OUTBOUND_PROXY) carries the
// worker's deliveries: a signed webhook to a public address goes to the
// proxy (which answers here; nothing leaves loopback), signature intact.
func TestWorkerDeliversThroughOutboundProxy(t *testing.T) {
	var asked atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.IsAbs() && r.Header.Get("webhook-signature") != "" {
			asked.Store(r.URL.String())
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer proxy.Close()
	u, err := netguard.ParseProxy(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorker(nil, WorkerConfig{Proxy: u}, nil, nil)
	res := Send(context.Background(), w.client, "http://1.1.1.1/hooks/earshot", []string{webhooksig.NewSecret()}, "evt", []byte(`{}`), time.Now())
	if res.Outcome != Success || asked.Load() != "http://1.1.1.1/hooks/earshot" {
		t.Fatalf("outcome %s (%v), proxy asked %v", res.Outcome, res.Err, asked.Load())
	}
}
