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

// Invitation is a pending membership: the invited person accepts it with a
// one-time link, as a new account or while logged in. Only the SHA-256 of
// the link's token is stored.
type Invitation struct {
	ID         string
	ProjectID  string
	Email      string
	Role       string
	InvitedBy  string
	CreatedAt  string
	ExpiresAt  string
	AcceptedAt *string
	RevokedAt  *string
}

// Status is pending, accepted, revoked or expired.
func (i *Invitation) Status() string {
	switch {
	case i.AcceptedAt != nil:
		return "accepted"
	case i.RevokedAt != nil:
		return "revoked"
	case i.ExpiresAt <= now():
		return "expired"
	}
	return "pending"
}

// ErrGone is an invitation that was accepted, revoked or has expired.
var ErrGone = errors.New("invitation no longer valid")

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

const invitationCols = `id, project_id, email, role, COALESCE(invited_by,''), created_at, expires_at, accepted_at, revoked_at`

func scanInvitation(row interface{ Scan(...any) error }) (*Invitation, error) {
	var i Invitation
	if err := row.Scan(&i.ID, &i.ProjectID, &i.Email, &i.Role, &i.InvitedBy, &i.CreatedAt, &i.ExpiresAt, &i.AcceptedAt, &i.RevokedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &i, nil
}

// CreateInvitation stores a pending invitation for email, replacing (revoking)
// a pending one for the same email in the project, so only the newest link
// works.
func (s *Store) CreateInvitation(ctx context.Context, projectID, email, role, invitedBy, token string, ttl time.Duration) (*Invitation, error) {
	inv := &Invitation{ID: uuid.NewString(), ProjectID: projectID, Email: email, Role: role, InvitedBy: invitedBy,
		CreatedAt: now(), ExpiresAt: FormatTime(time.Now().Add(ttl))}
	var by any
	if invitedBy != "" {
		by = invitedBy
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE invitations SET revoked_at = ? WHERE project_id = ? AND email = ?
			AND accepted_at IS NULL AND revoked_at IS NULL`, inv.CreatedAt, projectID, email); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO invitations(id,project_id,email,role,token_hash,invited_by,created_at,expires_at) VALUES (?,?,?,?,?,?,?,?)`,
			inv.ID, projectID, email, role, tokenHash(token), by, inv.CreatedAt, inv.ExpiresAt)
		return err
	})
	if err != nil {
		return nil, err
	}
	return inv, nil
}

// ListInvitations lists a project's pending invitations, newest first.
func (s *Store) ListInvitations(ctx context.Context, projectID string) ([]*Invitation, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+invitationCols+` FROM invitations WHERE project_id = ?
		AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC, id`, projectID, now())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Invitation{}
	for rows.Next() {
		i, err := scanInvitation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// RevokeInvitation withdraws a pending invitation of the project; one that
// is unknown, of another project, or no longer pending is ErrNotFound.
func (s *Store) RevokeInvitation(ctx context.Context, projectID, id string) error {
	res, err := s.wr(ctx).ExecContext(ctx, `UPDATE invitations SET revoked_at = ? WHERE id = ? AND project_id = ?
		AND accepted_at IS NULL AND revoked_at IS NULL`, now(), id, projectID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// InvitationByToken returns the invitation of a link token whatever its
// state (the caller tells pending from gone with Status); ErrNotFound for a
// token that was never issued.
func (s *Store) InvitationByToken(ctx context.Context, token string) (*Invitation, error) {
	return scanInvitation(s.rd(ctx).QueryRowContext(ctx, `SELECT `+invitationCols+` FROM invitations WHERE token_hash = ?`, tokenHash(token)))
}

// AcceptInvitation makes userID a member with the invitation's role and
// uses the link up, in one transaction. A link that is not pending is
// ErrGone; a user who already belongs to the project keeps the higher of
// the two roles (an owner stays owner).
func (s *Store) AcceptInvitation(ctx context.Context, token, userID string) (*Invitation, *Member, error) {
	var inv *Invitation
	var m *Member
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		inv, err = scanInvitation(tx.QueryRowContext(ctx, `SELECT `+invitationCols+` FROM invitations WHERE token_hash = ?`, tokenHash(token)))
		if err != nil {
			return err
		}
		if inv.Status() != "pending" {
			return ErrGone
		}
		t := now()
		res, err := tx.ExecContext(ctx, `UPDATE invitations SET accepted_at = ?, accepted_by = ? WHERE id = ? AND accepted_at IS NULL AND revoked_at IS NULL`, t, userID, inv.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrGone
		}
		inv.AcceptedAt = &t
		var cur string
		err = tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE project_id = ? AND user_id = ?`, inv.ProjectID, userID).Scan(&cur)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO memberships(project_id,user_id,role,created_at) VALUES (?,?,?,?)`, inv.ProjectID, userID, inv.Role, t); err != nil {
				return err
			}
		case err != nil:
			return err
		case cur == "viewer" && inv.Role == "editor":
			if _, err := tx.ExecContext(ctx, `UPDATE memberships SET role = ? WHERE project_id = ? AND user_id = ?`, inv.Role, inv.ProjectID, userID); err != nil {
				return err
			}
		}
		m = &Member{}
		return tx.QueryRowContext(ctx, `SELECT m.user_id, u.email, u.full_name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
			WHERE m.project_id = ? AND m.user_id = ?`, inv.ProjectID, userID).Scan(&m.UserID, &m.Email, &m.FullName, &m.Role, &m.CreatedAt)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("accepting invitation: %w", err)
	}
	return inv, m, nil
}
