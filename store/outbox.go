package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The delivery side of the outbox. Events are fanned out into webhook
// deliveries and alert notifications (Dispatch); the worker then leases the
// head of each target's queue (ClaimRun, or in the fan-out itself with a
// Handoff), sends without holding the writer, and records the outcome
// (RecordAttempts). Transactions here write at most a few hundred small
// rows, so the worker never keeps ingestion waiting long. Who may send a
// queue's next deliveries, and until when, is the lease policy in lease.go.

// OutboxEvent is an event not yet fanned out.
type OutboxEvent struct {
	Seq       int64
	ID        string
	ProjectID string
	Type      string
	Payload   string // the webhook body
	CreatedAt string

	completed bool // Payload was completed from the mention (write it back)
}

// UndispatchedEvents returns up to limit events not yet fanned out, oldest
// first.
func (s *Store) UndispatchedEvents(ctx context.Context, limit int) ([]*OutboxEvent, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT seq, id, project_id, type, payload, created_at, mention_id FROM events
		WHERE dispatched = 0 ORDER BY seq LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("undispatched events: %w", err)
	}
	var out []*OutboxEvent
	var refs []*string
	for rows.Next() {
		var e OutboxEvent
		var ref *string
		if err := rows.Scan(&e.Seq, &e.ID, &e.ProjectID, &e.Type, &e.Payload, &e.CreatedAt, &ref); err != nil {
			rows.Close()
			return nil, fmt.Errorf("undispatched events: %w", err)
		}
		out = append(out, &e)
		refs = append(refs, ref)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, e := range out {
		if refs[i] == nil {
			continue
		}
		if e.Payload, err = s.completeMentionEvent(ctx, e.Payload, *refs[i]); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		e.completed = true
	}
	return out, nil
}

// AlertNotice is one alert a mention.created event triggers.
type AlertNotice struct {
	AlertID string
	Digest  bool            // queue for the alert's next digest instead of sending now
	Mention json.RawMessage // the mention record (data.mention)
}

// Fanout is where one event goes: a delivery per webhook, a notification
// (or digest item) per alert.
type Fanout struct {
	Event      *OutboxEvent
	WebhookIDs []string
	Alerts     []AlertNotice
}

// Dispatch writes the deliveries and notifications of fanouts, in event
// order, and marks their events dispatched, all in one transaction. An
// event another instance dispatched meanwhile is skipped, so no delivery is
// created twice. firstAttempt is the next_attempt_at of the new rows.
// It returns how many events it dispatched.
func (s *Store) Dispatch(ctx context.Context, fanouts []Fanout, firstAttempt time.Time) (int, error) {
	return s.DispatchTo(ctx, fanouts, firstAttempt, nil)
}

// Handoff gives new webhook deliveries straight to the worker that makes
// them, leased, so its running lanes neither claim nor read them back.
type Handoff struct {
	Owner string
	Until time.Time // lease expiry
	// Take is asked inside the fan-out transaction, for each webhook that
	// gets deliveries, with the seq of its last pending delivery (0: none).
	// When it returns true, the first new delivery of the webhook is leased
	// to Owner until Until and the new deliveries are passed to Taken.
	// Taking is only safe when the caller holds everything pending before
	// (lastPending is the last delivery it holds, or 0).
	Take func(webhookID string, lastPending int64) bool
	// Taken gets the taken deliveries of one webhook, in order, once their
	// transaction has committed.
	Taken func(webhookID string, jobs []*Job)
}

// DispatchTo is Dispatch with an optional hand-off of the new deliveries.
func (s *Store) DispatchTo(ctx context.Context, fanouts []Fanout, firstAttempt time.Time, h *Handoff) (int, error) {
	// Transactions of at most dispatchRows new rows, so an event recorded
	// meanwhile (ingestion) never waits long for the writer.
	n := 0
	for len(fanouts) > 0 {
		k, rows := 0, 0
		for k < len(fanouts) && (k == 0 || k < dispatchRows && rows+len(fanouts[k].WebhookIDs)+len(fanouts[k].Alerts) <= dispatchRows) {
			rows += len(fanouts[k].WebhookIDs) + len(fanouts[k].Alerts)
			k++
		}
		m, err := s.dispatch(ctx, fanouts[:k], firstAttempt, h)
		n += m
		if err != nil {
			return n, err
		}
		fanouts = fanouts[k:]
	}
	return n, nil
}

// dispatchRows bounds the rows one fan-out transaction writes, so an event
// being recorded (ingestion) waits a couple of milliseconds at most: delivery
// rows are small (the body stays in the event), about 8 µs of CPU each.
const dispatchRows = 256

