package store

import (
	"context"
	"database/sql"
	"os"
	"testing"
)

// openTest opens an empty store for this package's internal tests on the
// backend of the test run (see package storetest, which the internal tests
// cannot import).
func openTest(t testing.TB) *Store { return openTestN(t, 1)[0] }

// openTestN opens one empty database through n stores, as n processes
// would: on PostgreSQL n pools on one fresh schema, on SQLite n handles on
// one file. Each is closed when t ends.
func openTestN(t testing.TB, n int) []*Store {
	t.Helper()
	ctx := context.Background()
	var open func() (*Store, error)
	if base := os.Getenv("EARSHOT_TEST_DATABASE_URL"); base != "" {
		u, drop, err := NewSchema(ctx, base, "t_")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { drop() })
		open = func() (*Store, error) { return OpenPostgres(ctx, u) }
	} else {
		dir := t.TempDir()
		open = func() (*Store, error) { return Open(ctx, dir) }
	}
	sts := make([]*Store, n)
	for i := range sts {
		st, err := open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		sts[i] = st
	}
	return sts
}

// testProject creates a user and a project of theirs named name.
func testProject(t testing.TB, st *Store, name string) *Project {
	t.Helper()
	ctx := context.Background()
	u, err := st.CreateUser(ctx, name+"@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// OpenSQLite sets synchronous on the connections that commit: full by
// default, normal when asked; anything else is refused before opening.
func TestSQLiteSyncPragma(t *testing.T) {
	ctx := context.Background()
	for opt, want := range map[string]string{"": SyncFull, SyncFull: SyncFull, SyncNormal: SyncNormal} {
		s, err := OpenSQLite(ctx, t.TempDir(), SQLiteOptions{Sync: opt})
		if err != nil {
			t.Fatal(err)
		}
		for name, db := range map[string]*sql.DB{"writer": s.w, "checkpointer": s.ck} {
			var n int
			if err := db.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if got := map[int]string{1: SyncNormal, 2: SyncFull}[n]; got != want {
				t.Errorf("Sync %q: %s synchronous = %d, want %s", opt, name, n, want)
			}
		}
		s.Close()
	}
	if _, err := OpenSQLite(ctx, t.TempDir(), SQLiteOptions{Sync: "off"}); err == nil {
		t.Error("Sync off was accepted")
	}
}
