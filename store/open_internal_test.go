package store

import (
	"context"
	"os"
	"testing"
)

// openTest opens an empty store for this package's internal tests on the
// backend of the test run (see package storetest, which the internal tests
// cannot import).
func openTest(t testing.TB) *Store {
	t.Helper()
	ctx := context.Background()
	var st *Store
	var err error
	if base := os.Getenv("EARSHOT_TEST_DATABASE_URL"); base != "" {
		u, drop, serr := NewSchema(ctx, base, "t_")
		if serr != nil {
			t.Fatal(serr)
		}
		t.Cleanup(func() { drop() })
		st, err = OpenPostgres(ctx, u)
	} else {
		st, err = Open(ctx, t.TempDir())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
