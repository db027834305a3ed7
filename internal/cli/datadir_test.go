package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"earshot/store"
	"earshot/store/storetest"
)

// Only serve, demo, user create and bench may start a data dir; every other
// command that opens one refuses a dir without a database (exit 1, a message
// naming the dir) and creates nothing, so a mistyped --data is noticed.
func TestCommandsNeedAnExistingDatabase(t *testing.T) {
	backup := filepath.Join(t.TempDir(), "b.db")
	for _, args := range [][]string{
		{"backup", "--to", backup},
		{"key", "list", "--project", "p"},
		{"key", "create", "--project", "p"},
		{"key", "revoke", "--key-id", "k"},
		{"project", "create", "--owner", "a@example.com", "--name", "N"},
		{"project", "set-plan", "--project", "p", "--plan", "starter"},
		{"mcp", "--key", "esk_whatever"},
	} {
		for _, existing := range []bool{false, true} {
			parent := t.TempDir()
			dir := filepath.Join(parent, "typo")
			if existing {
				os.Mkdir(dir, 0o700)
			}
			code, out, errs := runCLI(t, map[string]string{"EARSHOT_LOG_LEVEL": "error"}, append(args, "--data", dir)...)
			name := strings.Join(args[:2], " ")
			if code != 1 || out != "" || !strings.Contains(errs, "no Earshot database in "+dir) || !strings.Contains(errs, "--data or EARSHOT_DATA") {
				t.Errorf("%s (dir exists %v): exit %d, stdout %q, stderr %q", name, existing, code, out, errs)
			}
			if _, err := os.Stat(filepath.Join(dir, store.FileName)); err == nil {
				t.Errorf("%s created a database", name)
			}
			if !existing {
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("%s created the data dir", name)
				}
			}
		}
	}
	if _, err := os.Stat(backup); err == nil {
		t.Error("backup of a missing database wrote a file")
	}

	// The default data dir is not created either.
	wd := t.TempDir()
	t.Chdir(wd)
	if code, _, _ := runCLI(t, nil, "key", "list", "--project", "p"); code != 1 {
		t.Errorf("key list in an empty dir: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(wd, "earshot-data")); err == nil {
		t.Error("key list created ./earshot-data")
	}

	// user create starts a data dir (Getting started), and then the others work.
	dir := filepath.Join(t.TempDir(), "new")
	env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "a@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatalf("user create on a new dir: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, env, "backup", "--to", backup); code != 0 {
		t.Fatalf("backup: %d %s", code, errs)
	}
}

// The same on PostgreSQL: a --database-url naming an empty database (or
// schema) is refused by every command that does not start an installation,
// and nothing is created in it (a mistyped database name, or the server's
// default database, would otherwise receive Earshot's tables).
func TestCommandsNeedAnExistingDatabasePostgres(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("PostgreSQL only (EARSHOT_TEST_DATABASE_URL)")
	}
	dbURL := storetest.URL(t)
	env := map[string]string{"EARSHOT_LOG_LEVEL": "error", "EARSHOT_DATABASE_URL": dbURL}
	for _, args := range [][]string{
		{"key", "list", "--project", "p"},
		{"key", "create", "--project", "p"},
		{"key", "revoke", "--key-id", "k"},
		{"project", "create", "--owner", "a@example.com", "--name", "N"},
		{"project", "set-plan", "--project", "p", "--plan", "starter"},
		{"mcp", "--key", "esk_whatever"},
	} {
		code, out, errs := runCLI(t, env, args...)
		name := strings.Join(args[:2], " ")
		if code != 1 || out != "" || !strings.Contains(errs, "no Earshot database in ") || !strings.Contains(errs, "--database-url or EARSHOT_DATABASE_URL") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
	if ok, err := store.PostgresInstalled(context.Background(), dbURL); err != nil || ok {
		t.Fatalf("after the refusals the database holds an installation: %v %v", ok, err)
	}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "a@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatalf("user create on an empty database: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, env, "project", "create", "--owner", "a@example.com", "--name", "N"); code != 0 {
		t.Fatalf("project create after user create: %d %s", code, errs)
	}
}
