package store

import (
	"context"
	"testing"
	"time"
)

// TestMigrationBelowTheHighestRuns: a migration whose number is below the
// highest applied one (a branch that landed later) still runs on the next
// start, once.
func TestMigrationBelowTheHighestRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// As if 092 had not existed when this database was last opened.
	for _, q := range []string{`DROP TRIGGER usage_days_on_insert`, `DROP TRIGGER usage_days_on_update`, `DROP TABLE usage_days`,
		`DELETE FROM schema_version WHERE version = 92`} {
		if _, err := st.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	for range 2 { // the second start must not run it again
		st, err = Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.UsageDays(ctx, "p", time.Now()); err != nil {
			t.Fatalf("092 not applied: %v", err)
		}
		st.Close()
	}
}
