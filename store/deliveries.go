package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
)

// Delivery is one attempt series of sending one event to one webhook.
type Delivery struct {
	Seq            int64
	ID             string
	WebhookID      string
	EventID        string
	EventType      string
	Payload        string
	Status         string // pending, delivered, failed
	Attempts       int
	NextAttemptAt  *string
	LastStatusCode *int
	LastResponse   string
	LastError      string
	ReplayOf       *string
	CreatedAt      string
	UpdatedAt      string
}

const deliveryCols = `seq, id, webhook_id, event_id, event_type, payload, status, attempts, next_attempt_at, last_status_code, last_response, last_error, replay_of, created_at, updated_at`

func scanDelivery(row interface{ Scan(...any) error }) (*Delivery, error) {
	var d Delivery
	err := row.Scan(&d.Seq, &d.ID, &d.WebhookID, &d.EventID, &d.EventType, &d.Payload, &d.Status, &d.Attempts, &d.NextAttemptAt,
		&d.LastStatusCode, &d.LastResponse, &d.LastError, &d.ReplayOf, &d.CreatedAt, &d.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &d, err
}

// ListDeliveries lists a webhook's deliveries newest first, before seq
// (0 = from the newest), optionally by status.
func (s *Store) ListDeliveries(ctx context.Context, webhookID, status string, before int64, limit int) ([]*Delivery, error) {
	q := `SELECT ` + deliveryCols + ` FROM deliveries WHERE webhook_id = ?`
	args := []any{webhookID}
	if status != "" {
		q += ` AND status = ?`
		args = append(args, status)
	}
	if before > 0 {
		q += ` AND seq < ?`
		args = append(args, before)
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.rd(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ReplayDelivery queues the original payload of a delivery again as a new
// delivery of the same event (same webhook-id).
func (s *Store) ReplayDelivery(ctx context.Context, projectID, id string) (*Delivery, error) {
	var nd *Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		d, err := scanDelivery(tx.QueryRowContext(ctx, `SELECT `+deliveryCols+` FROM deliveries WHERE id = ? AND project_id = ?`, id, projectID))
		if err != nil {
			return err
		}
		t := now()
		nd = &Delivery{ID: uuid.NewString(), WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, Payload: d.Payload,
			Status: "pending", NextAttemptAt: &t, ReplayOf: &d.ID, CreatedAt: t, UpdatedAt: t}
		_, err = tx.ExecContext(ctx, `INSERT INTO deliveries(id, webhook_id, project_id, event_id, event_type, payload, status, next_attempt_at, replay_of, created_at, updated_at)
			VALUES (?,?,?,?,?,?,'pending',?,?,?,?)`, nd.ID, nd.WebhookID, projectID, nd.EventID, nd.EventType, nd.Payload, t, d.ID, t, t)
		return err
	})
	return nd, err
}
