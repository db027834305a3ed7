package capability

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"math/big"
	"strings"

	"earshot/api"
	"earshot/store"
)

// API keys: "esk_" + 43 base62 characters (32 random bytes) + 6 base62
// characters of CRC-32 checksum, so a malformed key is refused before any
// lookup and secret scanners can recognise the format.
const (
	keyPrefix   = "esk_"
	keyBodyLen  = 43
	keyCheckLen = 6
	base62      = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

func encode62(n *big.Int, width int) string {
	b := make([]byte, width)
	base := big.NewInt(62)
	m := new(big.Int).Set(n)
	r := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		m.DivMod(m, base, r)
		b[i] = base62[r.Int64()]
	}
	return string(b)
}

// NewAPIKey returns a new key string.
func NewAPIKey() string {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		panic(err)
	}
	body := encode62(new(big.Int).SetBytes(raw), keyBodyLen)
	return keyPrefix + body + checksum(body)
}

func checksum(body string) string {
	return encode62(big.NewInt(int64(crc32.ChecksumIEEE([]byte(body)))), keyCheckLen)
}

// WellFormedKey checks prefix, alphabet, length and checksum.
func WellFormedKey(k string) bool {
	if !strings.HasPrefix(k, keyPrefix) || len(k) != len(keyPrefix)+keyBodyLen+keyCheckLen {
		return false
	}
	rest := k[len(keyPrefix):]
	for i := 0; i < len(rest); i++ {
		if !strings.ContainsRune(base62, rune(rest[i])) {
			return false
		}
	}
	return checksum(rest[:keyBodyLen]) == rest[keyBodyLen:]
}

// HashKey is what the store keeps.
func HashKey(k string) []byte {
	h := sha256.Sum256([]byte(k))
	return h[:]
}

type CreateKeyIn struct {
	Name   string   `json:"name,omitempty" validate:"maxlen=80" doc:"A label, e.g. where the key is used."`
	Scopes []string `json:"scopes,omitempty" validate:"maxitems=9,enum=projects:read|projects:write|monitors:read|monitors:write|mentions:read|mentions:write|alerts:write|usage:read|webhooks:write" doc:"Scopes to grant; all nine when omitted. A key never gets more than its creator's role allows."`
}

// CreateKeyOut is what create_api_key answers.
type CreateKeyOut struct {
	*api.APIKey
	Key *string `json:"key" doc:"The API key, shown once; only its hash is stored. null in an idempotent replay: the secret is shown once and not stored."`
}

// IssuedKey is a new key and its record (the CLI and the demo print Key).
type IssuedKey struct {
	*api.APIKey
	Key string `json:"key"`
}

type KeysOut struct {
	Keys []*api.APIKey `json:"keys"`
}

func (s *Service) keyCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "create_api_key", Title: "Create an API key", Group: "api key", Method: "POST", Path: "/api/v1/keys",
			Scope: ProjectsWrite, Write: true, SessionOnly: true, Secrets: []string{"key"},
			Description: "Create an API key for the current project with the given scopes. The key is shown once in the response; only its hash is stored."},
			s.createKey),
		Define(Capability{Name: "list_api_keys", Title: "List API keys", Group: "api key", Method: "GET", Path: "/api/v1/keys",
			Scope: ProjectsRead, SessionOnly: true, Idempotent: true,
			Description: "List the project's API keys: prefix and last 4 characters, scopes, creation, last use and revocation times."},
			s.listKeys),
		Define(Capability{Name: "revoke_api_key", Title: "Revoke an API key", Group: "api key", Method: "DELETE", Path: "/api/v1/keys/:id",
			Scope: ProjectsWrite, Write: true, SessionOnly: true, Destructive: true, Idempotent: true,
			Description: "Revoke an API key; it stops working on the next request."},
			s.revokeKey),
	}
}

// IssueKey creates a key for projectID on the box (earshot key create,
// the demo): a password change of createdBy leaves it alone.
func (s *Service) IssueKey(ctx context.Context, projectID, createdBy, name string, scopes []string) (*IssuedKey, error) {
	return s.issueKey(ctx, projectID, createdBy, name, scopes, false)
}

// issueKey creates a key; bySession marks one a session minted
// (create_api_key), which its creator's password change revokes.
func (s *Service) issueKey(ctx context.Context, projectID, createdBy, name string, scopes []string, bySession bool) (*IssuedKey, error) {
	if len(scopes) == 0 {
		scopes = AllScopes
	}
	k := NewAPIKey()
	rec := &store.APIKey{ProjectID: projectID, Name: name, Prefix: k[:len(keyPrefix)+4], Last4: k[len(k)-4:], Scopes: scopes, CreatedBy: createdBy, MintedBySession: bySession}
	if err := s.Store.CreateAPIKey(ctx, rec, HashKey(k)); err != nil {
		return nil, err
	}
	return &IssuedKey{APIKey: rec.Record(), Key: k}, nil
}

func (s *Service) createKey(ctx context.Context, p *Principal, in *CreateKeyIn) (*CreateKeyOut, error) {
	scopes := in.Scopes
	if scopes == nil {
		scopes = RoleScopes[p.Role]
	} else if len(scopes) == 0 {
		// Sent but empty: a key that can do nothing is a mistake, not a
		// request for every scope.
		return nil, Invalid("scopes", "scopes must name at least one scope")
	}
	for i, sc := range scopes {
		if !p.Has(sc) {
			return nil, Invalid("scopes["+itoa(i)+"]", "your role cannot grant %s", sc)
		}
	}
	k, err := s.issueKey(ctx, p.ProjectID, p.UserID, in.Name, dedupe(scopes), p.Kind == KindSession)
	if err != nil {
		return nil, err
	}
	return &CreateKeyOut{APIKey: k.APIKey, Key: &k.Key}, nil
}

func (s *Service) listKeys(ctx context.Context, p *Principal, _ *Empty) (*KeysOut, error) {
	ks, err := s.Store.ListAPIKeys(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	return &KeysOut{Keys: store.APIKeyRecords(ks)}, nil
}

func (s *Service) revokeKey(ctx context.Context, p *Principal, in *IDPath) (*api.APIKey, error) {
	k, err := s.Store.RevokeAPIKey(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	return k.Record(), nil
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
