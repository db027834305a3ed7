package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
)

// NewSchema creates an empty schema with a fresh name (prefix + random
// hex) in the PostgreSQL database at base, and returns a URL whose
// search_path selects it (then public, where the extensions live), and a
// function that drops it with everything in it. Tests and `earshot bench`
// use it to work in a database without touching what else it holds.
func NewSchema(ctx context.Context, base, prefix string) (string, func() error, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("database URL: %w", err)
	}
	cn, err := newPGConnector(base)
	if err != nil {
		return "", nil, fmt.Errorf("database URL: %w", err)
	}
	db := sql.OpenDB(cn)
	defer db.Close()
	// Extensions are per database: create them once, in public, under a
	// lock so that parallel callers do not race on CREATE EXTENSION.
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(4541)`); err != nil {
		return "", nil, err
	}
	_, err = conn.ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public; CREATE EXTENSION IF NOT EXISTS citext SCHEMA public`)
	conn.ExecContext(ctx, `SELECT pg_advisory_unlock(4541)`)
	if err != nil {
		return "", nil, fmt.Errorf("creating extensions pg_trgm and citext: %w", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := prefix + hex.EncodeToString(b)
	if strings.ContainsFunc(schema, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		return "", nil, fmt.Errorf("schema prefix %q: use lower-case letters, digits and _", prefix)
	}
	if _, err := conn.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	drop := func() error {
		db := sql.OpenDB(cn)
		defer db.Close()
		_, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		return err
	}
	return u.String(), drop, nil
}
