package webhooksig

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"earshot/internal/webhookverify"
)

// The published Standard Webhooks test vector, as used by the reference
// libraries' sign tests (standard-webhooks/standard-webhooks,
// libraries/go/webhook_test.go, TestWebhookSign). Reproducing it proves
// interoperability: a round trip through our own verifier would pass just as
// well with the wrong separator, base64 alphabet or key decoding.
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTS     = 1614265330
	vectorBody   = `{"test": 2432232314}`
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignStandardWebhooksVector(t *testing.T) {
	got, err := Sign(vectorSecret, vectorID, time.Unix(vectorTS, 0), []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != vectorSig {
		t.Fatalf("Sign = %s, want %s", got, vectorSig)
	}
	// The prefix is optional, as in the reference libraries.
	got, err = Sign(strings.TrimPrefix(vectorSecret, SecretPrefix), vectorID, time.Unix(vectorTS, 0), []byte(vectorBody))
	if err != nil || got != vectorSig {
		t.Fatalf("Sign without prefix = %s, %v", got, err)
	}
	// Sub-second precision must not leak into the signed timestamp.
	got, _ = Sign(vectorSecret, vectorID, time.Unix(vectorTS, 999_999_999), []byte(vectorBody))
	if got != vectorSig {
		t.Fatalf("Sign with nanoseconds = %s, want %s", got, vectorSig)
	}
}

func TestSignatureHeaderRoundTrip(t *testing.T) {
	now := time.Unix(1_760_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	oldSecret, newSecret, otherSecret := NewSecret(), NewSecret(), NewSecret()
	body := []byte(`{"type":"mention.created","data":{"text":"Café ☕ 日本語 \u2028"}}`)

	header, err := SignatureHeader([]string{oldSecret, newSecret}, "evt_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(header, " ")); n != 2 {
		t.Fatalf("header has %d signatures, want 2: %s", n, header)
	}

	tests := []struct {
		name   string
		secret string
		id, ts string
		body   []byte
		now    time.Time
		want   bool
	}{
		{"old secret verifies during rotation", oldSecret, "evt_1", ts, body, now, true},
		{"new secret verifies during rotation", newSecret, "evt_1", ts, body, now, true},
		{"unrelated secret fails", otherSecret, "evt_1", ts, body, now, false},
		{"tampered body fails", oldSecret, "evt_1", ts, []byte(string(body) + " "), now, false},
		{"other id fails", oldSecret, "evt_2", ts, body, now, false},
		{"other timestamp fails", oldSecret, "evt_1", strconv.FormatInt(now.Unix()+1, 10), body, now.Add(time.Second), false},
		{"stale delivery fails", oldSecret, "evt_1", ts, body, now.Add(6 * time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := webhookverify.Header(t, tt.secret, tt.id, tt.ts, header, tt.body, tt.now); got != tt.want {
				t.Fatalf("verify = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b {
		t.Fatal("two secrets are equal")
	}
	if !strings.HasPrefix(a, "whsec_") {
		t.Fatalf("secret %q lacks whsec_", a)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(a, "whsec_"))
	if err != nil || len(key) != 32 {
		t.Fatalf("secret key: %d bytes, %v", len(key), err)
	}
	if _, err := Sign(a, "evt", time.Now(), nil); err != nil {
		t.Fatalf("Sign with a new secret: %v", err)
	}
}

func TestSignRejectsBadSecrets(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_not base64!", "whsec_YWJj$"} {
		if _, err := Sign(s, "evt", time.Now(), nil); !errors.Is(err, ErrInvalidSecret) {
			t.Errorf("Sign(%q) err = %v, want ErrInvalidSecret", s, err)
		}
	}
	if _, err := SignatureHeader(nil, "evt", time.Now(), nil); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("SignatureHeader(nil) err = %v, want ErrInvalidSecret", err)
	}
	if _, err := SignatureHeader([]string{NewSecret(), "whsec_!"}, "evt", time.Now(), nil); !errors.Is(err, ErrInvalidSecret) {
		t.Errorf("SignatureHeader with one bad secret err = %v, want ErrInvalidSecret", err)
	}
}

// TestSignerMatchesSignatureHeader: the lanes' cached Signer signs exactly
// like SignatureHeader, call after call and through a rotation.
func TestSignerMatchesSignatureHeader(t *testing.T) {
	old, cur := NewSecret(), NewSecret()
	var sg Signer
	ts := time.Unix(1700000000, 0)
	for i, secrets := range [][]string{{old}, {old, cur}, {cur}, {old, cur}} {
		body := []byte(strings.Repeat("x", i*100))
		want, err := SignatureHeader(secrets, "evt_1", ts.Add(time.Duration(i)*time.Second), body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sg.Header(secrets, "evt_1", ts.Add(time.Duration(i)*time.Second), body)
		if err != nil || got != want {
			t.Fatalf("call %d: %q %v, want %q", i, got, err, want)
		}
	}
	if _, err := sg.Header([]string{"whsec_!!"}, "evt_1", ts, nil); err == nil {
		t.Fatal("bad secret accepted")
	}
	if _, err := sg.Header(nil, "evt_1", ts, nil); err == nil {
		t.Fatal("no secret accepted")
	}
}
