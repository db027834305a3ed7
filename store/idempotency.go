package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// IdemRecord is a stored idempotent request.
type IdemRecord struct {
	RequestHash string
	State       string // running, done
	Status      int
	Response    []byte
}

// staleRunning is how long a "running" record blocks its key; a process
// that died mid-request must not block the key for the whole window.
const staleRunning = 2 * time.Minute

// IdemBegin claims (scope, capability, key) for a new request with hash.
// It returns nil when the caller now owns the key and must run the request,
// or the existing record (running, or done to replay) otherwise.
func (s *Store) IdemBegin(ctx context.Context, scope, capability, key, hash string, window time.Duration) (*IdemRecord, error) {
	var existing *IdemRecord
	err := s.tx(ctx, func(tx *sql.Tx) error {
		t := time.Now().UTC()
		var rec IdemRecord
		var created, expires string
		err := tx.QueryRowContext(ctx, `SELECT request_hash, state, status, response, created_at, expires_at FROM idempotency WHERE scope = ? AND capability = ? AND key = ?`,
			scope, capability, key).Scan(&rec.RequestHash, &rec.State, &rec.Status, &rec.Response, &created, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			live := expires > FormatTime(t)
			stale := rec.State == "running" && created < FormatTime(t.Add(-staleRunning))
			if live && !stale {
				existing = &rec
				return nil
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO idempotency(scope,capability,key,request_hash,state,status,response,created_at,expires_at)
			VALUES (?,?,?,?,'running',0,NULL,?,?) ON CONFLICT(scope,capability,key) DO UPDATE SET request_hash = excluded.request_hash,
			state = excluded.state, status = excluded.status, response = excluded.response, created_at = excluded.created_at, expires_at = excluded.expires_at`, scope, capability, key, hash, FormatTime(t), FormatTime(t.Add(window)))
		return err
	})
	return existing, err
}

// IdemFinish stores the response of the request that owns the key.
func (s *Store) IdemFinish(ctx context.Context, scope, capability, key string, status int, response []byte) error {
	_, err := s.w.ExecContext(ctx, `UPDATE idempotency SET state = 'done', status = ?, response = ? WHERE scope = ? AND capability = ? AND key = ?`,
		status, response, scope, capability, key)
	return err
}

// IdemAbort forgets a key whose request must not be replayed (refused or failed).
func (s *Store) IdemAbort(ctx context.Context, scope, capability, key string) error {
	_, err := s.w.ExecContext(ctx, `DELETE FROM idempotency WHERE scope = ? AND capability = ? AND key = ? AND state = 'running'`, scope, capability, key)
	return err
}

// PurgeExpired removes expired idempotency records, sessions and old
// dispatched events.
func (s *Store) PurgeExpired(ctx context.Context) error {
	t := now()
	if _, err := s.w.ExecContext(ctx, `DELETE FROM idempotency WHERE expires_at < ?`, t); err != nil {
		return err
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at < ?`, t); err != nil {
		return err
	}
	// The outbox keeps fanned-out events for a month. Deliveries read their
	// body from the event; when one is purged (migration 050's trigger),
	// its finished deliveries go with it and pending ones keep a copy.
	month := FormatTime(time.Now().AddDate(0, 0, -30))
	_, err := s.w.ExecContext(ctx, `DELETE FROM events WHERE dispatched = 1 AND created_at < ?`, month)
	return err
}
