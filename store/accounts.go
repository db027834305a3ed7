package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// User is a dashboard user.
type User struct {
	ID           string
	Email        string
	FullName     string
	PasswordHash string `json:"-"`
	CreatedAt    string
	TimeZone     string // IANA name the dashboard shows times in; "" is UTC
}

// CreateUser inserts a user; a taken email is ErrConflict.
func (s *Store) CreateUser(ctx context.Context, email, passwordHash, fullName string) (*User, error) {
	u := &User{ID: uuid.NewString(), Email: email, FullName: fullName, PasswordHash: passwordHash, CreatedAt: now()}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO users(id,email,password_hash,full_name,created_at) VALUES (?,?,?,?,?)`,
		u.ID, u.Email, u.PasswordHash, u.FullName, u.CreatedAt)
	if isUnique(err) {
		return nil, fmt.Errorf("a user with the email %s already exists: %w", email, ErrConflict)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

const userCols = `id, email, password_hash, full_name, created_at, time_zone`

func scanUser(row interface{ Scan(...any) error }) (*User, error) {
	var u User
	if err := row.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.FullName, &u.CreatedAt, &u.TimeZone); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &u, nil
}

// UserByEmail finds a user by email, case-insensitively.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	return scanUser(s.rd(ctx).QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE email = ?`, email))
}

// UserByID finds a user.
func (s *Store) UserByID(ctx context.Context, id string) (*User, error) {
	return scanUser(s.rd(ctx).QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
}

// CountUsers is used by the first-run page.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n)
	return n, err
}

// UpdateUserName sets a user's display name.
func (s *Store) UpdateUserName(ctx context.Context, id, fullName string) (*User, error) {
	res, err := s.wr(ctx).ExecContext(ctx, `UPDATE users SET full_name = ? WHERE id = ?`, fullName, id)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, ErrNotFound
	}
	return s.UserByIDWriter(ctx, id)
}

// UserByIDWriter reads through the writer so a caller sees its own write.
func (s *Store) UserByIDWriter(ctx context.Context, id string) (*User, error) {
	return scanUser(s.wr(ctx).QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
}

// Session is a logged-in user's bearer credential (token stored hashed).
type Session struct {
	ID         string
	UserID     string
	ExpiresAt  time.Time
	LastSeenAt time.Time // when the session was last used (recorded at most once a minute)
}

// CreateSession stores the hash of token.
func (s *Store) CreateSession(ctx context.Context, userID, token string, ttl time.Duration) (*Session, error) {
	h := sha256.Sum256([]byte(token))
	t := time.Now().UTC()
	sess := &Session{ID: uuid.NewString(), UserID: userID, ExpiresAt: t.Add(ttl), LastSeenAt: t}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO sessions(id,token_hash,user_id,created_at,expires_at,last_seen_at) VALUES (?,?,?,?,?,?)`,
		sess.ID, h[:], userID, FormatTime(t), FormatTime(sess.ExpiresAt), FormatTime(t))
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// SessionByToken returns the live session for token, or ErrNotFound: one
// past its expiry, or unused since idleSince (zero: no idle limit), is
// not live.
func (s *Store) SessionByToken(ctx context.Context, token string, idleSince time.Time) (*Session, error) {
	h := sha256.Sum256([]byte(token))
	var sess Session
	var exp, seen string
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT id, user_id, expires_at, COALESCE(last_seen_at, created_at) FROM sessions
		WHERE token_hash = ? AND expires_at > ? AND COALESCE(last_seen_at, created_at) > ?`, h[:], now(), FormatTime(idleSince)).
		Scan(&sess.ID, &sess.UserID, &exp, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sess.ExpiresAt, _ = ParseTime(exp)
	sess.LastSeenAt, _ = ParseTime(seen)
	return &sess, nil
}

// TouchSession records that a session was used at t (the idle timeout
// counts from it).
func (s *Store) TouchSession(ctx context.Context, id string, t time.Time) error {
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ? AND (last_seen_at IS NULL OR last_seen_at < ?)`,
		FormatTime(t), id, FormatTime(t))
	return err
}

// SetSessionLastSeen back-dates (or moves) a session's last use; tests
// use it to make a session idle without waiting.
func (s *Store) SetSessionLastSeen(ctx context.Context, id string, t time.Time) error {
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ?`, FormatTime(t), id)
	return err
}

// DeleteSession logs a session out.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	_, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// APIKey is a project-scoped credential; only the SHA-256 of the secret is kept.
type APIKey struct {
	ID        string
	ProjectID string
	Name      string
	Prefix    string
	Last4     string
	Scopes    []string
	CreatedBy string
	// MintedBySession: made by a session (create_api_key), so a password
	// change or reset of CreatedBy revokes it; false for keys made on the
	// box (earshot key create, the demo).
	MintedBySession bool
	CreatedAt       string
	LastUsedAt      *string
	RevokedAt       *string
}

