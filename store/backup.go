package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BackupDirName is the data dir's folder for backups: the copy Open takes
// before migrating, and serve's scheduled backups unless configured
// elsewhere.
const BackupDirName = "backups"

// backupStamp is the UTC time in backup file names: sortable, and with
// milliseconds so that two backups of one second do not collide.
const backupStamp = "20060102T150405.000Z"

// BackupStampLayout is backupStamp for time.Parse.
const BackupStampLayout = backupStamp

// BackupStamp formats t as backup file names carry it.
func BackupStamp(t time.Time) string { return t.UTC().Format(backupStamp) }

// ErrBackupPostgres is Backup's answer on PostgreSQL.
var ErrBackupPostgres = errors.New("earshot backup copies SQLite databases; on PostgreSQL use pg_dump (e.g. pg_dump -Fc -f earshot.dump \"$EARSHOT_DATABASE_URL\") or your provider's backups")

// ErrRestorePostgres is the advice restore gives on PostgreSQL.
var ErrRestorePostgres = errors.New("earshot restore puts back SQLite backups; on PostgreSQL stop every earshot serve, then restore the pg_dump with pg_restore " +
	"(e.g. pg_restore --clean --if-exists --no-owner -d \"$EARSHOT_DATABASE_URL\" earshot.dump) or your provider's point-in-time restore")

// PreMigrationBackup is the file Open copied the database to before it
// migrated it, "" when it did not (a new database, nothing pending, or
// PostgreSQL).
func (s *Store) PreMigrationBackup() string { return s.preMigrationBackup }

// Backup writes a consistent copy of the database to file (VACUUM INTO),
// readable by its owner only (0600): it holds password hashes, sessions
// and API key hashes. file must not exist. PostgreSQL has its own tools for
// that (pg_dump, base backups).
func (s *Store) Backup(ctx context.Context, file string) error {
	if s.pg {
		return ErrBackupPostgres
	}
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("backup: %s already exists", file)
	}
	return s.backupTo(ctx, file)
}

// BackupDatabase copies the SQLite database in dir to file as Backup does,
// without Open's schema check and migrations: a backup changes nothing,
// so it works on a database of any version, even one newer than this
// binary (the copy to take before trying a restore or a downgrade).
func BackupDatabase(ctx context.Context, dir, file string) error {
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("backup: %s already exists", file)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.Join(dir, FileName)}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return (&Store{r: db, w: db}).backupTo(ctx, file)
}

// backupTo writes the copy under a temporary name beside file and links it
// to file only once complete, so a file of that name is always a whole
// backup (a crash or a full disk leaves a *.partial behind, not a
// truncated backup), and an existing file is never replaced.
func (s *Store) backupTo(ctx context.Context, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmp := file + ".partial"
	os.Remove(tmp) // a crashed backup's leftover
	// VACUUM INTO writes into an existing empty file, keeping its mode:
	// the copy is never readable by others, not even for a moment.
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	// VACUUM INTO only reads the database (one read transaction: a
	// consistent snapshot), but the query_only readers refuse it. The
	// checkpoint connection runs it, so that writers go on meanwhile (in WAL
	// mode a reader does not block them); only checkpoints wait.
	db := s.ck
	if db == nil {
		db = s.w
	}
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, tmp)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	// Link fails when file exists (a backup started meanwhile): never
	// replace a backup. Filesystems without hard links get a rename.
	if err := os.Link(tmp, file); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("backup: %s already exists", file)
		}
		if err := os.Rename(tmp, file); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	} else {
		os.Remove(tmp)
	}
	done = true
	syncDir(filepath.Dir(file))
	return nil
}

func syncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes renames in dir durable (best effort: not every platform
// can sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// BackupInfo describes a checked backup file.
type BackupInfo struct {
	Version int // its highest applied migration
	Users   int
	Projs   int
}

// CheckBackup checks that file is a whole Earshot SQLite database this
// binary can run: SQLite's integrity check passes, it has Earshot's
// tables, and its schema is not newer than this binary's (a
// *SchemaTooNewError). It opens file for writing (a database in WAL mode
// needs its -shm): pass a copy, not the only one.
func CheckBackup(ctx context.Context, file string) (*BackupInfo, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil, errors.New("not a SQLite database (empty or not a file)")
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: file}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("not a SQLite database (%w)", err)
	}
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return nil, fmt.Errorf("integrity check: %w", err)
		}
		if p != "ok" {
			problems = append(problems, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], "…")
		}
		return nil, fmt.Errorf("the integrity check fails: %s", strings.Join(problems, "; "))
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('schema_version', 'users', 'projects')`).Scan(&n); err != nil {
		return nil, err
	}
	if n != 3 {
		return nil, errors.New("a SQLite database, but not Earshot's (no schema_version, users and projects tables)")
	}
	applied := map[int]bool{}
	vrows, err := db.QueryContext(ctx, `SELECT version FROM schema_version`)
	if err != nil {
		return nil, err
	}
	for vrows.Next() {
		var v int
		if err := vrows.Scan(&v); err != nil {
			vrows.Close()
			return nil, err
		}
		applied[v] = true
	}
	vrows.Close()
	if err := vrows.Err(); err != nil {
		return nil, err
	}
	known, err := knownMigrations(false)
	if err != nil {
		return nil, err
	}
	st := migrationStatus(applied, known)
	if len(st.Unknown) > 0 {
		return nil, &SchemaTooNewError{Database: st.Applied, Known: st.Latest}
	}
	info := &BackupInfo{Version: st.Applied}
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM projects)`).Scan(&info.Users, &info.Projs); err != nil {
		return nil, err
	}
	// Leave one file: the copy becomes the database, without a -wal.
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, err
	}
	return info, nil
}

// RestoreResult says what Restore did.
type RestoreResult struct {
	Info  *BackupInfo
	Aside string // where the replaced database now is ("" when there was none)
}

// Restore replaces the database in dir with the backup file from, after
// checking it (CheckBackup) on a copy in dir; a backup that fails the
// check changes nothing. The current database is kept aside, renamed
// earshot.db.before-restore-<time> (with its -wal, so the aside copy is
// whole), and the checked copy is renamed into place: a rename in one
// directory, atomic. Stale -wal and -shm files of the replaced database
// are moved away first, since SQLite would apply such a WAL to the new file.
// No process may have the database open: the caller makes sure (serve
// holds the data dir lock).
func Restore(ctx context.Context, dir, from string) (*RestoreResult, error) {
	path := filepath.Join(dir, FileName)
	if abs, err := filepath.Abs(from); err == nil {
		if cur, err := filepath.Abs(path); err == nil && abs == cur {
			return nil, errors.New("the backup is the database itself")
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	stamp := BackupStamp(time.Now())
	tmp := path + ".restoring-" + stamp
	cleanup := func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(tmp + suffix)
		}
	}
	if err := copyFile(from, tmp); err != nil {
		cleanup()
		return nil, fmt.Errorf("copying the backup: %w", err)
	}
	info, err := CheckBackup(ctx, tmp)
	if err != nil {
		cleanup()
		return nil, err
	}
	if err := syncFile(tmp); err != nil {
		cleanup()
		return nil, err
	}
	res := &RestoreResult{Info: info}
	if _, err := os.Lstat(path); err == nil {
		aside := path + ".before-restore-" + stamp
		// The checkpoint folds the current WAL into the file, so the
		// aside copy is one file when it can; a database too damaged to
		// open (a reason to restore) is kept as it is, with its WAL.
		checkpoint(ctx, path)
		if err := os.Link(path, aside); err != nil {
			if err := copyFile(path, aside); err != nil {
				cleanup()
				return nil, fmt.Errorf("keeping the current database aside: %w", err)
			}
		}
		if err := os.Rename(path+"-wal", aside+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			cleanup()
			return nil, fmt.Errorf("keeping the current database's WAL aside: %w", err)
		}
		os.Remove(path + "-shm")
		os.Remove(path + "-journal")
		res.Aside = aside
	}
	if err := os.Rename(tmp, path); err != nil {
		cleanup()
		return nil, fmt.Errorf("putting the backup in place: %w", err)
	}
	cleanup() // the copy's own -shm, if the check left one
	syncDir(dir)
	return res, nil
}

// checkpoint copies the WAL of the database at path into it and empties
// the WAL, best effort.
func checkpoint(ctx context.Context, path string) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return
	}
	defer db.Close()
	db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}

// copyFile copies from into a new file to (0600, fsynced).
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
