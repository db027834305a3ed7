package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode"

	"earshot/api"

	"github.com/google/uuid"
)

// Teamwork on mentions (issue 26): one assignee, free tags and internal
// notes. None of it is on the public page (PublicMention shows none of
// these fields).

// AssigneeNone is the assignee filter's value for unassigned mentions.
const AssigneeNone = "none"

// MaxTags is how many tags one mention may carry; MaxTagLen how long one
// tag may be, in characters.
const (
	MaxTags   = 20
	MaxTagLen = 40
)

// ErrNotMember: the user to assign is not a member of the project.
var ErrNotMember = errors.New("not a member of this project")

// ErrTooManyTags: the mention already carries MaxTags tags.
var ErrTooManyTags = errors.New("too many tags")

// NormalizeTag is a tag as stored: trimmed and lower-cased, so "Billing"
// and "billing" are one tag. ValidTag says whether the result is allowed.
func NormalizeTag(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// ValidTag: 1 to MaxTagLen letters, digits, '-', '_' or '.'; no spaces, so
// the tags column can hold them space-separated and a tag is one word in a
// URL.
func ValidTag(t string) bool {
	n := 0
	for _, r := range t {
		n++
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return false
		}
	}
	return n >= 1 && n <= MaxTagLen
}

// matchTeam is Match's part for the assignee and tag filters.
func (f MentionFilter) matchTeam(m *Mention) bool {
	switch {
	case f.Assignee == AssigneeNone && m.Assignee != nil,
		f.Assignee != "" && f.Assignee != AssigneeNone && m.AssigneeID() != f.Assignee:
		return false
	}
	if f.Tag == "" {
		return true
	}
	for _, t := range m.Tags {
		if t == f.Tag {
			return true
		}
	}
	return false
}

func mentionInTx(ctx context.Context, tx *sql.Tx, projectID, id string) (*Mention, error) {
	return scanMention(tx.QueryRowContext(ctx, `SELECT `+mentionCols+` FROM mentions m WHERE m.id = ? AND m.project_id = ?`, id, projectID))
}

// AssignMention assigns the mention to userID, a member of the project
// (ErrNotMember otherwise), or to nobody when userID is "". A real change
// bumps updated_at and records mention.assigned with the whole new record
// and the previous assignee (null when there was none); assigning to the
// current assignee changes nothing and records no event.
func (s *Store) AssignMention(ctx context.Context, projectID, id, userID string) (*Mention, error) {
	var out *Mention
	err := s.tx(ctx, func(tx *sql.Tx) error {
		m, err := mentionInTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		out = m
		if m.AssigneeID() == userID {
			return nil
		}
		var assignee any
		if userID != "" {
			var role string
			err := tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE project_id = ? AND user_id = ?`, projectID, userID).Scan(&role)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotMember
			}
			if err != nil {
				return err
			}
			assignee = userID
		}
		prev := assigneeRecord(m)
		if _, err := tx.ExecContext(ctx, `UPDATE mentions SET assignee_id = ?, updated_at = ? WHERE id = ?`, assignee, now(), id); err != nil {
			return err
		}
		if out, err = mentionInTx(ctx, tx, projectID, id); err != nil {
			return err
		}
		ev, err := NewEvent(projectID, "mention.assigned", map[string]any{"mention": out.Record(), "previous_assignee": prev})
		if err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// TagMention adds (add) or removes a normalized, valid tag; adding one the
// mention has, or removing one it has not, changes nothing. The mention's
// tags column is rewritten from mention_tags in the same transaction.
func (s *Store) TagMention(ctx context.Context, projectID, id, tag string, add bool) (*Mention, error) {
	var out *Mention
	err := s.tx(ctx, func(tx *sql.Tx) error {
		m, err := mentionInTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		out = m
		has := false
		for _, t := range m.Tags {
			has = has || t == tag
		}
		if has == add {
			return nil
		}
		if add && len(m.Tags) >= MaxTags {
			return ErrTooManyTags
		}
		q := `DELETE FROM mention_tags WHERE project_id = ? AND tag = ? AND mention_id = ?`
		if add {
			q = `INSERT INTO mention_tags(project_id, tag, mention_id) VALUES (?, ?, ?)`
		}
		if _, err := tx.ExecContext(ctx, q, projectID, tag, id); err != nil {
			return err
		}
		tags, err := mentionTags(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE mentions SET tags = ?, updated_at = ? WHERE id = ?`, strings.Join(tags, " "), now(), id); err != nil {
			return err
		}
		out, err = mentionInTx(ctx, tx, projectID, id)
		return err
	})
	return out, err
}

