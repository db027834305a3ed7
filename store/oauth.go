package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// OAuth clients, codes and tokens (migration 280). A grant is an API key:
// tokens authenticate as it, and revoking the key ends them.

// OAuthClient is a registered client (RFC 7591).
type OAuthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	CreatedAt    string
}

// OAuthCode is an approved authorization waiting for its exchange.
type OAuthCode struct {
	ClientID, UserID, ProjectID string
	Scopes                      []string
	RedirectURI, Challenge      string
}

// CreateOAuthClient registers a client.
func (s *Store) CreateOAuthClient(ctx context.Context, name string, redirectURIs []string) (*OAuthClient, error) {
	c := &OAuthClient{ID: uuid.NewString(), Name: name, RedirectURIs: redirectURIs, CreatedAt: now()}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO oauth_clients(id, name, redirect_uris, created_at) VALUES (?,?,?,?)`,
		c.ID, c.Name, strings.Join(redirectURIs, "\n"), c.CreatedAt)
	return c, err
}

// OAuthClientByID returns a client, or ErrNotFound.
func (s *Store) OAuthClientByID(ctx context.Context, id string) (*OAuthClient, error) {
	var c OAuthClient
	var uris string
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT id, name, redirect_uris, created_at FROM oauth_clients WHERE id = ?`, id).
		Scan(&c.ID, &c.Name, &uris, &c.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	c.RedirectURIs = strings.Split(uris, "\n")
	return &c, nil
}

// CreateOAuthCode stores an approved authorization under code's hash and
// records that its user approved the client (migration 295), which keeps
// the client from PurgeOAuth for as long as the user's account exists.
func (s *Store) CreateOAuthCode(ctx context.Context, code string, c *OAuthCode, ttl time.Duration) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_codes(code_hash, client_id, user_id, project_id, scopes, redirect_uri, challenge, expires_at) VALUES (?,?,?,?,?,?,?,?)`,
			tokenHash(code), c.ClientID, c.UserID, c.ProjectID, joinScopes(c.Scopes), c.RedirectURI, c.Challenge, FormatTime(time.Now().Add(ttl)))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO oauth_client_approvals(client_id, user_id, approved_at) VALUES (?,?,?) ON CONFLICT (client_id, user_id) DO NOTHING`,
			c.ClientID, c.UserID, now())
		return err
	})
}

// TakeOAuthCode removes a code and returns it when it had not expired: a
// code is used once, even by a failed exchange.
func (s *Store) TakeOAuthCode(ctx context.Context, code string) (*OAuthCode, error) {
	var c OAuthCode
	var scopes, exp string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT client_id, user_id, project_id, scopes, redirect_uri, challenge, expires_at FROM oauth_codes WHERE code_hash = ?`, tokenHash(code)).
			Scan(&c.ClientID, &c.UserID, &c.ProjectID, &scopes, &c.RedirectURI, &c.Challenge, &exp)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM oauth_codes WHERE code_hash = ? OR expires_at <= ?`, tokenHash(code), now())
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if exp <= now() {
		return nil, ErrNotFound
	}
	c.Scopes = splitScopes(scopes)
	return &c, nil
}

// CreateOAuthToken stores a token of kind access or refresh for keyID.
func (s *Store) CreateOAuthToken(ctx context.Context, token, kind, keyID, clientID string, ttl time.Duration) error {
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO oauth_tokens(token_hash, kind, key_id, client_id, expires_at) VALUES (?,?,?,?,?)`,
		tokenHash(token), kind, keyID, clientID, FormatTime(time.Now().Add(ttl)))
	return err
}

// OAuthTokenKey returns the live key a live token of kind stands for, and
// the token's client; ErrNotFound when the token is unknown, expired, or
// its key revoked.
func (s *Store) OAuthTokenKey(ctx context.Context, token, kind string) (*APIKey, string, error) {
	var clientID string
	row := s.rd(ctx).QueryRowContext(ctx, `SELECT t.client_id, k.id, k.project_id, k.name, k.prefix, k.last4, k.scopes, COALESCE(k.created_by,''), k.created_at, k.last_used_at, k.revoked_at FROM oauth_tokens t JOIN api_keys k ON k.id = t.key_id
		WHERE t.token_hash = ? AND t.kind = ? AND t.expires_at > ? AND k.revoked_at IS NULL`, tokenHash(token), kind, now())
	var k APIKey
	var scopes string
	err := row.Scan(&clientID, &k.ID, &k.ProjectID, &k.Name, &k.Prefix, &k.Last4, &scopes, &k.CreatedBy, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", ErrNotFound
	}
	if err != nil {
		return nil, "", err
	}
	k.Scopes = splitScopes(scopes)
	return &k, clientID, nil
}

// DeleteOAuthToken removes one token (a used refresh token, a revocation);
// it reports whether there was one.
func (s *Store) DeleteOAuthToken(ctx context.Context, token string) (bool, error) {
	res, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM oauth_tokens WHERE token_hash = ?`, tokenHash(token))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// PurgeOAuthTokens drops the expired tokens of keyID (a refresh keeps the
// table from growing with every hour of use).
func (s *Store) PurgeOAuthTokens(ctx context.Context, keyID string) error {
	_, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM oauth_tokens WHERE key_id = ? AND expires_at <= ?`, keyID, now())
	return err
}

// UnapprovedOAuthClientTTL is how long a registered client nobody has
// approved is kept: registration is open (RFC 7591), so records nobody
// wants must not pile up. A day leaves a person who registers a host and
// approves it tomorrow only the registration to redo (hosts register again
// when their client_id is refused).
const UnapprovedOAuthClientTTL = 24 * time.Hour

// PurgeOAuth deletes, as of at, the registered clients older than
// UnapprovedOAuthClientTTL that no user approved (an approved client stays,
// even once its grants are revoked: it belongs to the person who approved
// it), and the expired codes and tokens. It returns how many clients went.
func (s *Store) PurgeOAuth(ctx context.Context, at time.Time) (int64, error) {
	t := FormatTime(at)
	if _, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM oauth_codes WHERE expires_at <= ?`, t); err != nil {
		return 0, fmt.Errorf("purge oauth codes: %w", err)
	}
	if _, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM oauth_tokens WHERE expires_at <= ?`, t); err != nil {
		return 0, fmt.Errorf("purge oauth tokens: %w", err)
	}
	// The token and code conditions are a second guard: a client with a
	// live grant is never deleted, whatever the approvals say.
	res, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM oauth_clients WHERE created_at < ?
		AND NOT EXISTS (SELECT 1 FROM oauth_client_approvals a WHERE a.client_id = oauth_clients.id)
		AND NOT EXISTS (SELECT 1 FROM oauth_tokens k WHERE k.client_id = oauth_clients.id)
		AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.client_id = oauth_clients.id)`,
		FormatTime(at.Add(-UnapprovedOAuthClientTTL)))
	if err != nil {
		return 0, fmt.Errorf("purge unapproved oauth clients: %w", err)
	}
	return res.RowsAffected()
}
