package store

import (
	"context"
	"os"
	"testing"
)

// TestTrialProjectsBecomeUnlimited: projects an older version put on the
// default trial plan (a 1,000-mention quota nobody chose) are unlimited
// after migration 195; a plan an operator set otherwise stays. Both
// backends (EARSHOT_TEST_DATABASE_URL selects PostgreSQL).
func TestTrialProjectsBecomeUnlimited(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *Store {
		t.Helper()
		st, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if base := os.Getenv("EARSHOT_TEST_DATABASE_URL"); base != "" {
		u, drop, err := NewSchema(ctx, base, "t_")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { drop() })
		open = func() *Store {
			t.Helper()
			st, err := OpenPostgres(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
	}
	st := open()
	u, err := st.CreateUser(ctx, "o@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := st.CreateProject(ctx, u.ID, "Fresh", nil)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Plan != "unlimited" {
		t.Fatalf("new project on plan %q", fresh.Plan)
	}
	old, _ := st.CreateProject(ctx, u.ID, "Old default", nil)
	sold, _ := st.CreateProject(ctx, u.ID, "Sold", nil)
	// As an older version left them: the default trial, and a plan set by
	// the operator; 195 not applied yet.
	for _, q := range []string{`UPDATE projects SET plan = 'trial' WHERE id = '` + old.ID + `'`,
		`UPDATE projects SET plan = 'starter' WHERE id = '` + sold.ID + `'`, `DELETE FROM schema_version WHERE version = 195`} {
		if _, err := st.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st = open()
	defer st.Close()
	for id, want := range map[string]string{fresh.ID: "unlimited", old.ID: "unlimited", sold.ID: "starter"} {
		p, err := st.Project(ctx, id)
		if err != nil || p.Plan != want {
			t.Errorf("project %s: plan %v %v, want %s", id, p, err, want)
		}
	}
}