// insertRows bounds the rows of one INSERT statement.
const insertRows = 256

// dispatch writes one fan-out transaction, in named steps: claim the events
// (one statement marks them dispatched and writes back the bodies completed
// from their mention), look up the webhooks that still exist, let the
// caller take some of them (hand-off), insert the webhook deliveries in
// multi-row statements, and queue the alert notifications. Statements cost
// more than rows here. At most dispatchRows events (and rows) keep the
// statements far below SQLite's 32766 variables. The taken deliveries reach
// the caller once the transaction has committed.
func (s *Store) dispatch(ctx context.Context, fanouts []Fanout, firstAttempt time.Time, h *Handoff) (int, error) {
	n := 0
	t, first := now(), FormatTime(firstAttempt)
	var taken map[string][]*Job
	err := s.tx(ctx, func(tx *sql.Tx) error {
		f := &fanoutTx{ctx: ctx, tx: tx, h: h, now: t, first: first, taken: map[string][]*Job{}}
		n, taken = 0, f.taken
		live, err := f.claimEvents(fanouts)
		if err != nil {
			return err
		}
		n = len(f.marked)
		if n == 0 {
			return nil
		}
		if err := f.readWebhooks(live); err != nil {
			return err
		}
		f.handOff()
		if err := f.insertDeliveries(live); err != nil {
			return err
		}
		return f.insertNotices(live)
	})
	if err != nil {
		return 0, fmt.Errorf("dispatch events: %w", err)
	}
	for wid, jobs := range taken {
		h.Taken(wid, jobs)
	}
	return n, nil
}

// fanoutTx is one fan-out transaction in the making: what each step of
// dispatch learns for the next.
type fanoutTx struct {
	ctx   context.Context
	tx    *sql.Tx
	h     *Handoff // nil: nothing is handed off
	now   string   // created_at and updated_at of the new rows
	first string   // next_attempt_at of the new rows

	marked map[int64]bool    // the events this transaction dispatches
	hooks  map[string]string // webhook id → project id; "" when deleted since the fan-out was planned
	last   map[string]int64  // webhook id → seq of its last pending delivery (0: none)
	take   map[string]bool   // the webhooks the caller takes (hand-off)
	taken  map[string][]*Job // the taken deliveries, per webhook, in order
}

// claimEvents marks the events of fanouts dispatched and returns the
// fan-outs whose event it marked, in order. Events another instance
// dispatched meanwhile are not returned, so no delivery is created twice.
func (f *fanoutTx) claimEvents(fanouts []Fanout) ([]Fanout, error) {
	var q strings.Builder
	args := make([]any, 0, 2*len(fanouts))
	q.WriteString(`UPDATE events SET dispatched = 1, payload = COALESCE(v.column2, events.payload) FROM (VALUES `)
	for i, fo := range fanouts {
		if i > 0 {
			q.WriteByte(',')
		}
		// Typed: PostgreSQL reads an untyped VALUES parameter as text.
		q.WriteString(`(CAST(? AS BIGINT),CAST(? AS TEXT))`)
		var body any
		if fo.Event.completed {
			// Deliveries read the body from the event from now on.
			body = fo.Event.Payload
		}
		args = append(args, fo.Event.Seq, body)
	}
	q.WriteString(`) AS v WHERE events.seq = v.column1 AND events.dispatched = 0 RETURNING events.seq`)
	rows, err := f.tx.QueryContext(f.ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	f.marked = make(map[int64]bool, len(fanouts))
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return nil, err
		}
		f.marked[seq] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var live []Fanout
	for _, fo := range fanouts {
		if f.marked[fo.Event.Seq] {
			live = append(live, fo)
		}
	}
	return live, nil
}

