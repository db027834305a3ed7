package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Event is an outbox record: written in the same transaction as the change
// that causes it, delivered to webhooks later.
type Event struct {
	Seq       int64           `json:"-"`
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	ProjectID string          `json:"project_id"`
	Data      json.RawMessage `json:"data"`
}

// NewEvent builds an event with a fresh evt_ id.
func NewEvent(projectID, typ string, data any) (*Event, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return &Event{ID: "evt_" + uuid.NewString(), Type: typ, CreatedAt: FormatTime(time.Now()), ProjectID: projectID, Data: b}, nil
}

// insertEvent writes ev into the outbox inside tx. The payload stored is the
// exact JSON body webhooks receive (CONTRACT §8).
func insertEvent(ctx context.Context, tx *sql.Tx, ev *Event) error {
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO events(id, project_id, type, payload, created_at) VALUES (?,?,?,?,?)`,
		ev.ID, ev.ProjectID, ev.Type, string(payload), ev.CreatedAt)
	if err != nil {
		return err
	}
	ev.Seq, _ = res.LastInsertId()
	return nil
}

// RecordEvent writes an event on its own (events without another change,
// e.g. monitor.scan_failed).
func (s *Store) RecordEvent(ctx context.Context, ev *Event) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return insertEvent(ctx, tx, ev) })
}
