// Package webhookverify is for tests only: it checks Standard Webhooks
// signatures the way a receiver would, written from the specification
// rather than from Earshot's signer, so a test that signs with webhooksig
// and verifies here can fail.
package webhookverify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Header is an independent receiver-side check written from the
// specification: any v1 signature in the space-separated header must equal
// the HMAC of "id.timestamp.body" under the secret, and the timestamp must be
// within tolerance of now.
func Header(t testing.TB, secret, id, timestamp, header string, body []byte, now time.Time) bool {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("secret %q: %v", secret, err)
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(ts, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, vs := range strings.Split(header, " ") {
		version, sig, ok := strings.Cut(vs, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