// CreateAPIKey stores a key by hash.
func (s *Store) CreateAPIKey(ctx context.Context, k *APIKey, hash []byte) error {
	k.ID = uuid.NewString()
	k.CreatedAt = now()
	var createdBy any
	if k.CreatedBy != "" {
		createdBy = k.CreatedBy
	}
	minted := 0
	if k.MintedBySession {
		minted = 1
	}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO api_keys(id,project_id,name,prefix,last4,hash,scopes,created_by,created_at,minted_by_session) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		k.ID, k.ProjectID, k.Name, k.Prefix, k.Last4, hash, joinScopes(k.Scopes), createdBy, k.CreatedAt, minted)
	return err
}

const keyCols = `id, project_id, name, prefix, last4, scopes, COALESCE(created_by,''), minted_by_session, created_at, last_used_at, revoked_at`

func scanKey(row interface{ Scan(...any) error }) (*APIKey, error) {
	var k APIKey
	var scopes string
	var minted int64
	if err := row.Scan(&k.ID, &k.ProjectID, &k.Name, &k.Prefix, &k.Last4, &scopes, &k.CreatedBy, &minted, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	k.Scopes = splitScopes(scopes)
	k.MintedBySession = minted != 0
	return &k, nil
}

// APIKeyByHash returns the unrevoked key with this hash.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (*APIKey, error) {
	return scanKey(s.rd(ctx).QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE hash = ? AND revoked_at IS NULL`, hash))
}

// ListAPIKeys lists a project's keys, newest first.
func (s *Store) ListAPIKeys(ctx context.Context, projectID string) ([]*APIKey, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE project_id = ? ORDER BY created_at DESC, id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// APIKeyByID returns a key by id; projectID "" means any project (admin CLI).
func (s *Store) APIKeyByID(ctx context.Context, projectID, id string) (*APIKey, error) {
	k, err := scanKey(s.rd(ctx).QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = ?`, id))
	if err != nil {
		return nil, err
	}
	if projectID != "" && k.ProjectID != projectID {
		return nil, ErrNotFound
	}
	return k, nil
}

// RevokeAPIKey revokes a key; projectID "" means any project (admin CLI).
func (s *Store) RevokeAPIKey(ctx context.Context, projectID, id string) (*APIKey, error) {
	q := `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`
	args := []any{now(), id}
	if projectID != "" {
		q += ` AND project_id = ?`
		args = append(args, projectID)
	}
	res, err := s.wr(ctx).ExecContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, ErrNotFound
	}
	return scanKey(s.wr(ctx).QueryRowContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = ?`, id))
}

// TouchAPIKey records use, at most once a minute per key to spare the writer.
func (s *Store) TouchAPIKey(ctx context.Context, id string) error {
	t := time.Now().UTC()
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
		FormatTime(t), id, FormatTime(t.Add(-time.Minute)))
	return err
}

// ResetCredentials replaces a user's password hash and, in the same
// transaction, logs the user out everywhere but keepSessionID ("" ends
// every session) and revokes the unrevoked keys the user's sessions
// minted: whoever held a session before the change loses what it made. It
// returns how many sessions ended and the keys revoked.
func (s *Store) ResetCredentials(ctx context.Context, userID, hash, keepSessionID string) (int, []*APIKey, error) {
	var ended int
	var revoked []*APIKey
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		ended, revoked, err = resetCredentialsTx(ctx, tx, userID, hash, keepSessionID)
		return err
	})
	return ended, revoked, err
}

// resetCredentialsTx is ResetCredentials inside tx (a password reset by
// email runs it with the token's use).
func resetCredentialsTx(ctx context.Context, tx *sql.Tx, userID, hash, keepSessionID string) (int, []*APIKey, error) {
	res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID)
	if err != nil {
		return 0, nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, nil, ErrNotFound
	}
	res, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ? AND id <> ?`, userID, keepSessionID)
	if err != nil {
		return 0, nil, err
	}
	n, _ := res.RowsAffected()
	rows, err := tx.QueryContext(ctx, `SELECT `+keyCols+` FROM api_keys WHERE created_by = ? AND minted_by_session = 1 AND revoked_at IS NULL ORDER BY created_at, id`, userID)
	if err != nil {
		return 0, nil, err
	}
	revoked := []*APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			rows.Close()
			return 0, nil, err
		}
		revoked = append(revoked, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	t := now()
	for _, k := range revoked {
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ?`, t, k.ID); err != nil {
			return 0, nil, err
		}
		k.RevokedAt = &t
	}
	return int(n), revoked, nil
}
