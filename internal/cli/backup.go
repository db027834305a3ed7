package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"earshot/store"
)

// Backups, restore and the data dir lock (issue 23 points 4 and 5).

func cmdBackup(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("backup", stderr, getenv, &cfg)
	to := fs.String("to", "", "destination file (must not exist); written 0600")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return usagef("--to is required")
	}
	if cfg.DatabaseURL != "" {
		if err := checkDatabaseURL(cfg.DatabaseURL, "--database-url / EARSHOT_DATABASE_URL"); err != nil {
			return err
		}
		return store.ErrBackupPostgres
	}
	if err := databaseExists(cfg.DataDir); err != nil {
		return err
	}
	unlock, err := holdDataDir(&cfg, false)
	if err != nil {
		return err
	}
	defer unlock()
	// No store.Open: a backup migrates nothing and reads any schema
	// version, so the copy an operator takes before a downgrade or a
	// restore works with whichever binary is at hand.
	err = store.BackupDatabase(ctx, cfg.DataDir, *to)
	if store.IsReadOnly(err) {
		return fmt.Errorf("the data dir %s is read-only for this user, and reading its database needs to write (the WAL index): make the data dir and %s writable, or run as the user that runs earshot serve", cfg.DataDir, store.FileName)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backup written to %s\n", *to)
	return nil
}

// cmdRestore puts a backup in place of the data dir's database. It
// refuses while another process has the data dir open (serve, mcp, an
// admin command: they hold its lock shared), since they would go on
// writing to the replaced file.
func cmdRestore(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("restore", stderr, getenv, &cfg)
	from := fs.String("from", "", "the backup `file` to restore (from earshot backup, a scheduled or a pre-migration backup)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *from == "" {
		return usagef("--from is required")
	}
	if cfg.DatabaseURL != "" {
		if err := checkDatabaseURL(cfg.DatabaseURL, "--database-url / EARSHOT_DATABASE_URL"); err != nil {
			return err
		}
		return store.ErrRestorePostgres
	}
	if _, err := os.Stat(*from); err != nil {
		return fmt.Errorf("backup %s: %w; nothing was changed", *from, err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	unlock, err := lockDataDir(cfg.DataDir, true)
	if errors.Is(err, errDataDirBusy) {
		return fmt.Errorf("another earshot process (serve, mcp or an admin command) has the data dir %s open: stop it, then restore; nothing was changed", cfg.DataDir)
	}
	if err != nil {
		return err
	}
	defer unlock()
	res, err := store.Restore(ctx, cfg.DataDir, *from)
	if err != nil {
		var tooNew *store.SchemaTooNewError
		if errors.As(err, &tooNew) {
			return usagef("the backup %s is at migration %d but this earshot (%s) knows up to %d: restore it with the earshot version that wrote it; nothing was changed", *from, tooNew.Database, buildInfo().Version, tooNew.Known)
		}
		return fmt.Errorf("%s is not a backup this earshot can restore: %w; nothing was changed", *from, err)
	}
	fmt.Fprintf(stdout, "restored %s (schema migration %d, %d users, %d projects) into %s\n",
		*from, res.Info.Version, res.Info.Users, res.Info.Projs, filepath.Join(cfg.DataDir, store.FileName))
	if res.Aside != "" {
		fmt.Fprintf(stdout, "the database it replaced is kept as %s (delete it once the restore is checked)\n", res.Aside)
	}
	fmt.Fprintln(stdout, "start earshot serve again; it migrates an older backup (taking a copy first)")
	return nil
}

// schemaTooNew says what to do about a database a newer binary migrated.
func schemaTooNew(err error) (string, bool) {
	var e *store.SchemaTooNewError
	if !errors.As(err, &e) {
		return "", false
	}
	how := fmt.Sprintf("earshot restore --from <data dir>/%s/earshot-pre-migration-…-to-%d-….db, with every newer earshot stopped", store.BackupDirName, e.Database)
	if e.Postgres {
		how = "pg_restore the dump taken before the upgrade, with every newer earshot stopped"
	}
	return fmt.Sprintf("database schema is at migration %d but this earshot (%s) knows up to %d: upgrade earshot, or restore the backup taken before the upgrade (%s)",
		e.Database, buildInfo().Version, e.Known, how), true
}

// holdDataDir takes the data dir's lock shared for a command that opens
// its SQLite database (nothing on PostgreSQL): a restore cannot swap the
// file under it, and it does not open a database a restore is swapping.
func holdDataDir(cfg *Config, create bool) (func(), error) {
	if cfg.DatabaseURL != "" {
		return func() {}, nil
	}
	if create {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("creating data dir: %w", err)
		}
	} else if databaseExists(cfg.DataDir) != nil {
		return func() {}, nil // openStore says what is missing; no lock file in a mistyped dir
	}
	unlock, err := lockDataDir(cfg.DataDir, false)
	if errors.Is(err, errDataDirBusy) {
		return nil, fmt.Errorf("earshot restore is replacing the database in %s: start again once it has finished", cfg.DataDir)
	}
	return unlock, err
}

func logPreMigrationBackup(log *slog.Logger, st *store.Store) {
	if b := st.PreMigrationBackup(); b != "" {
		log.Info("database copied before migrating (restore it with earshot restore --from FILE to go back)", "file", b)
	}
}

// backupSettings is serve's scheduled backups: every Every (0: off), the
// newest Keep kept, in Dir ("" = the data dir's backups folder).
type backupSettings struct {
	Every time.Duration
	Keep  int
	Dir   string
}

const (
	defaultBackupEvery = 24 * time.Hour
	defaultBackupKeep  = 7
	scheduledPrefix    = "earshot-scheduled-"
)

// backupConfig reads EARSHOT_BACKUP_SCHEDULE ("daily", the default;
// "hourly"; a Go duration of at least 1s such as 6h; "off" or 0),
// EARSHOT_BACKUP_KEEP (how many scheduled backups are kept, default 7) and
// EARSHOT_BACKUP_DIR (default <data>/backups).
func backupConfig(getenv func(string) string) (backupSettings, error) {
	b := backupSettings{Every: defaultBackupEvery, Keep: defaultBackupKeep, Dir: strings.TrimSpace(getenv("EARSHOT_BACKUP_DIR"))}
	switch v := strings.ToLower(strings.TrimSpace(getenv("EARSHOT_BACKUP_SCHEDULE"))); v {
	case "", "daily":
	case "hourly":
		b.Every = time.Hour
	case "off", "0":
		b.Every = 0
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return b, usagef("invalid value %q for EARSHOT_BACKUP_SCHEDULE: must be daily, hourly, off, or a duration of at least 1s like 6h", v)
		}
		b.Every = d
	}
	if v := strings.TrimSpace(getenv("EARSHOT_BACKUP_KEEP")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return b, usagef("invalid value %q for EARSHOT_BACKUP_KEEP: must be a whole number, at least 1", v)
		}
		b.Keep = n
	}
	return b, nil
}