func mentionTags(ctx context.Context, tx *sql.Tx, projectID, id string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT tag FROM mention_tags WHERE mention_id = ? AND project_id = ? ORDER BY tag`, id, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tags []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, rows.Err()
}

// ProjectTags lists the project's tags in use with how many mentions carry
// each, most used first (the dashboard's tag suggestions).
func (s *Store) ProjectTags(ctx context.Context, projectID string, limit int) ([]TagCount, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT tag, COUNT(*) FROM mention_tags WHERE project_id = ? GROUP BY tag ORDER BY COUNT(*) DESC, tag LIMIT ?`, projectID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TagCount
	for rows.Next() {
		var t TagCount
		if err := rows.Scan(&t.Tag, &t.Count); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TagCount is one tag in use and its mention count.
type TagCount struct {
	Tag   string
	Count int
}

// Note is an internal note on a mention: for the project's members only.
type Note struct {
	ID         string
	MentionID  string
	AuthorID   *string // nil: written by the CLI, or the author's account is gone
	AuthorName string
	Text       string
	CreatedAt  string
}

// Record is the note as the API shows it.
func (n *Note) Record() *api.Note {
	r := &api.Note{ID: n.ID, MentionID: n.MentionID, Text: n.Text, CreatedAt: n.CreatedAt}
	if n.AuthorID != nil {
		r.Author = &api.Assignee{ID: *n.AuthorID, Name: n.AuthorName}
	}
	return r
}

const noteCols = `n.id, n.mention_id, n.author_id, (SELECT CASE WHEN u.full_name <> '' THEN u.full_name ELSE u.email END FROM users u WHERE u.id = n.author_id), n.text, n.created_at`

func scanNote(row interface{ Scan(...any) error }) (*Note, error) {
	var n Note
	var name sql.NullString
	err := row.Scan(&n.ID, &n.MentionID, &n.AuthorID, &name, &n.Text, &n.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	n.AuthorName = name.String
	return &n, err
}

// AddNote writes a note on one of the project's mentions (ErrNotFound when
// the mention is not the project's). authorID "" leaves the author empty.
func (s *Store) AddNote(ctx context.Context, projectID, mentionID, authorID, text string) (*Note, error) {
	var out *Note
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := mentionInTx(ctx, tx, projectID, mentionID); err != nil {
			return err
		}
		id := uuid.NewString()
		var author any
		if authorID != "" {
			author = authorID
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mention_notes(id, project_id, mention_id, author_id, text, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, projectID, mentionID, author, text, now()); err != nil {
			return err
		}
		var err error
		out, err = scanNote(tx.QueryRowContext(ctx, `SELECT `+noteCols+` FROM mention_notes n WHERE n.id = ?`, id))
		return err
	})
	return out, err
}

// Notes lists a mention's notes, oldest first (ErrNotFound when the
// mention is not the project's).
func (s *Store) Notes(ctx context.Context, projectID, mentionID string) ([]*Note, error) {
	if _, err := s.Mention(ctx, projectID, mentionID); err != nil {
		return nil, err
	}
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+noteCols+` FROM mention_notes n WHERE n.mention_id = ? AND n.project_id = ? ORDER BY n.created_at, n.id`, mentionID, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Note{}
	for rows.Next() {
		n, err := scanNote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Note returns one note of one of the project's mentions.
func (s *Store) Note(ctx context.Context, projectID, mentionID, noteID string) (*Note, error) {
	return scanNote(s.rd(ctx).QueryRowContext(ctx, `SELECT `+noteCols+` FROM mention_notes n WHERE n.id = ? AND n.mention_id = ? AND n.project_id = ?`,
		noteID, mentionID, projectID))
}

// DeleteNote deletes a note (ErrNotFound when it is not there).
func (s *Store) DeleteNote(ctx context.Context, projectID, mentionID, noteID string) error {
	res, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM mention_notes WHERE id = ? AND mention_id = ? AND project_id = ?`, noteID, mentionID, projectID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetUserTimeZone stores the IANA zone the dashboard shows userID's times
// in ("" is UTC); the caller validates it with time.LoadLocation.
func (s *Store) SetUserTimeZone(ctx context.Context, userID, zone string) error {
	res, err := s.wr(ctx).ExecContext(ctx, `UPDATE users SET time_zone = ? WHERE id = ?`, zone, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// UserTimeZone is userID's zone ("" is UTC).
func (s *Store) UserTimeZone(ctx context.Context, userID string) (string, error) {
	var z string
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT time_zone FROM users WHERE id = ?`, userID).Scan(&z)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return z, err
}

// CreatePasswordReset stores the hash of a fresh reset token for userID,
// valid for ttl, and returns the token.
func (s *Store) CreatePasswordReset(ctx context.Context, userID string, ttl time.Duration) (string, error) {
	token := "rst_" + strings.ReplaceAll(uuid.NewString()+uuid.NewString(), "-", "")
	h := sha256.Sum256([]byte(token))
	t := time.Now()
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO password_resets(token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		h[:], userID, FormatTime(t), FormatTime(t.Add(ttl)))
	return token, err
}

// RecentPasswordResets counts the reset tokens made for userID since t.
func (s *Store) RecentPasswordResets(ctx context.Context, userID string, t time.Time) (int, error) {
	var n int
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM password_resets WHERE user_id = ? AND created_at >= ?`, userID, FormatTime(t)).Scan(&n)
	return n, err
}

// PasswordResetUser is the user a reset token is for, without using it up
// (the reset form checks the link before asking for a password):
// ErrNotFound when the token is unknown, used or expired.
func (s *Store) PasswordResetUser(ctx context.Context, token string) (string, error) {
	h := sha256.Sum256([]byte(token))
	var userID string
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
		h[:], now()).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return userID, err
}

// UsePasswordReset spends a token and sets the user's password hash in one
// transaction, ending every session of the user and every other token of
// theirs and revoking the keys their sessions minted (returned):
// ErrNotFound when the token is unknown, used or expired.
func (s *Store) UsePasswordReset(ctx context.Context, token, passwordHash string) (string, []*APIKey, error) {
	h := sha256.Sum256([]byte(token))
	var userID string
	var revoked []*APIKey
	err := s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT user_id FROM password_resets WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?`,
			h[:], now()).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, now(), userID); err != nil {
			return err
		}
		// As a password change: every session ends and the keys sessions
		// minted are revoked (README, Security: accounts).
		_, revoked, err = resetCredentialsTx(ctx, tx, userID, passwordHash, "")
		return err
	})
	return userID, revoked, err
}
