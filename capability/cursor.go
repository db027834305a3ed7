package capability

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
)

// Cursors are opaque: a JSON position plus an HMAC binding it to the
// filters and the project it was issued for. A tampered cursor, or one
// reused with other filters or in another project, fails verification.
var cursorKey = []byte("earshot-cursor-v1") // integrity, not secrecy: positions are not secret

func sealCursor(pos any, binding string) string {
	body, _ := json.Marshal(pos)
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write([]byte(binding))
	mac.Write([]byte{0})
	mac.Write(body)
	sum := mac.Sum(nil)[:12]
	return base64.RawURLEncoding.EncodeToString(append(sum, body...))
}

func openCursor(c, binding string, pos any) error {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(raw) < 13 {
		return errors.New("bad cursor")
	}
	sum, body := raw[:12], raw[12:]
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write([]byte(binding))
	mac.Write([]byte{0})
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)[:12]) {
		return errors.New("bad cursor")
	}
	return json.Unmarshal(body, pos)
}

func encodeSeqCursor(seq int64, binding string) string { return sealCursor(seq, binding) }

func decodeSeqCursor(c, binding string) (int64, error) {
	var n int64
	err := openCursor(c, binding, &n)
	return n, err
}
