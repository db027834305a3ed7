package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openUpgradeStores opens a fresh store on SQLite and, when
// EARSHOT_TEST_DATABASE_URL is set, one in a fresh PostgreSQL schema; each
// comes with a function that opens the same database again.
func openUpgradeStores(t *testing.T) map[string]func() (*Store, error) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	out := map[string]func() (*Store, error){"sqlite": func() (*Store, error) { return Open(ctx, dir) }}
	if base := os.Getenv("EARSHOT_TEST_DATABASE_URL"); base != "" {
		u, drop, err := NewSchema(ctx, base, "t_")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { drop() })
		out["postgres"] = func() (*Store, error) { return OpenPostgres(ctx, u) }
	}
	return out
}

// Issue 23 point 4: a database a newer binary migrated (a version this
// binary has no file for) is refused, naming both versions, and nothing
// is migrated; MigrationStatus tells pending from newer.
func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	for backend, open := range openUpgradeStores(t) {
		t.Run(backend, func(t *testing.T) {
			st, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ms, err := st.MigrationStatus(ctx)
			if err != nil || len(ms.Pending) != 0 || len(ms.Unknown) != 0 || ms.Applied != ms.Latest {
				t.Fatalf("fresh store: %+v %v", ms, err)
			}
			latest := ms.Latest
			// 140 pending (as if this database predated it) and 9999 from
			// a newer binary.
			for _, q := range []string{`DELETE FROM schema_version WHERE version = 140`} {
				if _, err := st.w.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if ms, _ = st.MigrationStatus(ctx); !slices.Equal(ms.Pending, []int{140}) || len(ms.Unknown) != 0 {
				t.Fatalf("pending: %+v", ms)
			}
			if _, err := st.w.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (9999)`); err != nil {
				t.Fatal(err)
			}
			if ms, _ = st.MigrationStatus(ctx); !slices.Equal(ms.Unknown, []int{9999}) || ms.Applied != 9999 || ms.Latest != latest {
				t.Fatalf("newer: %+v", ms)
			}
			st2, err := open()
			if err == nil {
				st2.Close()
				t.Fatal("a database at migration 9999 was opened")
			}
			var tooNew *SchemaTooNewError
			if !errors.As(err, &tooNew) || tooNew.Database != 9999 || tooNew.Known != latest {
				t.Fatalf("error %v", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "9999") || !strings.Contains(msg, fmt.Sprint(latest)) {
				t.Fatalf("message %q", msg)
			}
			if ms, _ = st.MigrationStatus(ctx); !slices.Equal(ms.Pending, []int{140}) {
				t.Fatalf("the refused open migrated: %+v", ms)
			}
		})
	}
}

// Issue 23 point 4: opening a SQLite database with pending migrations
// first copies it to backups/earshot-pre-migration-<from>-to-<to>-….db
// (0600, as it was before migrating); a new database and a current one get
// no copy.
func TestPreMigrationBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.PreMigrationBackup() != "" {
		t.Fatalf("a new database was backed up: %s", st.PreMigrationBackup())
	}
	if _, err := os.Stat(filepath.Join(dir, BackupDirName)); err == nil {
		t.Fatal("a new database made a backups dir")
	}
	if _, err := st.CreateUser(ctx, "before@example.com", "x", ""); err != nil {
		t.Fatal(err)
	}
	_, latest, _ := st.SchemaVersion(ctx)
	// As if the database lacked a migration. Not the latest: a migration
	// that adds a column cannot run twice; 195 (an UPDATE) can.
	if _, err := st.w.ExecContext(ctx, `DELETE FROM schema_version WHERE version = 195`); err != nil {
		t.Fatal(err)
	}
	from, _, _ := st.SchemaVersion(ctx)
	st.Close()

	st, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	b := st.PreMigrationBackup()
	want := fmt.Sprintf("earshot-pre-migration-%d-to-%d-", from, latest)
	if filepath.Dir(b) != filepath.Join(dir, BackupDirName) || !strings.HasPrefix(filepath.Base(b), want) || !strings.HasSuffix(b, ".db") {
		t.Fatalf("backup %q, want %s/%s….db", b, BackupDirName, want)
	}
	fi, err := os.Stat(b)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	if ms, _ := st.MigrationStatus(ctx); len(ms.Pending) != 0 {
		t.Fatalf("not migrated after the backup: %+v", ms)
	}
	st.Close()
	// The copy is the database before the migration, with its data.
	cp := filepath.Join(t.TempDir(), "check.db")
	if err := copyFile(b, cp); err != nil {
		t.Fatal(err)
	}
	info, err := CheckBackup(ctx, cp)
	if err != nil || info.Version != from || info.Users != 1 {
		t.Fatalf("backup content: %+v %v", info, err)
	}

	st, err = Open(ctx, dir) // nothing pending: no second copy
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st.PreMigrationBackup() != "" {
		t.Fatalf("a current database was backed up: %s", st.PreMigrationBackup())
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, BackupDirName)); len(ents) != 1 {
		t.Fatalf("backups dir holds %d files", len(ents))
	}
}

// Issue 23 point 5: a new database file and a backup are the owner's only
// (0600), whatever the umask; a backup never replaces a file and leaves no
// partial file behind.
func TestBackupAndDatabaseAreOwnerOnly(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, p := range []string{dir, filepath.Join(dir, FileName)} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s: %v %v", p, fi.Mode(), err)
		}
	}
	b := filepath.Join(t.TempDir(), "b.db")
	if err := st.Backup(ctx, b); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(b); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
		t.Fatalf("backup: %v %v", fi, err)
	}
	if err := st.Backup(ctx, b); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second backup to the same file: %v", err)
	}
	if _, err := os.Stat(b + ".partial"); err == nil {
		t.Fatal("a partial file was left")
	}
}

// Issue 23 point 5: Restore puts a backup in place and keeps the replaced
// database aside; a file that is not a whole Earshot database this binary
// can run is refused and changes nothing.
func TestRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, "kept@example.com", "x", ""); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "b.db")
	if err := st.Backup(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, "after@example.com", "x", ""); err != nil {
		t.Fatal(err)
	}
	st.Close()

	tmp := t.TempDir()
	garbage := filepath.Join(tmp, "garbage.db")
	os.WriteFile(garbage, []byte("not a database, but long enough to look like one to a size check"), 0o600)
	empty := filepath.Join(tmp, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	other := filepath.Join(tmp, "other.db")
	if db, err := openRaw(other); err == nil {
		db.ExecContext(ctx, `CREATE TABLE t(x)`)
		db.Close()
	}
	newer := filepath.Join(tmp, "newer.db")
	if nst, err := Open(ctx, t.TempDir()); err == nil {
		nst.w.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (9999)`)
		if err := nst.Backup(ctx, newer); err != nil {
			t.Fatal(err)
		}
		nst.Close()
	}
	for file, want := range map[string]string{garbage: "not a SQLite database", empty: "not a SQLite database",
		other: "not Earshot's", newer: "migration 9999", filepath.Join(tmp, "missing.db"): "no such file"} {
		if _, err := Restore(ctx, dir, file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("restore of %s: %v, want %q", filepath.Base(file), err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("refused restores left files: %v", names)
	}

	res, err := Restore(ctx, dir, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Aside == "" || res.Info.Users != 1 {
		t.Fatalf("result %+v", res)
	}
	for _, p := range []string{filepath.Join(dir, FileName), res.Aside} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s: %v %v", p, fi, err)
		}
	}
	st, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UserByEmail(ctx, "kept@example.com"); err != nil {
		t.Fatal("the backup's user is missing")
	}
	if _, err := st.UserByEmail(ctx, "after@example.com"); err == nil {
		t.Fatal("a user created after the backup survived the restore")
	}
	st.Close()
	// The aside copy is the database as it was, both users.
	cp := filepath.Join(t.TempDir(), "aside.db")
	if err := copyFile(res.Aside, cp); err != nil {
		t.Fatal(err)
	}
	if info, err := CheckBackup(ctx, cp); err != nil || info.Users != 2 {
		t.Fatalf("aside copy: %+v %v", info, err)
	}
}

func openRaw(path string) (*sql.DB, error) { return sql.Open("sqlite", path) }
