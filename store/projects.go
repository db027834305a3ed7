package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/uuid"
)

// Project is a workspace.
type Project struct {
	ID            string
	Name          string
	Slug          string
	Plan          string
	Website       *string
	Description   string
	PublicEnabled bool
	OwnerID       string
	ArchivedAt    *string
	CreatedAt     string
	Role          string // the caller's role, when listed for a user
}

// Archived reports whether the project was deleted (archived).
func (p *Project) Archived() bool { return p.ArchivedAt != nil }

// DefaultCategories are seeded into every project.
var DefaultCategories = []struct{ Category, Label, Description string }{
	{"bug_report", "Bug report", "Something in the product is broken: crashes, errors, features not working."},
	{"complaint", "Complaint", "Unhappy with price, support, billing or the company, without a specific defect."},
	{"misinformation", "Misinformation", "A false or misleading claim about the brand."},
	{"product_idea", "Product idea", "A feature request or suggestion."},
	{"testimonial", "Testimonial", "Praise or a recommendation worth sharing."},
	{"other", "Other", "Everything else."},
}

var slugStrip = regexp.MustCompile(`[^a-z0-9]+`)

func slugify(name string) string {
	s := strings.Trim(slugStrip.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 40 {
		s = strings.Trim(s[:40], "-")
	}
	if s == "" {
		s = "project"
	}
	return s
}

func randSuffix() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
	b := make([]byte, 5)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// DefaultPlan is a new project's plan. A self-hosted installation has no
// quota unless its operator sets plans (earshot project set-plan): a
// default quota would drop posts nobody decided to drop.
const DefaultPlan = "unlimited"

// CreateProject creates a project owned by ownerID, with its membership and
// default categories, in one transaction.
func (s *Store) CreateProject(ctx context.Context, ownerID, name string, website *string) (*Project, error) {
	p := &Project{ID: uuid.NewString(), Name: name, Plan: DefaultPlan, Website: website, OwnerID: ownerID, CreatedAt: now(), Role: "owner"}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		base := slugify(name)
		p.Slug = base
		for i := 0; ; i++ {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE slug = ?`, p.Slug).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				break
			}
			p.Slug = base + "-" + randSuffix()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO projects(id,name,slug,plan,website,owner_id,created_at) VALUES (?,?,?,?,?,?,?)`,
			p.ID, p.Name, p.Slug, p.Plan, p.Website, ownerID, p.CreatedAt); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO memberships(project_id,user_id,role,created_at) VALUES (?,?,?,?)`,
			p.ID, ownerID, "owner", p.CreatedAt); err != nil {
			return err
		}
		for i, c := range DefaultCategories {
			if _, err := tx.ExecContext(ctx, `INSERT INTO categories(project_id,category,label,description,enabled,position) VALUES (?,?,?,?,1,?)`,
				p.ID, c.Category, c.Label, c.Description, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

const projectCols = `id, name, slug, plan, website, description, public_enabled, owner_id, archived_at, created_at`

func scanProject(row interface{ Scan(...any) error }, extra ...any) (*Project, error) {
	var p Project
	dest := append([]any{&p.ID, &p.Name, &p.Slug, &p.Plan, &p.Website, &p.Description, &p.PublicEnabled, &p.OwnerID, &p.ArchivedAt, &p.CreatedAt}, extra...)
	if err := row.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return &p, nil
}

// Project returns a project by id.
func (s *Store) Project(ctx context.Context, id string) (*Project, error) {
	return scanProject(s.rd(ctx).QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
}

// ProjectBySlug returns a project by its public slug.
func (s *Store) ProjectBySlug(ctx context.Context, slug string) (*Project, error) {
	return scanProject(s.rd(ctx).QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE slug = ?`, slug))
}

// ProjectsForUser lists the projects a user belongs to, oldest first, with their role.
func (s *Store) ProjectsForUser(ctx context.Context, userID string) ([]*Project, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+prefixCols("p.", projectCols)+`, m.role FROM projects p JOIN memberships m ON m.project_id = p.id
		WHERE m.user_id = ? ORDER BY p.created_at, p.rowid`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Project{}
	for rows.Next() {
		var role string
		p, err := scanProject(rows, &role)
		if err != nil {
			return nil, err
		}
		p.Role = role
		out = append(out, p)
	}
	return out, rows.Err()
}

// AllProjects lists every project (scheduler, admin).
func (s *Store) AllProjects(ctx context.Context) ([]*Project, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+projectCols+` FROM projects ORDER BY created_at, rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Project{}
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func prefixCols(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// ProjectPatch holds the optional fields of update_project.
type ProjectPatch struct {
	Name        *string
	Website     **string
	Description *string
}

// UpdateProject applies the fields that are set.
func (s *Store) UpdateProject(ctx context.Context, id string, p ProjectPatch) (*Project, error) {
	var out *Project
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if p.Name != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE projects SET name = ? WHERE id = ?`, *p.Name, id); err != nil {
				return err
			}
		}
		if p.Website != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE projects SET website = ? WHERE id = ?`, *p.Website, id); err != nil {
				return err
			}
		}
		if p.Description != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE projects SET description = ? WHERE id = ?`, *p.Description, id); err != nil {
				return err
			}
		}
		var err error
		out, err = scanProject(tx.QueryRowContext(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
		return err
	})
	return out, err
}

