package capability

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"earshot/store"
)

// Cursors are opaque: a JSON position plus an HMAC binding it to the
// filters and the project it was issued for. A tampered cursor, or one
// reused with other filters or in another project, fails verification.
// The key is random per installation, created on first start and kept in
// the database (so cursors survive a restart); with a key in the source,
// anyone could forge a cursor for any binding.

const cursorKeyName = "cursor_hmac_v1"

// loadCursorKey reads (or creates) the installation's cursor key. A
// database that cannot give one (read-only) gets a random key for this
// process: cursors then do not outlive it, but stay unforgeable.
func (s *Service) loadCursorKey() []byte { return s.loadInstallationKey(cursorKeyName, "cursors") }

// formStateKeyName names the key that seals the dashboard's
// Post/Redirect/Get state (ui/prg.go) into a cookie. Every process on one
// database reads the same key, so the GET after a form's POST may land on
// any of them.
const formStateKeyName = "form_state_aead_v1"

// FormStateKey returns the installation's 32-byte key for sealing the
// dashboard's Post/Redirect/Get state (AES-256-GCM in ui/prg.go).
func (s *Service) FormStateKey() []byte { return s.formKey }

// loadInstallationKey reads (or creates) a 32-byte installation key; on a
// database that cannot give one, a random key for this process.
func (s *Service) loadInstallationKey(name, what string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	key, err := s.Store.InstallationSecret(ctx, name, 32)
	if err != nil || len(key) != 32 {
		s.Log.Warn("installation key not stored; "+what+" will not survive a restart or reach another process", "key", name, "err", err)
		key = make([]byte, 32)
		rand.Read(key)
	}
	return key
}

func (s *Service) sealCursor(pos any, binding string) string {
	body, _ := json.Marshal(pos)
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write([]byte(binding))
	mac.Write([]byte{0})
	mac.Write(body)
	sum := mac.Sum(nil)[:12]
	return base64.RawURLEncoding.EncodeToString(append(sum, body...))
}

func (s *Service) openCursor(c, binding string, pos any) error {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(raw) < 13 {
		return errors.New("bad cursor")
	}
	sum, body := raw[:12], raw[12:]
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write([]byte(binding))
	mac.Write([]byte{0})
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)[:12]) {
		return errors.New("bad cursor")
	}
	return json.Unmarshal(body, pos)
}

func (s *Service) encodeSeqCursor(seq int64, binding string) string {
	return s.sealCursor(seq, binding)
}

func (s *Service) decodeSeqCursor(c, binding string) (int64, error) {
	var n int64
	err := s.openCursor(c, binding, &n)
	return n, err
}

// openAfter opens a keyset cursor of list_mentions, list_spikes or
// list_stories into the position after which the next page starts; "" is
// the first page (nil). complete says whether the opened position has its
// keys; a cursor that does not open or lacks them is the one 400 all three
// answer.
func openAfter[P any](s *Service, cursor, binding string, complete func(*P) bool) (*P, error) {
	if cursor == "" {
		return nil, nil
	}
	var pos P
	if err := s.openCursor(cursor, binding, &pos); err != nil || !complete(&pos) {
		return nil, Invalid("cursor", "cursor is malformed, or was issued for other filters or another project")
	}
	return &pos, nil
}

// positionSet: a mention or spike position has its time and id.
func positionSet(p *store.Position) bool { return p.At != "" && p.ID != "" }
