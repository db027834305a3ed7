package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The lease policy of the delivery queues, in one place. Several instances
// may share the queues; a lease says which one sends a queue's next
// deliveries, and until when.
//
//   - Only the head of a queue (its oldest pending delivery) carries a
//     lease, and that lease covers the whole queue: nothing behind a pending
//     head is ever sent, so deliveries go out in order and a claim is one
//     row write however long the run.
//   - A head may be sent when it is due and its lease is absent or expired
//     (claimable, leaseFreeSQL). Claiming is one conditional update
//     (claimHeadSQL) that also rejects a stale read: the head is still
//     pending, due, free and still the head, or someone else got there
//     first.
//   - The fan-out may lease new deliveries straight to the worker that makes
//     them (Handoff): the first new delivery of a taken webhook carries the
//     lease (handoffLease).
//   - As a run progresses the lease moves on to the delivery that becomes
//     the head (Record.Next), renewed.
//   - A success is recorded even if the lease was lost meanwhile (the
//     receiver has the event); a retry or a failure only while the owner
//     still holds the lease (heldBySQL), so a slow instance cannot undo
//     another's progress.
//   - Leases not used are given back (ReleaseLeases); one never given back
//     (an instance died) simply expires.
//   - How long a lease lasts is the caller's choice (the worker leases for
//     twice its send timeout plus a margin).

// claimable reports whether a pending delivery may be sent at now: it is
// due, and not leased or its lease has expired. Timestamps are in
// TimeFormat, so they compare as strings.
func claimable(nextAttemptAt, leaseUntil sql.NullString, now string) bool {
	return nextAttemptAt.String <= now && (!leaseUntil.Valid || leaseUntil.String <= now)
}

// leaseFreeSQL is claimable's lease half in SQL: the row is not leased, or
// its lease expired at the bound time.
const leaseFreeSQL = `(lease_until IS NULL OR lease_until <= ?)`

// heldBySQL restricts an update to the rows the bound owner leases.
const heldBySQL = `lease_owner = ?`

// claimHeadSQL leases a queue's head (bound: owner, lease until, head seq,
// now, now, target id, head seq) if it is still pending, due, free and the
// head.
// It is one statement, outside the serialised write transaction: on SQLite
// the single writer runs it alone; on PostgreSQL the second of two
// processes updating the head waits for the first's row lock and then
// re-checks the WHERE against the committed row (lease now live: no row),
// so exactly one claims it, as FOR UPDATE would.
func claimHeadSQL(q outboxSQL) string {
	return `UPDATE ` + q.table + ` SET lease_owner = ?, lease_until = ?
		WHERE seq = ? AND status = 'pending' AND next_attempt_at <= ? AND ` + leaseFreeSQL + `
		AND NOT EXISTS (SELECT 1 FROM ` + q.table + ` e WHERE e.` + q.target + ` = ? AND e.status = 'pending' AND e.seq < ?)`
}

// handoffLease is the lease the first new delivery of a webhook the caller
// takes carries: the hand-off's owner, until its expiry.
func handoffLease(h *Handoff) (owner, until any) {
	return h.Owner, FormatTime(h.Until)
}