// ArchiveProject archives a project and pauses all its monitors.
func (s *Store) ArchiveProject(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		t := now()
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET archived_at = COALESCE(archived_at, ?) WHERE id = ?`, t, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE monitors SET active = 0, updated_at = ? WHERE project_id = ?`, t, id)
		return err
	})
}

// SetPublic switches the public page.
func (s *Store) SetPublic(ctx context.Context, id string, enabled bool) error {
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE projects SET public_enabled = ? WHERE id = ?`, boolInt(enabled), id)
	return err
}

// SetPlan changes a project's plan.
func (s *Store) SetPlan(ctx context.Context, id, plan string) error {
	return s.execOne(ctx, `UPDATE projects SET plan = ? WHERE id = ?`, plan, id)
}

// Member is a user's membership of a project.
type Member struct {
	UserID    string
	Email     string
	FullName  string
	Role      string
	CreatedAt string
}

// Membership returns userID's role in projectID, or ErrNotFound.
func (s *Store) Membership(ctx context.Context, projectID, userID string) (string, error) {
	var role string
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT role FROM memberships WHERE project_id = ? AND user_id = ?`, projectID, userID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return role, err
}

// ListMembers lists a project's members, oldest first.
func (s *Store) ListMembers(ctx context.Context, projectID string) ([]*Member, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT m.user_id, u.email, u.full_name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.project_id = ? ORDER BY m.created_at, m.user_id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Member{}
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.UserID, &m.Email, &m.FullName, &m.Role, &m.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, &m)
	}
	return out, rows.Err()
}

// AddMember adds (or re-roles) a member; the owner's role never changes.
func (s *Store) AddMember(ctx context.Context, projectID, userID, role string) (*Member, error) {
	var m *Member
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var cur string
		err := tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE project_id = ? AND user_id = ?`, projectID, userID).Scan(&cur)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO memberships(project_id,user_id,role,created_at) VALUES (?,?,?,?)`, projectID, userID, role, now()); err != nil {
				return err
			}
		case err != nil:
			return err
		case cur == "owner":
			return fmt.Errorf("this user owns the project, and the owner's role cannot change: %w", ErrConflict)
		default:
			if _, err := tx.ExecContext(ctx, `UPDATE memberships SET role = ? WHERE project_id = ? AND user_id = ?`, role, projectID, userID); err != nil {
				return err
			}
		}
		m = &Member{}
		return tx.QueryRowContext(ctx, `SELECT m.user_id, u.email, u.full_name, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
			WHERE m.project_id = ? AND m.user_id = ?`, projectID, userID).Scan(&m.UserID, &m.Email, &m.FullName, &m.Role, &m.CreatedAt)
	})
	return m, err
}

// UpdateMember changes a member's role; unknown member → ErrNotFound; the owner → ErrConflict.
func (s *Store) UpdateMember(ctx context.Context, projectID, userID, role string) error {
	cur, err := s.Membership(ctx, projectID, userID)
	if err != nil {
		return err
	}
	if cur == "owner" {
		return fmt.Errorf("this user owns the project, and the owner's role cannot change: %w", ErrConflict)
	}
	_, err = s.wr(ctx).ExecContext(ctx, `UPDATE memberships SET role = ? WHERE project_id = ? AND user_id = ? AND role <> 'owner'`, role, projectID, userID)
	return err
}

// RemoveMember removes a member; the owner cannot be removed.
func (s *Store) RemoveMember(ctx context.Context, projectID, userID string) error {
	cur, err := s.Membership(ctx, projectID, userID)
	if err != nil {
		return err
	}
	if cur == "owner" {
		return fmt.Errorf("the project owner cannot be removed: %w", ErrConflict)
	}
	_, err = s.wr(ctx).ExecContext(ctx, `DELETE FROM memberships WHERE project_id = ? AND user_id = ? AND role <> 'owner'`, projectID, userID)
	return err
}

// Category is a project's configuration of one category value.
type Category struct {
	Category    string
	Label       string
	Description string
	Enabled     bool
}

// ListCategories lists a project's six categories in display order.
func (s *Store) ListCategories(ctx context.Context, projectID string) ([]*Category, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT category, label, description, enabled FROM categories WHERE project_id = ? ORDER BY position`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Category{}
	for rows.Next() {
		var c Category
		if err := rows.Scan(&c.Category, &c.Label, &c.Description, &c.Enabled); err != nil {
			return nil, err
		}
		out = append(out, &c)
	}
	return out, rows.Err()
}

// UpdateCategory changes the set fields of one category.
func (s *Store) UpdateCategory(ctx context.Context, projectID, category string, label, description *string, enabled *bool) (*Category, error) {
	var c Category
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if label != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE categories SET label = ? WHERE project_id = ? AND category = ?`, *label, projectID, category); err != nil {
				return err
			}
		}
		if description != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE categories SET description = ? WHERE project_id = ? AND category = ?`, *description, projectID, category); err != nil {
				return err
			}
		}
		if enabled != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE categories SET enabled = ? WHERE project_id = ? AND category = ?`, boolInt(*enabled), projectID, category); err != nil {
				return err
			}
		}
		err := tx.QueryRowContext(ctx, `SELECT category, label, description, enabled FROM categories WHERE project_id = ? AND category = ?`, projectID, category).
			Scan(&c.Category, &c.Label, &c.Description, &c.Enabled)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}
