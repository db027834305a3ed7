// Package webhooksig implements Standard Webhooks signing: the whsec_
// secrets Earshot issues to webhooks, and the webhook-signature header of
// every delivery. The API creates secrets; delivery signs with them.
package webhooksig

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix marks a Standard Webhooks signing secret; the rest is the
// base64 of the HMAC key.
const SecretPrefix = "whsec_"

// secretBytes is the key size NewSecret draws. docs/decisions.md#webhooks
// asks for 24 or more; 32 is the SHA-256 output size, the usual HMAC-SHA256 key length.
const secretBytes = 32

// ErrInvalidSecret is returned when a secret is not whsec_ + base64 of a
// non-empty key.
var ErrInvalidSecret = errors.New("invalid webhook secret")

// NewSecret returns a fresh signing secret, whsec_ + base64 of 32 random
// bytes. It is shown to the user once and stored for signing.
func NewSecret() string {
	key := make([]byte, secretBytes)
	// crypto/rand.Read never returns an error (it panics if the OS source
	// fails), so there is nothing to handle.
	_, _ = rand.Read(key)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// secretKey decodes the HMAC key from a secret. The prefix is optional, as
// in the reference libraries, so a key imported without it still works.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSecret, err)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: empty key", ErrInvalidSecret)
	}
	return key, nil
}

// Sign returns the Standard Webhooks signature "v1,<base64 HMAC-SHA256>" of
// "msgID.timestamp.body", with timestamp in Unix seconds.
func Sign(secret, msgID string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// SignatureHeader returns the webhook-signature header value: one signature
// per secret, separated by spaces. During a secret rotation the caller
// passes both the old and the new secret so receivers verify with either.
func SignatureHeader(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", fmt.Errorf("%w: no secret", ErrInvalidSecret)
	}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, msgID, ts, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// Signer makes webhook-signature headers like SignatureHeader, keeping
// each secret's decoded key and HMAC state: a lane signs every delivery of
// its webhook with the same one or two secrets. Not safe for concurrent
// use (one per lane).
type Signer struct {
	macs map[string]hash.Hash
	sum  []byte
	buf  []byte
}

// Header returns the webhook-signature header value, as SignatureHeader.
func (s *Signer) Header(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", fmt.Errorf("%w: no secret", ErrInvalidSecret)
	}
	if s.macs == nil {
		s.macs = map[string]hash.Hash{}
	}
	var tsb [20]byte
	stamp := strconv.AppendInt(tsb[:0], ts.Unix(), 10)
	s.buf = s.buf[:0]
	for i, secret := range secrets {
		mac, ok := s.macs[secret]
		if !ok {
			key, err := secretKey(secret)
			if err != nil {
				return "", err
			}
			mac = hmac.New(sha256.New, key)
			s.macs[secret] = mac
		}
		mac.Reset()
		mac.Write([]byte(msgID))
		mac.Write([]byte{'.'})
		mac.Write(stamp)
		mac.Write([]byte{'.'})
		mac.Write(body)
		s.sum = mac.Sum(s.sum[:0])
		if i > 0 {
			s.buf = append(s.buf, ' ')
		}
		s.buf = append(s.buf, "v1,"...)
		s.buf = base64.StdEncoding.AppendEncode(s.buf, s.sum)
	}
	return string(s.buf), nil
}
