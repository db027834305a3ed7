package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
)

// Black-box checks of issue 23 points 4 (upgrades) and 5 (backups).

// rawDB opens the test's database beside the binary under test, to stamp
// its migrations table as another binary would have.
func rawDB(t *testing.T, dataDir, dbURL string) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	if dbURL != "" {
		db, err = sql.Open("pgx", dbURL)
	} else {
		db, err = sql.Open("sqlite", "file:"+filepath.Join(dataDir, store.FileName)+"?_pragma=busy_timeout(10000)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func latestMigration(t *testing.T) int {
	t.Helper()
	st := storetest.Open(t)
	_, latest, err := st.SchemaVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return latest
}

// A database a newer binary migrated (stamped with migration 9999) is
// refused by every command that opens the store, exit 2, naming both
// versions; backup still copies it.
func TestNewerDatabaseIsRefused(t *testing.T) {
	data := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": data, "EARSHOT_LOG_LEVEL": "error"}
	dbURL := storetest.URL(t)
	if dbURL != "" {
		env["EARSHOT_DATABASE_URL"] = dbURL
	}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "a@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	latest := latestMigration(t)
	if _, err := rawDB(t, data, dbURL).Exec(`INSERT INTO schema_version(version) VALUES (9999)`); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("database schema is at migration 9999 but this earshot (%s) knows up to %d: upgrade earshot, or restore the backup taken before the upgrade", buildInfo().Version, latest)
	hint := "(earshot restore --from <data dir>/backups/earshot-pre-migration-…-to-9999-….db"
	if dbURL != "" {
		hint = "(pg_restore the dump taken before the upgrade"
	}
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0"},
		{"mcp", "--key", "esk_whatever"},
		{"user", "create", "--email", "b@example.com", "--password", "correct-horse-42"},
		{"user", "set-password", "--email", "a@example.com", "--password", "second-horse-42"},
		{"project", "create", "--owner", "a@example.com", "--name", "N"},
		{"key", "list", "--project", "p"},
	} {
		code, out, errs := runCLI(t, env, args...)
		if code != 2 || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, hint) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args[:2], " "), code, out, errs)
		}
	}
	if dbURL == "" {
		// migrate reads the SQLite schema it copies: refused too (before
		// it connects anywhere).
		if code, _, errs := runCLI(t, env, "migrate", "--to", "postgres://u@127.0.0.1:1/db"); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("migrate: exit %d %s", code, errs)
		}
		// A backup changes nothing: it copies a newer database too.
		b := filepath.Join(t.TempDir(), "newer.db")
		if code, _, errs := runCLI(t, env, "backup", "--to", b); code != 0 {
			t.Errorf("backup of a newer database: exit %d %s", code, errs)
		}
	}
	var n int
	if err := rawDB(t, data, dbURL).QueryRow(`SELECT count(*) FROM users`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("users after the refusals: %d %v", n, err)
	}
}

