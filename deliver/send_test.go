package deliver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"earshot/internal/webhookverify"
	"earshot/netguard"
	"earshot/webhooksig"
)

func TestSendSignsTheRequest(t *testing.T) {
	var (
		mu   sync.Mutex
		reqs []*http.Request
		got  [][]byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs, got = append(reqs, r), append(got, b)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	oldSecret, newSecret := webhooksig.NewSecret(), webhooksig.NewSecret()
	body := []byte(`{"id":"evt_42","type":"mention.created","data":{"mention":{"text":"Grüße 👋"}}}`)
	client := netguard.NewClient(true, 0)
	first := time.Unix(1_760_000_000, 0)
	retry := first.Add(5 * time.Second)

	for _, now := range []time.Time{first, retry} {
		res := Send(context.Background(), client, srv.URL+"/hook", []string{oldSecret, newSecret}, "evt_42", body, now)
		if res.Outcome != Success || res.StatusCode != http.StatusNoContent || res.Err != nil {
			t.Fatalf("result %+v", res)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, now := range []time.Time{first, retry} {
		r := reqs[i]
		ts := strconv.FormatInt(now.Unix(), 10)
		for k, want := range map[string]string{
			"Content-Type":      "application/json",
			"User-Agent":        "Earshot-Webhooks/1",
			"Webhook-Id":        "evt_42", // the same on every retry
			"Webhook-Timestamp": ts,       // fresh on every retry
		} {
			if got := r.Header.Get(k); got != want {
				t.Errorf("attempt %d: %s = %q, want %q", i, k, got, want)
			}
		}
		if r.Method != http.MethodPost || r.URL.Path != "/hook" {
			t.Errorf("attempt %d: %s %s", i, r.Method, r.URL.Path)
		}
		if !bytes.Equal(got[i], body) {
			t.Errorf("attempt %d: body %q", i, got[i])
		}
		sig := r.Header.Get("Webhook-Signature")
		for _, s := range []string{oldSecret, newSecret} {
			if !webhookverify.Header(t, s, "evt_42", ts, sig, got[i], now) {
				t.Errorf("attempt %d: signature %q does not verify", i, sig)
			}
		}
	}
}

func TestSendOutcomes(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	tests := []struct {
		name       string
		status     int
		retryAfter string
		want       Outcome
		wantAfter  time.Duration
	}{
		{"200", 200, "", Success, 0},
		{"201", 201, "", Success, 0},
		{"204", 204, "", Success, 0},
		{"299", 299, "", Success, 0},
		{"301 is a failure", 301, "", Retry, 0},
		{"302 is a failure", 302, "", Retry, 0},
		{"304 is a failure", 304, "", Retry, 0},
		{"400", 400, "", Retry, 0},
		{"401", 401, "", Retry, 0},
		{"404", 404, "", Retry, 0},
		{"410 disables", 410, "", Gone, 0},
		{"429 without hint", 429, "", Retry, 0},
		{"429 seconds", 429, "120", Retry, 2 * time.Minute},
		{"429 Retry-After ignored on 500", 500, "120", Retry, 0},
		{"503 HTTP date", 503, now.Add(90 * time.Second).UTC().Format(http.TimeFormat), Retry, 90 * time.Second},
		{"503 date in the past", 503, now.Add(-time.Hour).UTC().Format(http.TimeFormat), Retry, 0},
		{"503 negative", 503, "-5", Retry, 0},
		{"503 garbage", 503, "soon", Retry, 0},
		{"503 absurd", 503, "999999999999", Retry, MaxRetryAfter},
		{"500", 500, "", Retry, 0},
		{"502", 502, "", Retry, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				if tt.status >= 300 && tt.status < 400 {
					w.Header().Set("Location", "http://169.254.169.254/")
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, "receiver says "+strconv.Itoa(tt.status))
			}))
			defer srv.Close()
			res := Send(context.Background(), netguard.NewClient(true, 0), srv.URL, []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), now)
			if res.Outcome != tt.want || res.StatusCode != tt.status || res.RetryAfter != tt.wantAfter {
				t.Fatalf("got outcome %s status %d retryAfter %s, want %s %d %s (err %v)",
					res.Outcome, res.StatusCode, res.RetryAfter, tt.want, tt.status, tt.wantAfter, res.Err)
			}
			if (res.Err == nil) != (tt.want == Success) {
				t.Fatalf("err = %v with outcome %s", res.Err, res.Outcome)
			}
			if tt.status != 304 && tt.status != 204 && string(res.Body) != "receiver says "+strconv.Itoa(tt.status) {
				t.Fatalf("body %q", res.Body)
			}
		})
	}
}

func TestSendTruncatesTheResponseBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 200<<10))
	}))
	defer srv.Close()
	res := Send(context.Background(), netguard.NewClient(true, 0), srv.URL, []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
	if res.Outcome != Success || len(res.Body) != 64<<10 {
		t.Fatalf("outcome %s, body %d bytes, want success with %d", res.Outcome, len(res.Body), 64<<10)
	}
}

func TestSendTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)

	start := time.Now()
	res := Send(context.Background(), netguard.NewClient(true, 200*time.Millisecond), srv.URL, []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
	if res.Outcome != Retry || res.StatusCode != 0 || res.Err == nil {
		t.Fatalf("result %+v, want retry with error", res)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("took %s", elapsed)
	}
}

func TestSendNetworkErrorAndCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more

	res := Send(context.Background(), netguard.NewClient(true, time.Second), "http://"+addr+"/", []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
	if res.Outcome != Retry || res.Err == nil {
		t.Fatalf("connection refused: %+v", res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = Send(ctx, netguard.NewClient(true, time.Second), "http://"+addr+"/", []string{webhooksig.NewSecret()}, "evt_1", []byte(`{}`), time.Now())
	if res.Outcome != Retry || res.Err == nil {
		t.Fatalf("cancelled: %+v", res)
	}

	res = Send(context.Background(), netguard.NewClient(true, time.Second), "http://"+addr+"/", []string{"whsec_!"}, "evt_1", []byte(`{}`), time.Now())
	if res.Outcome != Retry || res.Err == nil {
		t.Fatalf("bad secret: %+v", res)
	}
}

func TestSendErrorsDoNotLeakTheURLToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := PostSlack(context.Background(), netguard.NewClient(true, time.Second), "http://"+addr+"/services/T000/B000/SECRETTOKEN?x=SECRETQUERY", []byte(`{"text":"x"}`))
	if res.Err == nil || strings.Contains(res.Err.Error(), "SECRET") {
		t.Fatalf("error %v", res.Err)
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Success: "success", Retry: "retry", Gone: "gone"} {
		if o.String() != want {
			t.Errorf("%d.String() = %q, want %q", o, o.String(), want)
		}
	}
}