// ClaimRun returns up to limit consecutive deliveries from the head of
// target's pending queue that are due at now, and leases the head to owner
// until leaseUntil. It returns none when the head is not available (not
// due, or leased by someone else). Only the head carries the lease: since
// nothing behind a pending head is ever sent, the head's lease covers the
// whole queue, and RecordAttempts moves it along as the run progresses.
// That keeps a claim to one row write however long the run.
func (s *Store) ClaimRun(ctx context.Context, o Outbox, targetID, owner string, now, leaseUntil time.Time, limit int) ([]*Job, error) {
	q := o.sql()
	nowS := FormatTime(now)
	// Read on a reader connection: the writer is only needed for the one
	// conditional update below, which also rejects a stale read.
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+q.cols+` FROM `+q.from+` WHERE d.`+q.target+` = ? AND d.status = 'pending'
		AND EXISTS (SELECT 1 FROM `+q.parent+` p WHERE p.id = d.`+q.target+` AND p.active = 1)
		ORDER BY d.seq LIMIT ?`, targetID, limit)
	if err != nil {
		return nil, fmt.Errorf("claim %s deliveries: %w", o, err)
	}
	defer rows.Close()
	var jobs []*Job
	for rows.Next() {
		var j Job
		var next, lease sql.NullString
		if err := rows.Scan(&j.Seq, &j.ID, &j.TargetID, &j.ProjectID, &j.EventID, &j.EventType, &j.Payload, &j.Attempts, &j.Replay,
			&j.EventAt, &j.CreatedAt, &next, &lease); err != nil {
			return nil, fmt.Errorf("claim %s deliveries: %w", o, err)
		}
		if !claimable(next, lease, nowS) {
			break
		}
		jobs = append(jobs, &j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim %s deliveries: %w", o, err)
	}
	rows.Close()
	if len(jobs) == 0 {
		return nil, nil
	}
	// The head is still pending, due and free, and still the head (only
	// later deliveries are ever added), or someone else got there first.
	res, err := s.wr(ctx).ExecContext(ctx, claimHeadSQL(q),
		owner, FormatTime(leaseUntil), jobs[0].Seq, nowS, nowS, targetID, jobs[0].Seq)
	if err != nil {
		return nil, fmt.Errorf("claim %s deliveries: %w", o, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil
	}
	return jobs, nil
}

// Attempt is the outcome of one send, as the delivery log records it.
type Attempt struct {
	Seq           int64
	Status        string // delivered, pending (retry at NextAttemptAt) or failed
	StatusCode    int    // 0: no response
	Response      string
	Error         string
	NextAttemptAt time.Time
	At            time.Time
}

// Lease is a lease to take on (or keep) a delivery.
type Lease struct {
	Seq   int64
	Until time.Time
}

// Record is a batch of outcomes of one queue, and where its lease goes.
type Record struct {
	Outbox   Outbox
	Attempts []Attempt
	// Next, when the run goes on, is the delivery that becomes the head and
	// takes over owner's lease.
	Next *Lease
}

// RecordAttempts stores outcomes and clears their leases, and moves each
// record's lease to its Next, all in one transaction (the worker groups
// the records of every queue it sends to into one commit). A success is
// recorded even if the lease was lost meanwhile (the receiver has the
// event); a retry or failure only while owner still holds the lease, so a
// slow instance cannot undo another's progress.
func (s *Store) RecordAttempts(ctx context.Context, owner string, recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	st, err := s.recordStatements(ctx)
	if err != nil {
		return fmt.Errorf("record delivery attempts: %w", err)
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		inTx := map[*sql.Stmt]*sql.Stmt{}
		exec := func(stmt *sql.Stmt, args ...any) error {
			ts := inTx[stmt]
			if ts == nil {
				ts = tx.StmtContext(ctx, stmt)
				inTx[stmt] = ts
			}
			_, err := ts.ExecContext(ctx, args...)
			return err
		}
		// Successes first: nothing they do depends on leases (a success
		// is always recorded), and a lease moved onto a delivery recorded
		// as delivered does nothing.
		for _, r := range recs {
			for _, a := range r.Attempts {
				if a.Status == "delivered" {
					if err := exec(st[r.Outbox].success, statusCode(a), a.Response, a.Error, FormatTime(a.At), a.Seq); err != nil {
						return err
					}
				}
			}
		}
		// Then, in order, retries and failures, only under our lease.
		for _, r := range recs {
			for _, a := range r.Attempts {
				if a.Status == "delivered" {
					continue
				}
				var next any
				if a.Status == "pending" {
					next = FormatTime(a.NextAttemptAt)
				}
				if err := exec(st[r.Outbox].underLease, a.Status, statusCode(a), a.Response, a.Error, next, FormatTime(a.At), a.Seq, owner); err != nil {
					return err
				}
			}
		}
		// Last, where each lease goes: to a delivery no record attempts
		// (the one its lane sends next).
		for _, r := range recs {
			if r.Next != nil {
				if err := exec(st[r.Outbox].moveLease, owner, FormatTime(r.Next.Until), r.Next.Seq); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record delivery attempts: %w", err)
	}
	return nil
}

// recordStmts are RecordAttempts' statements for one queue, one row each.
type recordStmts struct {
	success, underLease, moveLease *sql.Stmt
}

// recordStatements returns RecordAttempts' statements for both queues,
// prepared on the writer the first time and kept. The worker stores each
// answer before its lane's next send, so a commit holds about one row per
// lane, and parsing a statement (as multi-row statements of every size
// needed) cost more than running it. They are prepared outside any
// transaction: on SQLite the transaction holds the only writer
// connection. (Tx.StmtContext reuses a statement prepared on the
// transaction's connection, and prepares it again on another one.)
func (s *Store) recordStatements(ctx context.Context) (*[2]recordStmts, error) {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	if s.record != nil {
		return s.record, nil
	}
	var out [2]recordStmts
	for _, o := range []Outbox{WebhookOutbox, AlertOutbox} {
		table := o.sql().table
		for _, p := range []struct {
			dst **sql.Stmt
			q   string
		}{
			{&out[o].success, `UPDATE ` + table + ` SET status = 'delivered', attempts = attempts + 1, last_status_code = ?,
				last_response = ?, last_error = ?, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
				WHERE seq = ? AND status = 'pending'`},
			{&out[o].underLease, `UPDATE ` + table + ` SET status = ?, attempts = attempts + 1, last_status_code = ?, last_response = ?,
				last_error = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
				WHERE seq = ? AND status = 'pending' AND ` + heldBySQL},
			{&out[o].moveLease, `UPDATE ` + table + ` SET lease_owner = ?, lease_until = ? WHERE seq = ? AND status = 'pending'`},
		} {
			st, err := s.w.PrepareContext(ctx, p.q)
			if err != nil {
				return nil, err
			}
			*p.dst = st
		}
	}
	s.record = &out
	return s.record, nil
}

// statusCode is an attempt's response status as stored: NULL when there
// was no response.
func statusCode(a Attempt) any {
	if a.StatusCode == 0 {
		return nil
	}
	return a.StatusCode
}

// ReleaseLeases gives back leased deliveries that were not attempted.
func (s *Store) ReleaseLeases(ctx context.Context, o Outbox, owner string, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	q := o.sql()
	args := []any{owner}
	for _, s := range seqs {
		args = append(args, s)
	}
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE `+q.table+` SET lease_owner = NULL, lease_until = NULL
		WHERE `+heldBySQL+` AND seq IN (?`+strings.Repeat(",?", len(seqs)-1)+`)`, args...)
	if err != nil {
		return fmt.Errorf("release %s leases: %w", o, err)
	}
	return nil
}