// scheduledBackups writes a backup every b.Every into dir and keeps the
// newest b.Keep of them. The first is due b.Every after the newest one in
// dir (at once when there is none), so restarts do not postpone backups
// forever. Only earshot-scheduled-* files are pruned: the pre-migration
// copies and anything else in dir stay.
func scheduledBackups(ctx context.Context, st *store.Store, b backupSettings, dir string, log *slog.Logger) {
	var lastTry time.Time
	for {
		due := time.Now()
		if newest, ok := newestScheduled(dir); ok {
			due = newest.Add(b.Every)
		}
		if !lastTry.IsZero() && lastTry.Add(b.Every).After(due) {
			due = lastTry.Add(b.Every) // a failed backup is retried a period later
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(due)):
		}
		lastTry = time.Now()
		file := filepath.Join(dir, scheduledPrefix+store.BackupStamp(lastTry)+".db")
		if err := st.Backup(ctx, file); err != nil {
			if ctx.Err() == nil {
				log.Error("scheduled backup failed", "file", file, "err", err)
			}
			continue
		}
		pruned := pruneScheduled(dir, b.Keep, log)
		fi, _ := os.Stat(file)
		var size int64
		if fi != nil {
			size = fi.Size()
		}
		log.Info("scheduled backup written", "file", file, "bytes", size, "took", time.Since(lastTry).Round(time.Millisecond), "pruned", pruned)
	}
}

// scheduledFiles lists dir's scheduled backups, oldest first (the time
// in their names sorts).
func scheduledFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, scheduledPrefix) && strings.HasSuffix(n, ".db") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func newestScheduled(dir string) (time.Time, bool) {
	files := scheduledFiles(dir)
	for i := len(files) - 1; i >= 0; i-- {
		stamp := strings.TrimSuffix(strings.TrimPrefix(files[i], scheduledPrefix), ".db")
		if t, err := time.Parse(store.BackupStampLayout, stamp); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// pruneScheduled deletes all but the newest keep scheduled backups.
func pruneScheduled(dir string, keep int, log *slog.Logger) int {
	files := scheduledFiles(dir)
	n := 0
	for _, f := range files[:max(0, len(files)-keep)] {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			log.Warn("pruning an old scheduled backup", "file", f, "err", err)
			continue
		}
		n++
	}
	return n
}

// startScheduledBackups starts scheduledBackups in serve's background when
// configured (SQLite only: PostgreSQL is backed up with its own tools).
func startScheduledBackups(b *background, ctx context.Context, cfg *Config, st *store.Store, log *slog.Logger) {
	bs := cfg.Backups
	switch {
	case bs.Every == 0:
		log.Info("scheduled backups off")
		return
	case st.Backend() != "sqlite":
		log.Info("scheduled backups are for SQLite; back PostgreSQL up with pg_dump or the provider's backups")
		return
	}
	dir := bs.Dir
	if dir == "" {
		dir = filepath.Join(cfg.DataDir, store.BackupDirName)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	log.Info("scheduled backups", "every", bs.Every, "keep", bs.Keep, "dir", dir)
	b.goRun(ctx, func(ctx context.Context) { scheduledBackups(ctx, st, bs, dir, log) })
}
