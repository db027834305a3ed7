package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"earshot/store"
)

// cmdMigrate copies the SQLite database of a data dir into an empty
// PostgreSQL database, from one consistent snapshot (serve may keep running
// on the data dir; what it writes after the snapshot is not copied).
func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := newFlags("migrate", stderr, getenv, &cfg)
	var to string
	fs.checkedVar(&to, "to", "", "", "the PostgreSQL `URL` to copy into, an empty database (default: --database-url)", parseDatabaseURL)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if to == "" {
		to = cfg.DatabaseURL
	}
	if to == "" {
		return usagef("--to postgres://… is required (the empty PostgreSQL database to copy the data dir into)")
	}
	if err := checkDatabaseURL(to, "--to"); err != nil {
		return err
	}
	if err := databaseExists(cfg.DataDir); err != nil {
		return err
	}
	src, err := store.Open(ctx, cfg.DataDir)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := store.OpenPostgres(ctx, to)
	if err != nil {
		return err
	}
	defer dst.Close()
	fmt.Fprintf(stdout, "copying %s (one consistent snapshot) into %s\n", src.Path(), dst.Path())
	var total int64
	rep, err := store.CopyToPostgres(ctx, src, dst, func(t store.CopiedTable) {
		total += t.Rows
		fmt.Fprintf(stdout, "  %-22s %10d rows %9s\n", t.Name, t.Rows, t.Duration.Round(time.Millisecond))
	})
	if err != nil {
		if errors.Is(err, store.ErrNotEmpty) {
			return fmt.Errorf("%w; nothing was copied. Give an empty database (createdb earshot), or a new schema (CREATE SCHEMA earshot2, then ?search_path=earshot2)", err)
		}
		return fmt.Errorf("%w; nothing was copied (the copy is one transaction)", err)
	}
	fmt.Fprintf(stdout, "copied %d rows in %d tables in %s\n", total, len(rep.Tables), rep.Duration.Round(time.Millisecond))
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(stdout, "not copied:\n  %s\n", strings.Join(rep.Skipped, "\n  "))
	}
	if len(rep.Defaults) > 0 {
		fmt.Fprintf(stdout, "left at their defaults (not in the SQLite database): %s\n", strings.Join(rep.Defaults, ", "))
	}
	fmt.Fprintf(stdout, "next: stop earshot serve on %s, and start it with EARSHOT_DATABASE_URL (or --database-url) set to the database above.\n"+
		"Anything serve wrote after the snapshot is not in the copy: to lose nothing, stop serve before migrating.\n", cfg.DataDir)
	return nil
}
