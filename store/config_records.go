package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
)

// View is a saved mentions filter.
type View struct {
	ID        string
	Name      string
	Filters   json.RawMessage
	CreatedAt string
}

func scanView(row interface{ Scan(...any) error }) (*View, error) {
	var v View
	var f string
	if err := row.Scan(&v.ID, &v.Name, &f, &v.CreatedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	v.Filters = json.RawMessage(f)
	return &v, nil
}

// CreateView inserts a saved view.
func (s *Store) CreateView(ctx context.Context, projectID, name string, filters json.RawMessage) (*View, error) {
	v := &View{ID: uuid.NewString(), Name: name, Filters: filters, CreatedAt: now()}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO views(id,project_id,name,filters,created_at) VALUES (?,?,?,?,?)`, v.ID, projectID, name, string(filters), v.CreatedAt)
	return v, err
}

// View returns a saved view of the project.
func (s *Store) View(ctx context.Context, projectID, id string) (*View, error) {
	return scanView(s.rd(ctx).QueryRowContext(ctx, `SELECT id, name, filters, created_at FROM views WHERE id = ? AND project_id = ?`, id, projectID))
}

// ListViews lists saved views, oldest first.
func (s *Store) ListViews(ctx context.Context, projectID string) ([]*View, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT id, name, filters, created_at FROM views WHERE project_id = ? ORDER BY created_at, rowid`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*View{}
	for rows.Next() {
		v, err := scanView(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// UpdateView changes the set fields; filters are replaced whole.
func (s *Store) UpdateView(ctx context.Context, projectID, id string, name *string, filters json.RawMessage) (*View, error) {
	var v *View
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if name != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE views SET name = ? WHERE id = ? AND project_id = ?`, *name, id, projectID); err != nil {
				return err
			}
		}
		if filters != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE views SET filters = ? WHERE id = ? AND project_id = ?`, string(filters), id, projectID); err != nil {
				return err
			}
		}
		var err error
		v, err = scanView(tx.QueryRowContext(ctx, `SELECT id, name, filters, created_at FROM views WHERE id = ? AND project_id = ?`, id, projectID))
		return err
	})
	return v, err
}

// DeleteView deletes a saved view.
func (s *Store) DeleteView(ctx context.Context, projectID, id string) error {
	return s.execOne(ctx, `DELETE FROM views WHERE id = ? AND project_id = ?`, id, projectID)
}

// execOne runs a write that must touch a row; touching none is ErrNotFound.
func (s *Store) execOne(ctx context.Context, q string, args ...any) error {
	res, err := s.wr(ctx).ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Alert is a rule that pushes matching mentions to a channel.
type Alert struct {
	ID           string
	ProjectID    string
	Name         string
	Active       bool
	MinUrgency   int
	Channel      string
	Target       string
	Secret       string `json:"-"`
	Filters      json.RawMessage
	Digest       string
	Trigger      string
	LastDigestAt *string
	CreatedAt    string
}

const alertCols = `id, project_id, name, active, min_urgency, channel, target, secret, filters, digest, last_digest_at, created_at, trigger_type`

func scanAlert(row interface{ Scan(...any) error }) (*Alert, error) {
	var a Alert
	var f string
	if err := row.Scan(&a.ID, &a.ProjectID, &a.Name, &a.Active, &a.MinUrgency, &a.Channel, &a.Target, &a.Secret, &f, &a.Digest, &a.LastDigestAt, &a.CreatedAt, &a.Trigger); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	a.Filters = json.RawMessage(f)
	return &a, nil
}

// CreateAlert inserts a (fully populated) alert.
func (s *Store) CreateAlert(ctx context.Context, a *Alert) error {
	a.ID = uuid.NewString()
	a.CreatedAt = now()
	if a.Trigger == "" {
		a.Trigger = "mention"
	}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO alerts(id,project_id,name,active,min_urgency,channel,target,secret,filters,digest,created_at,trigger_type) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		a.ID, a.ProjectID, a.Name, boolInt(a.Active), a.MinUrgency, a.Channel, a.Target, a.Secret, string(a.Filters), a.Digest, a.CreatedAt, a.Trigger)
	return err
}

// Alert returns an alert of the project.
func (s *Store) Alert(ctx context.Context, projectID, id string) (*Alert, error) {
	return scanAlert(s.rd(ctx).QueryRowContext(ctx, `SELECT `+alertCols+` FROM alerts WHERE id = ? AND project_id = ?`, id, projectID))
}

