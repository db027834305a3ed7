// Package storetest opens stores for tests on the backend the test run
// chose: SQLite in a temporary directory by default, or, when
// EARSHOT_TEST_DATABASE_URL names a PostgreSQL database, a fresh schema of
// that database for each store (dropped when the test ends). The same tests
// thereby run on both backends (scripts/test-all.sh runs them twice).
package storetest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"earshot/store"
)

// EnvURL is the variable naming the PostgreSQL database tests use.
const EnvURL = "EARSHOT_TEST_DATABASE_URL"

// Postgres reports whether this test run uses PostgreSQL.
func Postgres() bool { return os.Getenv(EnvURL) != "" }

// Open returns a migrated, empty store, closed when t ends.
func Open(t testing.TB) *store.Store {
	t.Helper()
	st, err := OpenAt(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// OpenAt opens the store in dir (SQLite) or in a fresh schema
// (PostgreSQL; dir is unused), closed when t ends.
func OpenAt(t testing.TB, dir string) (*store.Store, error) {
	t.Helper()
	var st *store.Store
	var err error
	if u := URL(t); u != "" {
		st, err = store.OpenPostgres(context.Background(), u)
	} else {
		st, err = store.Open(context.Background(), dir)
	}
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { st.Close() })
	return st, nil
}

// URL returns the URL of a fresh, empty schema of the test database,
// dropped when t ends; "" when tests run on SQLite. Tests that start the
// binary pass it as --database-url.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		return ""
	}
	u, drop, err := store.NewSchema(context.Background(), base, "t_")
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	t.Cleanup(func() { drop() })
	return u
}

// OpenShared returns n stores on one empty database, as n earshot
// processes sharing it have: on PostgreSQL n pools on one fresh schema, on
// SQLite n handles on one file. Each is closed when t ends.
func OpenShared(t testing.TB, n int) []*store.Store {
	t.Helper()
	ctx := context.Background()
	u, dir := URL(t), t.TempDir()
	out := make([]*store.Store, n)
	for i := range out {
		var st *store.Store
		var err error
		if u != "" {
			st, err = store.OpenPostgres(ctx, u)
		} else {
			st, err = store.Open(ctx, dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		out[i] = st
	}
	return out
}

// HoldSQLiteWriteLock begins a write transaction on a connection of its
// own to the SQLite database in dir, as another process (or a long
// backup) holds the write lock; release rolls it back. The connection is
// closed when the test ends.
func HoldSQLiteWriteLock(t testing.TB, ctx context.Context, dir string) (release func() error) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, store.FileName)+"?_pragma=busy_timeout(60000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() error {
		_, err := conn.ExecContext(ctx, "ROLLBACK")
		return err
	}
}