// /healthz tells migrations not yet applied ("pending") from migrations
// this binary does not know ("newer than this binary"): another binary
// changed the database under a running serve.
func TestHealthzPendingAndNewer(t *testing.T) {
	data := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": data, "EARSHOT_LOG_LEVEL": "error", "EARSHOT_BACKUP_SCHEDULE": "off"}
	dbURL := storetest.URL(t)
	if dbURL != "" {
		env["EARSHOT_DATABASE_URL"] = dbURL
	}
	addr := startServe(t, env)
	db := rawDB(t, data, dbURL)
	health := func() (int, string) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Checks map[string]string `json:"checks"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body.Checks["migrations"]
	}
	if code, m := health(); code != 200 || m != "ok" {
		t.Fatalf("fresh: %d %q", code, m)
	}
	latest := latestMigration(t)
	if _, err := db.Exec(fmt.Sprintf(`DELETE FROM schema_version WHERE version = %d`, latest)); err != nil {
		t.Fatal(err)
	}
	if code, m := health(); code != 503 || m != "pending" {
		t.Fatalf("a known migration missing: %d %q", code, m)
	}
	if _, err := db.Exec(fmt.Sprintf(`INSERT INTO schema_version(version) VALUES (%d), (9999)`, latest)); err != nil {
		t.Fatal(err)
	}
	if code, m := health(); code != 503 || m != "newer than this binary" {
		t.Fatalf("migration 9999 applied: %d %q", code, m)
	}
}

// Opening a SQLite database with pending migrations copies it first
// (backups/earshot-pre-migration-<from>-to-<to>-….db, 0600) and logs it;
// restoring that copy gives the database as it was.
func TestPreMigrationBackupCLI(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("SQLite only: PostgreSQL is backed up with its own tools")
	}
	data := t.TempDir()
	env := map[string]string{"EARSHOT_DATA": data}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "a@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	if ents, _ := os.ReadDir(filepath.Join(data, store.BackupDirName)); len(ents) != 0 {
		t.Fatalf("a new database was backed up: %v", ents)
	}
	// As if the database predated migration 141 (which runs again without
	// harm: it rebuilds the search index).
	db := rawDB(t, data, "")
	if _, err := db.Exec(`DELETE FROM schema_version WHERE version = 141`); err != nil {
		t.Fatal(err)
	}
	var from int
	db.QueryRow(`SELECT max(version) FROM schema_version`).Scan(&from)
	db.Close()
	latest := latestMigration(t)
	code, _, errs := runCLI(t, env, "user", "create", "--email", "b@example.com", "--password", "correct-horse-42")
	if code != 0 || !strings.Contains(errs, "database copied before migrating") {
		t.Fatalf("user create on an older database: %d %s", code, errs)
	}
	ents, _ := os.ReadDir(filepath.Join(data, store.BackupDirName))
	prefix := fmt.Sprintf("earshot-pre-migration-%d-to-%d-", from, latest)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), prefix) || !strings.Contains(errs, ents[0].Name()) {
		t.Fatalf("backups dir: %v, want %s…; log %s", ents, prefix, errs)
	}
	b := filepath.Join(data, store.BackupDirName, ents[0].Name())
	if fi, err := os.Stat(b); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pre-migration backup: %v %v", fi, err)
	}
	if code, out, errs := runCLI(t, env, "restore", "--from", b); code != 0 || !strings.Contains(out, "1 users") {
		t.Fatalf("restore of the pre-migration backup: %d %s %s", code, out, errs)
	}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "b@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatalf("b@example.com is in the restored pre-migration copy: %d %s", code, errs)
	}
}

// backup → change → restore gives the data as at the backup; a file that
// is not a backup is refused and changes nothing; restore refuses while
// serve has the data dir open; files are the owner's only.
func TestBackupAndRestoreCLI(t *testing.T) {
	if storetest.Postgres() {
		dbURL := storetest.URL(t)
		env := map[string]string{"EARSHOT_DATABASE_URL": dbURL}
		code, _, errs := runCLI(t, env, "restore", "--from", "earshot.dump")
		if code != 1 || !strings.Contains(errs, "pg_restore") || !strings.Contains(errs, "pg_dump") {
			t.Fatalf("restore on PostgreSQL: %d %s", code, errs)
		}
		return
	}
	base := t.TempDir()
	data := filepath.Join(base, "data")
	env := map[string]string{"EARSHOT_DATA": data, "EARSHOT_LOG_LEVEL": "error", "EARSHOT_BACKUP_SCHEDULE": "off"}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "kept@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	for _, p := range []string{data, filepath.Join(data, store.FileName)} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s is readable by others: %v %v", p, fi, err)
		}
	}
	b := filepath.Join(base, "b.db")
	if code, out, errs := runCLI(t, env, "backup", "--to", b); code != 0 || !strings.Contains(out, b) {
		t.Fatalf("backup: %d %s", code, errs)
	}
	if fi, err := os.Stat(b); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	if code, _, errs := runCLI(t, env, "user", "create", "--email", "after@example.com", "--password", "correct-horse-42"); code != 0 {
		t.Fatal(errs)
	}
	userExists := func(email string) bool {
		code, _, errs := runCLI(t, env, "user", "set-password", "--email", email, "--password", "third-horse-42")
		if code != 0 && !strings.Contains(errs, "no user") {
			t.Fatalf("set-password %s: %d %s", email, code, errs)
		}
		return code == 0
	}

	garbage := filepath.Join(base, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 100), 0o600)
	code, out, errs := runCLI(t, env, "restore", "--from", garbage)
	if code != 1 || out != "" || !strings.Contains(errs, "is not a backup this earshot can restore: not a SQLite database") || !strings.Contains(errs, "nothing was changed") {
		t.Fatalf("restore of garbage: %d %q %q", code, out, errs)
	}
	if code, _, errs := runCLI(t, env, "restore", "--from", filepath.Join(base, "missing.db")); code != 1 || !strings.Contains(errs, "nothing was changed") {
		t.Fatalf("restore of a missing file: %d %s", code, errs)
	}
	if !userExists("kept@example.com") || !userExists("after@example.com") {
		t.Fatal("a refused restore lost data")
	}

	// serve holds the data dir: restore refuses, and works once it stopped.
	addr := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var o, e strings.Builder
		done <- run(ctx, []string{"serve", "--addr", addr}, strings.NewReader(""), &o, &e, func(k string) string { return env[k] })
	}()
	waitHealthy(t, addr)
	if code, _, errs := runCLI(t, env, "restore", "--from", b); code != 1 || !strings.Contains(errs, "has the data dir "+data+" open") {
		t.Fatalf("restore under a running serve: %d %s", code, errs)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("serve did not stop")
	}

	code, out, errs = runCLI(t, env, "restore", "--from", b)
	if code != 0 || !strings.Contains(out, "restored "+b) || !strings.Contains(out, "kept as "+filepath.Join(data, store.FileName)+".before-restore-") {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	for _, stale := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(filepath.Join(data, store.FileName+stale)); err == nil {
			t.Errorf("%s left beside the restored database", stale)
		}
	}
	if fi, err := os.Stat(filepath.Join(data, store.FileName)); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("restored database: %v %v", fi, err)
	}
	if !userExists("kept@example.com") || userExists("after@example.com") {
		t.Fatal("the restored data is not the backup's")
	}
}

func waitHealthy(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("serve did not start")
}

// serve writes scheduled backups (0600) and keeps the newest
// EARSHOT_BACKUP_KEEP of them; other files of the backups dir (the
// pre-migration copies) are never pruned. Bad settings are refused.
func TestScheduledBackups(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("SQLite only: PostgreSQL is backed up with its own tools")
	}
	for v, want := range map[string]string{"EARSHOT_BACKUP_SCHEDULE": "weekly", "EARSHOT_BACKUP_KEEP": "0"} {
		code, _, errs := runCLI(t, map[string]string{"EARSHOT_DATA": t.TempDir(), v: want}, "serve", "--addr", "127.0.0.1:0")
		if code != 2 || !strings.Contains(errs, v) {
			t.Errorf("%s=%s: exit %d %s", v, want, code, errs)
		}
	}
	data := t.TempDir()
	dir := filepath.Join(t.TempDir(), "elsewhere")
	os.MkdirAll(dir, 0o700)
	keepMe := filepath.Join(dir, "earshot-pre-migration-130-to-141-20260101T000000.000Z.db")
	os.WriteFile(keepMe, []byte("x"), 0o600)
	env := map[string]string{"EARSHOT_DATA": data, "EARSHOT_LOG_LEVEL": "error",
		"EARSHOT_BACKUP_SCHEDULE": "1s", "EARSHOT_BACKUP_KEEP": "2", "EARSHOT_BACKUP_DIR": dir}
	addr := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var o, e strings.Builder
		done <- run(ctx, []string{"serve", "--addr", addr}, strings.NewReader(""), &o, &e, func(k string) string { return env[k] })
	}()
	defer cancel()
	waitHealthy(t, addr)
	seen := map[string]bool{}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		now := scheduledFiles(dir)
		for _, f := range now {
			seen[f] = true
		}
		if len(seen) >= 4 && len(now) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 3 minutes: seen %d scheduled backups, %d present", len(seen), len(now))
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("serve did not stop")
	}
	left := scheduledFiles(dir)
	if len(left) != 2 {
		t.Fatalf("after stopping: %v, want the newest 2", left)
	}
	for _, f := range append(left, filepath.Base(keepMe)) {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, fi, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(data, store.BackupDirName)); len(ents) != 0 {
		t.Fatalf("backups written to the data dir despite EARSHOT_BACKUP_DIR: %v", ents)
	}
	// The newest backup is a restorable copy.
	if code, out, errs := runCLI(t, env, "restore", "--from", filepath.Join(dir, left[1])); code != 0 {
		t.Fatalf("restore of a scheduled backup: %d %s %s", code, out, errs)
	}
}