// ListAlerts lists alerts, oldest first; activeOnly for the evaluator.
func (s *Store) ListAlerts(ctx context.Context, projectID string, activeOnly bool) ([]*Alert, error) {
	q := `SELECT ` + alertCols + ` FROM alerts WHERE project_id = ?`
	if activeOnly {
		q += ` AND active = 1`
	}
	rows, err := s.rd(ctx).QueryContext(ctx, q+` ORDER BY created_at, rowid`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Alert{}
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// SaveAlert writes an alert's mutable fields back.
func (s *Store) SaveAlert(ctx context.Context, a *Alert) error {
	if a.Trigger == "" {
		a.Trigger = "mention"
	}
	return s.execOne(ctx, `UPDATE alerts SET name=?, active=?, min_urgency=?, channel=?, target=?, filters=?, digest=?, trigger_type=? WHERE id = ? AND project_id = ?`,
		a.Name, boolInt(a.Active), a.MinUrgency, a.Channel, a.Target, string(a.Filters), a.Digest, a.Trigger, a.ID, a.ProjectID)
}

// DeleteAlert deletes an alert (notifications stop: pending alert
// deliveries are dropped with it).
func (s *Store) DeleteAlert(ctx context.Context, projectID, id string) error {
	return s.execOne(ctx, `DELETE FROM alerts WHERE id = ? AND project_id = ?`, id, projectID)
}

// Webhook is an event subscription.
type Webhook struct {
	ID                  string
	ProjectID           string
	URL                 string
	Events              []string
	Active              bool
	DisabledReason      string
	Secret              string  `json:"-"`
	PreviousSecret      string  `json:"-"`
	PreviousSecretUntil *string `json:"-"`
	CreatedAt           string
	UpdatedAt           string
}

// Secrets returns the signing secrets currently valid (new first).
func (w *Webhook) Secrets(at time.Time) []string {
	out := []string{w.Secret}
	if w.PreviousSecret != "" && w.PreviousSecretUntil != nil && *w.PreviousSecretUntil > FormatTime(at) {
		out = append(out, w.PreviousSecret)
	}
	return out
}

const webhookCols = `id, project_id, url, events, active, disabled_reason, secret, previous_secret, previous_secret_until, created_at, updated_at`

func scanWebhook(row interface{ Scan(...any) error }) (*Webhook, error) {
	var w Webhook
	var ev string
	if err := row.Scan(&w.ID, &w.ProjectID, &w.URL, &ev, &w.Active, &w.DisabledReason, &w.Secret, &w.PreviousSecret, &w.PreviousSecretUntil, &w.CreatedAt, &w.UpdatedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	w.Events = strList(ev)
	return &w, nil
}

// CreateWebhook inserts a webhook.
func (s *Store) CreateWebhook(ctx context.Context, w *Webhook) error {
	w.ID = uuid.NewString()
	w.CreatedAt = now()
	w.UpdatedAt = w.CreatedAt
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO webhooks(id,project_id,url,events,secret,active,created_at,updated_at) VALUES (?,?,?,?,?,?,?,?)`,
		w.ID, w.ProjectID, w.URL, toJSON(w.Events), w.Secret, boolInt(w.Active), w.CreatedAt, w.UpdatedAt)
	return err
}

// Webhook returns a webhook of the project; projectID "" means any.
func (s *Store) Webhook(ctx context.Context, projectID, id string) (*Webhook, error) {
	w, err := scanWebhook(s.rd(ctx).QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE id = ?`, id))
	if err != nil {
		return nil, err
	}
	if projectID != "" && w.ProjectID != projectID {
		return nil, ErrNotFound
	}
	return w, nil
}

// ListWebhooks lists a project's webhooks, oldest first.
func (s *Store) ListWebhooks(ctx context.Context, projectID string) ([]*Webhook, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE project_id = ? ORDER BY created_at, rowid`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// SaveWebhook writes a webhook's mutable fields back.
func (s *Store) SaveWebhook(ctx context.Context, w *Webhook) error {
	w.UpdatedAt = now()
	return s.execOne(ctx, `UPDATE webhooks SET url=?, events=?, active=?, disabled_reason=?, secret=?, previous_secret=?, previous_secret_until=?, updated_at=?
		WHERE id = ? AND project_id = ?`,
		w.URL, toJSON(w.Events), boolInt(w.Active), w.DisabledReason, w.Secret, w.PreviousSecret, w.PreviousSecretUntil, w.UpdatedAt, w.ID, w.ProjectID)
}

// DeleteWebhook deletes a webhook and its delivery log.
func (s *Store) DeleteWebhook(ctx context.Context, projectID, id string) error {
	return s.execOne(ctx, `DELETE FROM webhooks WHERE id = ? AND project_id = ?`, id, projectID)
}
