// Package store owns the database: schema, migrations and every SQL query.
// Nothing outside this package writes SQL. Two backends implement it: SQLite
// (the default, a file in the data dir) and PostgreSQL (OpenPostgres). They
// share the query code; each has its own migrations, and the few statements
// whose SQL differs branch on s.pg next to each other (see dialect.go).
package store

import (
	"context"
	"database/sql"
	"earshot/api"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors; the capability layer maps them to API error codes.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

//go:embed migrations_pg/*.sql
var pgMigrationFiles embed.FS

// Store is the database handle: one writer connection (so writers queue in
// Go instead of failing with SQLITE_BUSY) and a bounded pool of readers.
type Store struct {
	r, w *sql.DB
	ck   *sql.DB // one connection for background WAL checkpoints (SQLite)
	path string
	pg   bool // PostgreSQL backend: r and w are one pool, ck is nil
	// lockKey is the PostgreSQL advisory lock that serialises write
	// transactions; its migration lock is lockKey+1. Both are derived from
	// the schema, so installations in separate schemas do not share them.
	lockKey int64

	// backupDir is where SQLite's copy before migrating goes;
	// preMigrationBackup is the file Open wrote there ("" when none).
	backupDir          string
	preMigrationBackup string

	ingest  ingestQueue  // concurrent IngestMentions share transactions
	stories storyIndex   // recent mentions' story keys (story_index.go)
	storage storageState // whether writes fail for lack of space (storage.go)

	recordMu sync.Mutex
	record   *[2]recordStmts // RecordAttempts' statements, once prepared (lease.go)
}

// FileName is the database file Open keeps in its data dir.
const FileName = "earshot.db"

// IsReadOnly reports SQLite's "attempt to write a readonly database"
// family: Open writes even to a database at the current schema (the schema
// check, the WAL index), so a data dir this user cannot write fails so.
func IsReadOnly(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY
}

// SQLite's durability settings (EARSHOT_SQLITE_SYNC): how far a committed
// write is on disk when the commit returns, in WAL mode.
const (
	// SyncFull fsyncs the WAL at every commit: a write answered 2xx
	// survives a power cut or an OS crash. The default.
	SyncFull = "full"
	// SyncNormal fsyncs only at checkpoints: as safe against a crash of
	// the process (kill -9), but the last commits before a power cut or
	// an OS crash can roll back (the database stays consistent).
	SyncNormal = "normal"
)

// DefaultSync is the durability a SQLite store has unless told otherwise.
const DefaultSync = SyncFull

// ParseSync checks an EARSHOT_SQLITE_SYNC value ("" is the default).
func ParseSync(v string) (string, error) {
	switch s := strings.ToLower(strings.TrimSpace(v)); s {
	case "":
		return DefaultSync, nil
	case SyncFull, SyncNormal:
		return s, nil
	}
	return "", fmt.Errorf("%q is not a SQLite sync mode: use full (a 2xx write survives a power cut; the default) or normal (faster commits; the last ones can roll back on a power cut or an OS crash)", v)
}

// SQLiteOptions tune a SQLite store.
type SQLiteOptions struct {
	// Sync is SyncFull or SyncNormal; "" means DefaultSync.
	Sync string
}

// Open opens (creating if needed) the database in dir with the default
// options and applies pending migrations.
func Open(ctx context.Context, dir string) (*Store, error) {
	return OpenSQLite(ctx, dir, SQLiteOptions{})
}

// OpenSQLite is Open with options.
func OpenSQLite(ctx context.Context, dir string, opts SQLiteOptions) (*Store, error) {
	sync, err := ParseSync(opts.Sync)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// A new database is the owner's alone (SQLite would create it 0644, and
	// its -wal and -shm files take the database file's mode): it holds
	// password hashes, sessions and API key hashes. An empty file is an
	// empty SQLite database. An existing file keeps the mode it has.
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	}
	// synchronous is per connection: every pool gets it, though only the
	// writer's (and the checkpointer's) commits and checkpoints use it.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(" + strings.ToUpper(sync) + ")&_pragma=temp_store(2)"
	// The writer gets a larger page cache: ingest touches many index pages.
	// Commits checkpoint only past 256 MB of WAL: in serve, RunCheckpointer
	// copies WAL pages from its own connection, off the commit path, and the
	// commit that passes the mark (and restarts the WAL) finds little left
	// to copy. At 16 MB the writer spent a third of its time in checkpoints.
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate&_pragma=cache_size(-32768)&_pragma=wal_autocheckpoint(65536)")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)&_pragma=cache_size(-4096)")
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, runtime.NumCPU()*2)
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	ck, err := sql.Open("sqlite", dsn+"&_pragma=cache_size(-512)")
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	ck.SetMaxOpenConns(1)
	s := &Store{r: r, w: w, ck: ck, path: path, backupDir: filepath.Join(dir, BackupDirName)}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenPostgres opens the PostgreSQL database at url (postgres://…, or any
// connection string pgx accepts) and applies pending migrations. Several
// processes may open the same database: migrations run under an advisory
// lock, and write transactions are serialised by another (see tx).
func OpenPostgres(ctx context.Context, url string) (*Store, error) {
	cn, err := newPGConnector(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	db := sql.OpenDB(cn)
	db.SetMaxOpenConns(max(8, runtime.NumCPU()*4))
	db.SetMaxIdleConns(max(8, runtime.NumCPU()*4))
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	s := &Store{r: db, w: db, pg: true, path: RedactURL(url)}
	// current_schema() is NULL when no schema of search_path exists (a URL
	// naming a new schema, ?search_path=earshot2, that nobody created):
	// say so, instead of failing on the NULL below.
	var schema sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	if !schema.Valid {
		var sp string
		_ = db.QueryRowContext(ctx, `SHOW search_path`).Scan(&sp)
		db.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL: no schema of the search_path %q exists in this database: create it first (CREATE SCHEMA name) or leave search_path out of the URL", sp)
	}
	if err := db.QueryRowContext(ctx, `SELECT hashtext('earshot:' || current_schema())::bigint * 2`).Scan(&s.lockKey); err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// PostgresInstalled reports whether the PostgreSQL database (the schema
// its URL's search_path selects) holds an Earshot installation, without
// creating anything: commands that do not start an installation refuse
// an empty database, as they refuse a data dir without a database.
func PostgresInstalled(ctx context.Context, url string) (bool, error) {
	cn, err := newPGConnector(url)
	if err != nil {
		return false, fmt.Errorf("database URL: %w", err)
	}
	db := sql.OpenDB(cn)
	defer db.Close()
	var ok bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'schema_version')`).Scan(&ok); err != nil {
		return false, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	return ok, nil
}

// IsDatabaseURL reports whether v names a PostgreSQL database rather than
// a data directory.
func IsDatabaseURL(v string) bool {
	return strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://")
}

// RedactURL drops the password from a database URL, for logs, messages and Path:
// the userinfo's and a password query parameter's (libpq and pgx take
// both). A URL that does not parse is not shown at all (it could hold a
// password where this cannot find it).
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable database URL)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Synchronous reads back the writer connection's PRAGMA synchronous:
// "normal" or "full" ("" on PostgreSQL, which has no such setting here).
func (s *Store) Synchronous(ctx context.Context) (string, error) {
	if s.pg {
		return "", nil
	}
	var n int
	if err := s.w.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&n); err != nil {
		return "", err
	}
	switch n {
	case 1:
		return SyncNormal, nil
	case 2:
		return SyncFull, nil
	}
	return fmt.Sprint(n), nil
}

// Backend names the database engine: "sqlite" or "postgres".
func (s *Store) Backend() string {
	if s.pg {
		return "postgres"
	}
	return "sqlite"
}

// Close closes the pools; on SQLite the WAL is checkpointed on last close.
func (s *Store) Close() error {
	s.ingest.wg.Wait() // batches already queued are stored
	if s.pg {
		return s.w.Close()
	}
	err1 := s.r.Close()
	err2 := s.ck.Close()
	err3 := s.w.Close()
	return errors.Join(err1, err2, err3)
}

// Path is the database file (SQLite) or the database URL without its
// password (PostgreSQL).
func (s *Store) Path() string { return s.path }

// migrations is the backend's embedded migration files and their glob.
func (s *Store) migrations() (fs.FS, string) {
	if s.pg {
		return pgMigrationFiles, "migrations_pg/*.sql"
	}
	return migrationFiles, "migrations/*.sql"
}

func (s *Store) migrate(ctx context.Context) error {
	if s.pg {
		// Processes starting together migrate one after the other: the
		// lock is held on one connection for the whole run.
		conn, err := s.w.Conn(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, s.lockKey+1); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, s.lockKey+1)
	}
	if _, err := s.wr(ctx).ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// Each applied version has its row: a migration is applied once it is
	// missing, not only when above the highest. Branches use separate
	// number ranges and land in any order, so a database may already hold
	// 121 when 092 arrives.
	applied := map[int]bool{}
	rows, err := s.wr(ctx).QueryContext(ctx, `SELECT version FROM schema_version`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("migrate: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	known, err := s.knownMigrations()
	if err != nil {
		return err
	}
	// A version this binary has no file for was applied by a newer binary:
	// running on that schema would half-work (queries on columns that
	// changed meaning, writes that break what the newer binary expects), so
	// nothing more happens here.
	st := migrationStatus(applied, known)
	if len(st.Unknown) > 0 {
		return &SchemaTooNewError{Database: st.Applied, Known: st.Latest, Postgres: s.pg}
	}
	if len(st.Pending) > 0 && len(applied) > 0 && s.backupDir != "" && !s.pg {
		// The database already holds an installation (it has applied
		// migrations): a copy as it was, before anything changes, is what
		// an operator restores if the new version must be rolled back.
		name := fmt.Sprintf("earshot-pre-migration-%d-to-%d-%s.db", st.Applied, st.Latest, time.Now().UTC().Format(backupStamp))
		file := filepath.Join(s.backupDir, name)
		if err := s.backupTo(ctx, file); err != nil {
			return fmt.Errorf("backup before migrating from %d to %d: %w (nothing was migrated)", st.Applied, st.Latest, err)
		}
		s.preMigrationBackup = file
	}
	files, _ := s.migrations()
	for _, m := range known {
		v, name, base := m.version, m.name, filepath.Base(m.name)
		if applied[v] {
			continue
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		err = s.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (?)`, v)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return nil
}

// SchemaVersion returns the applied migration version and the latest known.
func (s *Store) SchemaVersion(ctx context.Context) (applied, latest int, err error) {
	st, err := s.MigrationStatus(ctx)
	return st.Applied, st.Latest, err
}

// MigrationStatus compares the database's applied migrations with the
// ones this binary knows.
type MigrationStatus struct {
	Applied int   // the highest applied version (0: none)
	Latest  int   // the highest version this binary knows
	Pending []int // known and not applied yet
	Unknown []int // applied and not known: written by a newer binary
}

// MigrationStatus reads the applied migrations (what /healthz reports: a
// running process sees a newer binary migrate a shared database).
func (s *Store) MigrationStatus(ctx context.Context) (MigrationStatus, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT version FROM schema_version`)
	if err != nil {
		return MigrationStatus{}, err
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return MigrationStatus{}, err
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return MigrationStatus{}, err
	}
	known, err := s.knownMigrations()
	if err != nil {
		return MigrationStatus{}, err
	}
	return migrationStatus(applied, known), nil
}

type migrationFile struct {
	version int
	name    string // path in the embedded files
}

// knownMigrations lists the backend's migrations in order.
func (s *Store) knownMigrations() ([]migrationFile, error) { return knownMigrations(s.pg) }

func knownMigrations(pg bool) ([]migrationFile, error) {
	files, glob := (&Store{pg: pg}).migrations()
	names, err := fs.Glob(files, glob)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]migrationFile, 0, len(names))
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: bad name", filepath.Base(name))
		}
		out = append(out, migrationFile{v, name})
	}
	return out, nil
}

func migrationStatus(applied map[int]bool, known []migrationFile) MigrationStatus {
	var st MigrationStatus
	isKnown := map[int]bool{}
	for _, m := range known {
		isKnown[m.version] = true
		st.Latest = max(st.Latest, m.version)
		if !applied[m.version] {
			st.Pending = append(st.Pending, m.version)
		}
	}
	for v := range applied {
		st.Applied = max(st.Applied, v)
		if !isKnown[v] {
			st.Unknown = append(st.Unknown, v)
		}
	}
	sort.Ints(st.Unknown)
	return st
}

// SchemaTooNewError is Open's answer for a database a newer binary has
// migrated: this binary does not know its schema and touches nothing.
type SchemaTooNewError struct {
	Database int // the database's highest applied migration
	Known    int // the highest migration this binary knows
	Postgres bool
}

func (e *SchemaTooNewError) Error() string {
	return fmt.Sprintf("database schema is at migration %d but this earshot knows up to %d", e.Database, e.Known)
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.r.PingContext(ctx) }

// RunCheckpointer copies committed WAL pages into the database file (a
// PASSIVE checkpoint never blocks writers or readers) every interval, and
// every busyCheckpointInterval while writes keep the WAL long, so that the
// checkpoint a commit runs when the WAL passes wal_autocheckpoint finds
// almost every page copied already: the single writer does not pay for
// checkpoints, the other cores do.
func (s *Store) RunCheckpointer(ctx context.Context, interval time.Duration) {
	if s.pg {
		return // PostgreSQL checkpoints by itself
	}
	for {
		var busy, frames, copied int
		err := s.ck.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
		wait := interval
		if err == nil && frames > busyCheckpointFrames {
			wait = min(interval, busyCheckpointInterval)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// A WAL longer than busyCheckpointFrames pages means ingestion is busy.
const (
	busyCheckpointFrames   = 2048
	busyCheckpointInterval = 100 * time.Millisecond
)

// tx runs fn in a write transaction: BEGIN IMMEDIATE on SQLite's single
// writer; on PostgreSQL a transaction that first takes a transaction-scoped
// advisory lock shared by every Earshot process on the database. Write
// transactions are therefore serialised on both backends, as the store's
// read-then-write code (story assignment, quotas, leases) expects; readers
// never wait for it.
//
// Inside a request's transaction (txctx.go) fn runs in a savepoint of it
// instead, and commits with the request.
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if rtx := s.requestTxOf(ctx); rtx != nil {
		return s.nestedTx(ctx, rtx, fn)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		s.noteWrite(err)
		return err
	}
	if s.pg {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, s.lockKey); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		if IsStorageFull(err) {
			s.noteWrite(err)
		}
		return err
	}
	err = tx.Commit()
	s.noteWrite(err)
	return err
}

// IsBusy reports whether err is SQLite's busy/locked error.
func IsBusy(err error) bool {
	var e *sqlite.Error
	if errors.As(err, &e) {
		c := e.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

func isUnique(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505" // unique_violation
	}
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// TimeFormat is how every timestamp is stored: the public records' format
// (api.TimeFormat), fixed width, so text order is time order.
const TimeFormat = api.TimeFormat

// FormatTime renders t as stored and as the API shows it.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime parses a stored timestamp.
func ParseTime(s string) (time.Time, error) { return time.Parse(TimeFormat, s) }

func nullTime(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return FormatTime(*t)
}

func now() string { return FormatTime(time.Now()) }