// readWebhooks finds which webhooks of the claimed fan-outs still exist
// (one may have been deleted since the fan-out was planned), with their
// projects and the last pending delivery of each, which tells the hand-off
// whether the caller holds everything queued before.
func (f *fanoutTx) readWebhooks(live []Fanout) error {
	f.hooks, f.last = map[string]string{}, map[string]int64{}
	var args []any
	for _, fo := range live {
		for _, id := range fo.WebhookIDs {
			if _, ok := f.hooks[id]; !ok {
				f.hooks[id] = ""
				args = append(args, id)
			}
		}
	}
	if len(args) == 0 {
		return nil
	}
	rows, err := f.tx.QueryContext(f.ctx, `SELECT id, project_id, COALESCE((SELECT d.seq FROM deliveries d
			WHERE d.webhook_id = webhooks.id AND d.status = 'pending' ORDER BY d.seq DESC LIMIT 1), 0)
		FROM webhooks WHERE id IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, pid string
		var seq int64
		if err := rows.Scan(&id, &pid, &seq); err != nil {
			rows.Close()
			return err
		}
		f.hooks[id], f.last[id] = pid, seq
	}
	rows.Close()
	return rows.Err()
}

// handOff asks the caller, for each webhook that gets deliveries, whether
// it takes them (see Handoff).
func (f *fanoutTx) handOff() {
	f.take = map[string]bool{}
	if f.h == nil {
		return
	}
	for id, pid := range f.hooks {
		if pid != "" && f.h.Take(id, f.last[id]) {
			f.take[id] = true
		}
	}
}

// insertDeliveries writes one delivery per live webhook of each claimed
// event, in event order (seq order is the order per webhook). An empty payload
// means the event's body (see 050). The first delivery of a taken webhook
// carries the hand-off's lease (handoffLease) and every taken delivery is
// kept for the caller.
func (f *fanoutTx) insertDeliveries(live []Fanout) error {
	ins := &deliveryInsert{ctx: f.ctx, tx: f.tx}
	leased := map[string]bool{}
	for _, fo := range live {
		ev := fo.Event
		for _, wid := range fo.WebhookIDs {
			pid := f.hooks[wid]
			if pid == "" {
				continue
			}
			id := newDeliveryID()
			var owner, until any
			var job *Job
			if f.take[wid] {
				if !leased[wid] {
					leased[wid] = true
					owner, until = handoffLease(f.h)
				}
				job = &Job{ID: id, TargetID: wid, ProjectID: pid, EventID: ev.ID, EventType: ev.Type, Payload: ev.Payload,
					EventAt: ev.CreatedAt, CreatedAt: f.now}
				f.taken[wid] = append(f.taken[wid], job)
			}
			if err := ins.add(job, id, wid, pid, ev.ID, ev.Type, ev.Seq, f.first, owner, until, f.now, f.now); err != nil {
				return err
			}
		}
	}
	return ins.flush()
}

// insertNotices queues each claimed event's alert notifications: an item
// of the alert's next digest, or an instant notification. An alert deleted
// since the fan-out was planned gets nothing.
func (f *fanoutTx) insertNotices(live []Fanout) error {
	for _, fo := range live {
		ev := fo.Event
		for _, a := range fo.Alerts {
			var err error
			if a.Digest {
				_, err = f.tx.ExecContext(f.ctx, `INSERT INTO alert_digest_items(alert_id, event_id, mention, created_at)
					SELECT id, ?, ?, ? FROM alerts WHERE id = ?`, ev.ID, string(a.Mention), ev.CreatedAt, a.AlertID)
			} else {
				_, err = f.tx.ExecContext(f.ctx, `INSERT INTO alert_deliveries(id, alert_id, project_id, kind, event_ids, payload, first_event_at, next_attempt_at, created_at, updated_at)
					SELECT ?, id, project_id, 'instant', ?, ?, ?, ?, ?, ? FROM alerts WHERE id = ?`,
					newDeliveryID(), toJSON([]string{ev.ID}), "["+string(a.Mention)+"]", ev.CreatedAt, f.first, f.now, f.now, a.AlertID)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// deliveryInsert batches new webhook deliveries into multi-row INSERTs of
// at most insertRows rows, so statements stay far below SQLite's 32766
// variables even for an event going to thousands of webhooks.
type deliveryInsert struct {
	ctx  context.Context
	tx   *sql.Tx
	args []any
	rows int
	jobs map[string]*Job // the taken deliveries by id, whose seq is read back
}

// add queues one row (the columns of flush's INSERT, in order); job, when
// not nil, is the taken delivery the row is, and gets its seq.
func (b *deliveryInsert) add(job *Job, row ...any) error {
	if job != nil {
		if b.jobs == nil {
			b.jobs = map[string]*Job{}
		}
		b.jobs[job.ID] = job
	}
	b.args = append(b.args, row...)
	if b.rows++; b.rows == insertRows {
		return b.flush()
	}
	return nil
}

// flush writes the queued rows.
func (b *deliveryInsert) flush() error {
	if b.rows == 0 {
		return nil
	}
	defer func() { b.rows, b.args = 0, b.args[:0] }()
	var q strings.Builder
	q.WriteString(`INSERT INTO deliveries(id, webhook_id, project_id, event_id, event_type, event_seq, payload, next_attempt_at, lease_owner, lease_until, created_at, updated_at) VALUES `)
	for i := range b.rows {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(`(?,?,?,?,?,?,'',?,?,?,?,?)`)
	}
	if len(b.jobs) == 0 {
		_, err := b.tx.ExecContext(b.ctx, q.String(), b.args...)
		return err
	}
	// The seqs of the taken ones (RETURNING order is not promised, ids
	// are).
	q.WriteString(` RETURNING id, seq`)
	rows, err := b.tx.QueryContext(b.ctx, q.String(), b.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			return err
		}
		if j := b.jobs[id]; j != nil {
			j.Seq = seq
		}
	}
	return rows.Err()
}

// newDeliveryID is a time-ordered UUID (v7). Deliveries are written ten a
// second per event and more; random v4 ids would land on a random page of
// the unique id index each time and multiply what every commit writes.
func newDeliveryID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// Outbox names one of the two delivery queues.
type Outbox int

const (
	// WebhookOutbox is the deliveries table, one queue per webhook.
	WebhookOutbox Outbox = iota
	// AlertOutbox is the alert_deliveries table, one queue per alert.
	AlertOutbox
)

func (o Outbox) String() string {
	if o == AlertOutbox {
		return "alert"
	}
	return "webhook"
}

// outboxSQL is what differs between the two queues. The names are
// constants, never input.
type outboxSQL struct {
	table, target, parent string
	from                  string // the table as d, with what Job needs
	cols                  string // in Job scan order
}

func (o Outbox) sql() outboxSQL {
	if o == AlertOutbox {
		return outboxSQL{table: "alert_deliveries", target: "alert_id", parent: "alerts", from: `alert_deliveries d`,
			cols: `d.seq, d.id, d.alert_id, d.project_id, d.event_ids, d.kind, d.payload, d.attempts, 0, d.first_event_at, d.created_at, d.next_attempt_at, d.lease_until`}
	}
	// The event row gives when it was recorded (the lag metric); it may
	// have been purged already.
	// A delivery made by Dispatch has no body of its own (payload ''): it is
	// the event's.
	return outboxSQL{table: "deliveries", target: "webhook_id", parent: "webhooks",
		from: `deliveries d LEFT JOIN events e ON e.seq = COALESCE(d.event_seq, (SELECT seq FROM events WHERE id = d.event_id))`,
		cols: `d.seq, d.id, d.webhook_id, d.project_id, d.event_id, d.event_type,
			CASE WHEN d.payload = '' THEN COALESCE(e.payload, '') ELSE d.payload END,
			d.attempts, d.replay_of IS NOT NULL,
			CASE WHEN d.replay_of IS NULL THEN COALESCE(e.created_at, d.created_at) ELSE d.created_at END,
			d.created_at, d.next_attempt_at, d.lease_until`}
}

// Head is the oldest pending delivery of one webhook or alert: the only
// one that may be sent, so deliveries go out in order.
type Head struct {
	TargetID      string
	NextAttemptAt string
	LeaseUntil    string // "" when not leased
	// Attempts already made: more than 0 means the receiver failed the
	// last time (the worker sends retries in lanes of their own).
	Attempts int
}

// Heads returns the head of every active target's pending queue.
func (s *Store) Heads(ctx context.Context, o Outbox) ([]Head, error) {
	q := o.sql()
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT p.id, COALESCE(d.next_attempt_at, ''), COALESCE(d.lease_until, ''), d.attempts
		FROM `+q.parent+` p JOIN `+q.table+` d ON d.seq = (
			SELECT seq FROM `+q.table+` WHERE `+q.target+` = p.id AND status = 'pending' ORDER BY seq LIMIT 1)
		WHERE p.active = 1`)
	if err != nil {
		return nil, fmt.Errorf("%s heads: %w", o, err)
	}
	defer rows.Close()
	var out []Head
	for rows.Next() {
		var h Head
		if err := rows.Scan(&h.TargetID, &h.NextAttemptAt, &h.LeaseUntil, &h.Attempts); err != nil {
			return nil, fmt.Errorf("%s heads: %w", o, err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Job is a leased delivery.
type Job struct {
	Seq       int64
	ID        string
	TargetID  string // webhook or alert
	ProjectID string
	EventID   string // webhook: the event id; alert: JSON array of event ids
	EventType string // webhook: the event type; alert: instant or digest
	Payload   string
	Attempts  int // made before this one
	Replay    bool
	EventAt   string // when the (oldest) event was recorded; a replay's own creation
	CreatedAt string
}

// DisableWebhook turns a webhook off with a reason (a receiver answered 410).
func (s *Store) DisableWebhook(ctx context.Context, id, reason string) error {
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE webhooks SET active = 0, disabled_reason = ?, updated_at = ? WHERE id = ?`, reason, now(), id)
	if err != nil {
		return fmt.Errorf("disable webhook: %w", err)
	}
	return nil
}

// DigestQueue is the backlog of one digest alert.
type DigestQueue struct {
	AlertID string
	Digest  string // hourly or daily
	Oldest  string // created_at of the oldest queued event
	Items   int
}

// DigestQueues lists the digest backlogs of active alerts.
func (s *Store) DigestQueues(ctx context.Context) ([]DigestQueue, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT i.alert_id, a.digest, MIN(i.created_at), COUNT(*)
		FROM alert_digest_items i JOIN alerts a ON a.id = i.alert_id WHERE a.active = 1 GROUP BY i.alert_id, a.digest`)
	if err != nil {
		return nil, fmt.Errorf("digest queues: %w", err)
	}
	defer rows.Close()
	var out []DigestQueue
	for rows.Next() {
		var d DigestQueue
		if err := rows.Scan(&d.AlertID, &d.Digest, &d.Oldest, &d.Items); err != nil {
			return nil, fmt.Errorf("digest queues: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// FlushDigest turns an alert's queued mentions recorded before cutoff into
// one pending notification, in one transaction. It reports whether there
// was anything to send.
func (s *Store) FlushDigest(ctx context.Context, alertID string, cutoff, now time.Time) (bool, error) {
	flushed := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		flushed = false
		var projectID string
		if err := tx.QueryRowContext(ctx, `SELECT project_id FROM alerts WHERE id = ?`, alertID).Scan(&projectID); err != nil {
			if err == sql.ErrNoRows {
				return nil
			}
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, event_id, mention, created_at FROM alert_digest_items
			WHERE alert_id = ? AND created_at < ? ORDER BY seq`, alertID, FormatTime(cutoff))
		if err != nil {
			return err
		}
		defer rows.Close()
		var maxSeq int64
		var ids []string
		var mentions []string
		oldest := ""
		for rows.Next() {
			var seq int64
			var id, m, at string
			if err := rows.Scan(&seq, &id, &m, &at); err != nil {
				return err
			}
			maxSeq = max(maxSeq, seq)
			ids = append(ids, id)
			mentions = append(mentions, m)
			if oldest == "" || at < oldest {
				oldest = at
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if len(ids) == 0 {
			return nil
		}
		t := FormatTime(now)
		if _, err := tx.ExecContext(ctx, `INSERT INTO alert_deliveries(id, alert_id, project_id, kind, event_ids, payload, first_event_at, next_attempt_at, created_at, updated_at)
			VALUES (?,?,?,'digest',?,?,?,?,?,?)`, newDeliveryID(), alertID, projectID, toJSON(ids), "["+strings.Join(mentions, ",")+"]", oldest, t, t, t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_digest_items WHERE alert_id = ? AND created_at < ? AND seq <= ?`, alertID, FormatTime(cutoff), maxSeq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET last_digest_at = ? WHERE id = ?`, t, alertID); err != nil {
			return err
		}
		flushed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("flush digest: %w", err)
	}
	return flushed, nil
}

// AlertDelivery is a row of an alert's notification log.
type AlertDelivery struct {
	ID             string
	AlertID        string
	Kind           string
	EventIDs       string
	Status         string
	Attempts       int
	NextAttemptAt  *string
	LastStatusCode *int
	LastError      string
	CreatedAt      string
}

// ListAlertDeliveries lists an alert's notifications, newest first.
func (s *Store) ListAlertDeliveries(ctx context.Context, alertID string, limit int) ([]*AlertDelivery, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT id, alert_id, kind, event_ids, status, attempts, next_attempt_at, last_status_code, last_error, created_at
		FROM alert_deliveries WHERE alert_id = ? ORDER BY seq DESC LIMIT ?`, alertID, limit)
	if err != nil {
		return nil, fmt.Errorf("list alert deliveries: %w", err)
	}
	defer rows.Close()
	out := []*AlertDelivery{}
	for rows.Next() {
		var d AlertDelivery
		if err := rows.Scan(&d.ID, &d.AlertID, &d.Kind, &d.EventIDs, &d.Status, &d.Attempts, &d.NextAttemptAt, &d.LastStatusCode, &d.LastError, &d.CreatedAt); err != nil {
			return nil, fmt.Errorf("list alert deliveries: %w", err)
		}
		out = append(out, &d)
	}
	return out, rows.Err()
}
