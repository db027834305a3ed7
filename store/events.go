package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"earshot/api"
)

// Event is an outbox record: written in the same transaction as the change
// that causes it, delivered to webhooks later. The body webhooks receive
// is its record (Record, api.Event).
type Event struct {
	Seq       int64
	ID        string
	Type      string
	CreatedAt string
	ProjectID string
	Data      json.RawMessage

	mentionRef string // see newMentionRefEvent
}

// NewEvent builds an event with a fresh evt_ id.
func NewEvent(projectID, typ string, data any) (*Event, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return &Event{ID: "evt_" + uuid.Must(uuid.NewV7()).String(), Type: typ, CreatedAt: FormatTime(time.Now()), ProjectID: projectID, Data: b}, nil
}

// insertEvent writes ev into the outbox inside tx. The payload stored is the
// exact JSON body webhooks receive (docs/decisions.md#webhooks), except for
// events made by newMentionRefEvent, whose data the fan-out fills from the
// mention row.
func insertEvent(ctx context.Context, tx *sql.Tx, ev *Event) error {
	return insertEventStmt(ctx, tx, nil, ev)
}

// RETURNING seq on both backends: pgx has no LastInsertId.
const insertEventSQL = `INSERT INTO events(id, project_id, type, payload, created_at, mention_id) VALUES (?,?,?,?,?,?) RETURNING seq`

// insertEventStmt is insertEvent through stmt, insertEventSQL prepared in
// tx, when it is not nil: a batch recording many events prepares it once.
func insertEventStmt(ctx context.Context, tx *sql.Tx, stmt *sql.Stmt, ev *Event) error {
	args, err := eventArgs(ev)
	if err != nil {
		return err
	}
	var row *sql.Row
	if stmt != nil {
		row = stmt.QueryRowContext(ctx, args...)
	} else {
		row = tx.QueryRowContext(ctx, insertEventSQL, args...)
	}
	return row.Scan(&ev.Seq)
}

// eventArgs are an event's values in insertEventSQL's order.
func eventArgs(ev *Event) ([]any, error) {
	payload, err := json.Marshal(ev.Record())
	if err != nil {
		return nil, err
	}
	var ref any
	if ev.mentionRef != "" {
		ref = ev.mentionRef
	}
	return []any{ev.ID, ev.ProjectID, ev.Type, string(payload), ev.CreatedAt, ref}, nil
}

// newMentionRefEvent is an event whose data is {"mention": <the record>},
// stored as a reference ({"mention_id": id}) and completed at fan-out.
func newMentionRefEvent(projectID, typ, mentionID string) *Event {
	ev, _ := NewEvent(projectID, typ, map[string]string{"mention_id": mentionID})
	ev.mentionRef = mentionID
	return ev
}

// completeMentionEvent turns a stored reference payload into the webhook
// body, with the mention record as it is now. A mention that no longer
// exists leaves the reference as it is.
func (s *Store) completeMentionEvent(ctx context.Context, payload, mentionID string) (string, error) {
	var ev api.Event
	if err := json.Unmarshal([]byte(payload), &ev); err != nil {
		return "", err
	}
	m, err := s.Mention(ctx, ev.ProjectID, mentionID)
	if errors.Is(err, ErrNotFound) {
		return payload, nil
	}
	if err != nil {
		return "", err
	}
	ev.Data, err = json.Marshal(map[string]any{"mention": m.Record()})
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(ev)
	return string(b), err
}

// RecordEvent writes an event on its own (events without another change,
// e.g. monitor.scan_failed).
func (s *Store) RecordEvent(ctx context.Context, ev *Event) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return insertEvent(ctx, tx, ev) })
}
