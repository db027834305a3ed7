package collect

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Issue 25 M1: an error of a platform request (its text becomes
// source_status.last_error, which viewers read) names the status code or
// the kind of failure, never the answer's content or the request's query
// (where some platforms take their token).
func TestErrorsQuoteNoForeignContent(t *testing.T) {
	const secret = "secret-body-81f2"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/denied" {
			http.Error(w, secret, http.StatusForbidden)
			return
		}
		w.Write([]byte(secret))
	}))
	defer srv.Close()
	h := &HTTP{Client: srv.Client(), Source: "test", Retries: 1, Backoff: 1}
	var v map[string]any
	_, err := h.GetJSON(context.Background(), srv.URL+"/denied", &v)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("403: %v", err)
	}
	_, err = h.GetJSON(context.Background(), srv.URL+"/text", &v)
	if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "'s'") {
		t.Errorf("200 that is not JSON: %v", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	_, err = h.GetJSON(context.Background(), closed+"/v1?access_token=tok-"+secret, &v)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("refused connection: %v", err)
	}
}
