package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// A request's transaction (docs/decisions.md#idempotency): an idempotent
// write and its stored answer must commit together, or a crash between
// them leaves a change whose answer is lost (and a retry repeats it). The
// capability layer cannot see SQL, so the transaction travels in the
// context: while a context carries one of this store's transactions, every
// query of the store runs in it (reads too, so they see the request's own
// writes), and s.tx nests in it as a savepoint. Without one, nothing
// changes: queries use the pools as before.

// querier is what both the pools and a transaction offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

type requestTxKey struct{}

// requestTx is a transaction carried by a context, for one store.
type requestTx struct {
	s     *Store
	tx    *sql.Tx
	mu    sync.Mutex
	after []func()
}

// requestTxOf returns ctx's transaction for this store, or nil.
// AfterCommit runs fn once what ctx's request wrote is committed: at once
// without a request transaction, after its commit with one (never, if it
// rolls back). Work that other connections must see the change for (a
// scheduler nudge) goes here; on SQLite it would also wait for the
// request's own writer connection.
func (s *Store) AfterCommit(ctx context.Context, fn func()) {
	rt, ok := ctx.Value(requestTxKey{}).(*requestTx)
	if !ok || rt.s != s {
		fn()
		return
	}
	rt.mu.Lock()
	rt.after = append(rt.after, fn)
	rt.mu.Unlock()
}

func (s *Store) requestTxOf(ctx context.Context) *sql.Tx {
	if rt, ok := ctx.Value(requestTxKey{}).(*requestTx); ok && rt.s == s {
		return rt.tx
	}
	return nil
}

// rd is where a read runs: the request's transaction, else the read pool.
func (s *Store) rd(ctx context.Context) querier {
	if tx := s.requestTxOf(ctx); tx != nil {
		return tx
	}
	return s.r
}

// wr is where a write outside s.tx runs: the request's transaction (each
// statement in a savepoint on PostgreSQL, where a failed statement, such
// as a unique violation the caller turns into a 409, would otherwise abort
// the whole transaction), else the writer pool.
func (s *Store) wr(ctx context.Context) querier {
	if tx := s.requestTxOf(ctx); tx != nil {
		if s.pg {
			return savepointed{tx}
		}
		return tx
	}
	return storageWatch{s: s, q: s.w}
}

// savepointed runs each Exec in its own savepoint, so that its failure
// undoes only itself, as outside a transaction.
type savepointed struct{ tx *sql.Tx }

func (p savepointed) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if _, err := p.tx.ExecContext(ctx, `SAVEPOINT earshot_stmt`); err != nil {
		return nil, err
	}
	res, err := p.tx.ExecContext(ctx, query, args...)
	if err != nil {
		_, rerr := p.tx.ExecContext(context.WithoutCancel(ctx), `ROLLBACK TO SAVEPOINT earshot_stmt`)
		return nil, errors.Join(err, rerr)
	}
	if _, err := p.tx.ExecContext(ctx, `RELEASE SAVEPOINT earshot_stmt`); err != nil {
		return nil, err
	}
	return res, nil
}

func (p savepointed) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.tx.QueryContext(ctx, query, args...)
}

func (p savepointed) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.tx.QueryRowContext(ctx, query, args...)
}

// storageWatch is the writer pool noting whether writes fail for lack of
// space (storage.go).
type storageWatch struct {
	s *Store
	q querier
}

func (w storageWatch) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := w.q.ExecContext(ctx, query, args...)
	w.s.noteWrite(err)
	return res, err
}

func (w storageWatch) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := w.q.QueryContext(ctx, query, args...)
	w.s.noteWrite(err)
	return rows, err
}

func (w storageWatch) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return w.q.QueryRowContext(ctx, query, args...)
}

// RequestTx is an open write transaction carried by Context: every store
// call made with that context runs in it until Commit or Rollback.
type RequestTx struct {
	s    *Store
	conn *sql.Conn
	tx   *sql.Tx
	rt   *requestTx
	ctx  context.Context
	done bool
}

// BeginRequestTx opens a write transaction (on PostgreSQL holding the
// write lock, see tx) and returns it with a context that carries it. The
// transaction is not bound to ctx's cancellation: a request whose client
// went away still commits or rolls back as its code decides.
func (s *Store) BeginRequestTx(ctx context.Context) (*RequestTx, error) {
	if s.requestTxOf(ctx) != nil {
		return nil, errors.New("a request transaction is already open in this context")
	}
	// Waiting for the writer (SQLite) or a connection ends with ctx; the
	// transaction, once open, does not.
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		conn.Close()
		s.noteWrite(err)
		return nil, err
	}
	if s.pg {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, s.lockKey); err != nil {
			tx.Rollback()
			conn.Close()
			return nil, err
		}
	}
	t := &RequestTx{s: s, conn: conn, tx: tx, rt: &requestTx{s: s, tx: tx}}
	t.ctx = context.WithValue(ctx, requestTxKey{}, t.rt)
	return t, nil
}

// Context carries the transaction; pass it to every store call of the
// request.
func (t *RequestTx) Context() context.Context { return t.ctx }

// Commit commits; a failure (a full disk) means nothing of the request was
// stored.
func (t *RequestTx) Commit() error {
	if t.done {
		return errors.New("request transaction already finished")
	}
	t.done = true
	err := t.tx.Commit()
	t.conn.Close()
	t.s.noteWrite(err)
	if err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	t.rt.mu.Lock()
	after := t.rt.after
	t.rt.mu.Unlock()
	for _, fn := range after {
		fn()
	}
	return nil
}

// Rollback undoes the request's writes; after Commit it does nothing.
func (t *RequestTx) Rollback() {
	if t.done {
		return
	}
	t.done = true
	t.tx.Rollback()
	t.conn.Close()
}

// nestedTx runs fn inside the request's transaction tx, in a savepoint, so
// that a failing fn undoes only its own writes, as a failed s.tx would.
func (s *Store) nestedTx(ctx context.Context, tx *sql.Tx, fn func(tx *sql.Tx) error) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT earshot_nested`); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		if IsStorageFull(err) {
			s.noteWrite(err)
		}
		bg := context.WithoutCancel(ctx)
		if _, rerr := tx.ExecContext(bg, `ROLLBACK TO SAVEPOINT earshot_nested`); rerr != nil {
			return errors.Join(err, rerr)
		}
		tx.ExecContext(bg, `RELEASE SAVEPOINT earshot_nested`)
		return err
	}
	_, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT earshot_nested`)
	return err
}
