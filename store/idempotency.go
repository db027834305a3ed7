package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// IdemRecord is a stored idempotent request: its answer.
type IdemRecord struct {
	RequestHash string
	State       string // done (older versions also wrote running)
	Status      int
	Response    []byte
}

// An idempotent request runs in one write transaction with its record
// (docs/decisions.md#idempotency): BeginIdem opens it and looks the key up
// inside it; the request's writes go through the transaction's context;
// FinishIdem stores the answer and commits both at once. A crash before
// that commit leaves neither the change nor a claim (the key is free at
// once after a restart); a crash after it leaves both (a retry replays).
// A second request with the key waits for the first's transaction (writes
// are serialised on both backends) and then finds its answer.

// BeginIdem opens the request's transaction and returns the key's live
// answer, if one is stored: then the transaction is already closed and
// the caller replays it. Otherwise the caller runs the request with
// t.Context() and ends with FinishIdem or t.Rollback.
func (s *Store) BeginIdem(ctx context.Context, scope, capability, key string) (t *RequestTx, rec *IdemRecord, err error) {
	t, err = s.BeginRequestTx(ctx)
	if err != nil {
		return nil, nil, err
	}
	rec, err = s.idemRecord(t.Context(), scope, capability, key)
	if err != nil || rec != nil {
		t.Rollback()
		return nil, rec, err
	}
	return t, nil, nil
}

// IdemLookup returns the key's live stored answer, or nil.
func (s *Store) IdemLookup(ctx context.Context, scope, capability, key string) (*IdemRecord, error) {
	return s.idemRecord(ctx, scope, capability, key)
}

func (s *Store) idemRecord(ctx context.Context, scope, capability, key string) (*IdemRecord, error) {
	var rec IdemRecord
	var expires string
	var resp []byte
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT request_hash, state, status, response, expires_at FROM idempotency
		WHERE scope = ? AND capability = ? AND key = ? AND state = 'done'`,
		scope, capability, key).Scan(&rec.RequestHash, &rec.State, &rec.Status, &resp, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	case expires <= now():
		return nil, nil // expired: the key is free again
	}
	rec.Response = resp
	return &rec, nil
}

// FinishIdem stores the answer of the request that ran in t and commits
// the request's writes with it; on any error nothing of the request is
// stored.
func (s *Store) FinishIdem(t *RequestTx, scope, capability, key, hash string, status int, response []byte, window time.Duration) error {
	ctx := context.WithoutCancel(t.Context())
	n := time.Now().UTC()
	_, err := t.tx.ExecContext(ctx, `INSERT INTO idempotency(scope,capability,key,request_hash,state,status,response,created_at,expires_at)
		VALUES (?,?,?,?,'done',?,?,?,?) ON CONFLICT(scope,capability,key) DO UPDATE SET request_hash = excluded.request_hash,
		state = excluded.state, status = excluded.status, response = excluded.response, created_at = excluded.created_at, expires_at = excluded.expires_at`,
		scope, capability, key, hash, status, response, FormatTime(n), FormatTime(n.Add(window)))
	if err != nil {
		t.Rollback()
		s.noteWrite(err)
		return fmt.Errorf("storing idempotent response: %w", err)
	}
	return t.Commit()
}

// PurgeExpired removes expired idempotency records, sessions and old
// dispatched events, and what PurgeOAuth removes (OAuth clients nobody
// approved within a day, expired codes and tokens). serve's purge worker
// runs it hourly.
func (s *Store) PurgeExpired(ctx context.Context) error {
	t := now()
	if _, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM idempotency WHERE expires_at < ?`, t); err != nil {
		return err
	}
	if _, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ?`, t); err != nil {
		return err
	}
	if _, err := s.PurgeOAuth(ctx, time.Now()); err != nil {
		return err
	}
	// The outbox keeps fanned-out events for a month. Deliveries read their
	// body from the event; when one is purged (migration 050's trigger),
	// its finished deliveries go with it and pending ones keep a copy.
	month := FormatTime(time.Now().AddDate(0, 0, -30))
	_, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM events WHERE dispatched = 1 AND created_at < ?`, month)
	return err
}
