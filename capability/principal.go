package capability

import (
	"context"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"earshot/store"

	"github.com/google/uuid"
)

// Credential kinds.
const (
	KindKey     = "key"
	KindSession = "session"
	KindSystem  = "system" // the CLI and internal jobs
)

// Principal is who is calling, in which project, with which scopes.
type Principal struct {
	Kind      string
	UserID    string // the user (session), or the key's creator
	KeyID     string
	SessionID string
	ProjectID string // the current project; "" when none is chosen
	Role      string
	Scopes    []string
}

// Has reports whether the principal holds scope.
func (p *Principal) Has(scope string) bool {
	if p.Kind == KindSystem {
		return true
	}
	for _, s := range p.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// CredentialID identifies the credential (rate limiting, logs).
func (p *Principal) CredentialID() string {
	switch p.Kind {
	case KindKey:
		return "key:" + p.KeyID
	case KindSession:
		return "session:" + p.SessionID
	}
	return "system"
}

type principalKey struct{}

// WithPrincipal stores p in ctx.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal stored in ctx, or nil.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// CanonicalID returns a UUID in the lower-case form ids are stored in;
// anything that is not a UUID is returned unchanged (it finds nothing).
func CanonicalID(s string) string {
	if checkFormat("uuid", s) != nil {
		return s
	}
	return strings.ToLower(s)
}

func checkFormat(format, s string) error {
	switch format {
	case "uuid":
		if _, err := uuid.Parse(s); err != nil || len(s) != 36 {
			return fmt.Errorf("must be a UUID")
		}
	case "uri":
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("must be an absolute http(s) URL")
		}
	case "date-time":
		if _, err := ParseTimeParam(s); err != nil {
			return fmt.Errorf("must be an ISO 8601 timestamp, e.g. 2026-09-02T10:00:00Z")
		}
	case "email":
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s {
			return fmt.Errorf("must be an email address")
		}
	case "password":
		// Any string: the format only tells clients to mask it (OpenAPI's
		// "password"), and keeps white space meaningful (no NotBlank).
	default:
		return fmt.Errorf("unknown format %s", format)
	}
	return nil
}

// ParseTimeParam accepts RFC 3339 with or without fractional seconds, and
// a bare date (midnight UTC): the filter's since/until reading, so every
// time parameter reads alike.
func ParseTimeParam(s string) (time.Time, error) { return store.ParseFilterTime(s) }
