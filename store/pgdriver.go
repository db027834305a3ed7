package store

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The store's queries are written once, with SQLite's "?" and "?N"
// placeholders. On PostgreSQL a thin database/sql connector in front of
// pgx's own rewrites them to "$N" before pgx sees the statement, so both
// backends run the same query text wherever their SQL agrees; where it
// does not, the store branches on s.pg (see dialect.go).

// pgConnector opens pgx connections whose statements are rebound.
type pgConnector struct{ inner driver.Connector }

func newPGConnector(url string) (driver.Connector, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	// pgx prepares and caches statements per connection, and PostgreSQL
	// may settle a prepared statement on a generic plan, made without the
	// parameters' values: for a search (LIKE over the pg_trgm index) that
	// plan walks the whole project in date order whatever the needle, so
	// a rare search reads every row. Planning each execution with its
	// values costs well under a millisecond and keeps the trigram index
	// in use. A URL that sets plan_cache_mode itself wins.
	if _, ok := cfg.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	return pgConnector{stdlib.GetConnector(*cfg)}, nil
}

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{cn.(pgInnerConn)}, nil
}

func (c pgConnector) Driver() driver.Driver { return c.inner.Driver() }

// pgInnerConn is what pgx's stdlib connection implements.
type pgInnerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.NamedValueChecker
}

type pgConn struct{ c pgInnerConn }

func (p *pgConn) Prepare(q string) (driver.Stmt, error) { return p.c.Prepare(rebind(q)) }
func (p *pgConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return p.c.PrepareContext(ctx, rebind(q))
}
func (p *pgConn) Close() error { return p.c.Close() }
func (p *pgConn) Begin() (driver.Tx, error) {
	return p.c.BeginTx(context.Background(), driver.TxOptions{})
}
func (p *pgConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return p.c.BeginTx(ctx, o)
}
func (p *pgConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return p.c.ExecContext(ctx, rebind(q), args)
}
func (p *pgConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return p.c.QueryContext(ctx, rebind(q), args)
}
func (p *pgConn) Ping(ctx context.Context) error         { return p.c.Ping(ctx) }
func (p *pgConn) ResetSession(ctx context.Context) error { return p.c.ResetSession(ctx) }

// CheckNamedValue passes Go booleans as 0/1, as SQLite stores them: the
// schema keeps flags as integers on both backends.
func (p *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(bool); ok {
		nv.Value = int64(0)
		if b {
			nv.Value = int64(1)
		}
		return nil
	}
	return p.c.CheckNamedValue(nv)
}

// rebind rewrites SQLite placeholders to PostgreSQL's: "?N" becomes "$N"
// and a bare "?" the next number after the largest so far (SQLite's rule).
// Quoted strings, quoted identifiers and comments are left alone.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(q))
			b.WriteString(q[i:end])
			i = end - 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			k := n + 1
			if j > i+1 {
				k, _ = strconv.Atoi(q[i+1 : j])
			}
			n = max(n, k)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(k))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
