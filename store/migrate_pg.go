package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
)

// CopyReport says what CopyToPostgres copied.
type CopyReport struct {
	Tables   []CopiedTable
	Skipped  []string // SQLite tables not copied, with why
	Defaults []string // PostgreSQL columns SQLite does not have (left at their default)
	Duration time.Duration
}

// CopiedTable is one table's row count.
type CopiedTable struct {
	Name     string
	Rows     int64
	Duration time.Duration
}

// ErrNotEmpty is CopyToPostgres's answer when the PostgreSQL database
// already holds Earshot data.
var ErrNotEmpty = errors.New("the PostgreSQL database already holds Earshot data")

// copySkip lists the SQLite tables that have no PostgreSQL counterpart
// by design, and why.
var copySkip = map[string]string{
	"schema_version": "each backend has its own migrations",
	"fts_pending":    "SQLite's search index queue; PostgreSQL indexes mentions.text_folded as rows are written",
	"leases":         "claims of the processes running on SQLite; PostgreSQL processes take their own",
}

// CopyToPostgres copies every row of src, a SQLite store, into dst, a
// PostgreSQL store that holds no data yet (ErrNotEmpty otherwise). src is
// read in one read transaction, so the copy is a consistent snapshot even
// while serve keeps writing to it; dst is written in one transaction,
// so a failed copy leaves it empty. Tables are copied parents first (the
// foreign keys hold throughout), rowids and sequence numbers are kept
// (cursors, event sequences and delivery order stay valid), identity
// sequences continue after the copied values, and mentions.text_folded is
// computed (Fold). SQLite's full-text tables are not copied: PostgreSQL
// searches through its trigram index. progress, when not nil, is called as
// each table is done.
func CopyToPostgres(ctx context.Context, src, dst *Store, progress func(CopiedTable)) (*CopyReport, error) {
	if src.pg || !dst.pg {
		return nil, errors.New("copy: the source must be SQLite and the destination PostgreSQL")
	}
	start := time.Now()
	rep := &CopyReport{}

	// The snapshot: one read transaction on one reader connection.
	stx, err := src.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer stx.Rollback()
	srcTables, err := sqliteTables(ctx, stx)
	if err != nil {
		return nil, err
	}

	conn, err := dst.w.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(*pgConn)
		if !ok {
			return fmt.Errorf("copy: unexpected driver connection %T", dc)
		}
		sc, ok := pc.c.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("copy: unexpected pgx connection %T", pc.c)
		}
		return copyInto(ctx, stx, sc.Conn(), dst.lockKey, srcTables, rep, progress)
	})
	if err != nil {
		return nil, err
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// sqliteTables maps each SQLite table to its columns.
func sqliteTables(ctx context.Context, tx *sql.Tx) (map[string][]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, n := range names {
		rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, n)
		if err != nil {
			return nil, err
		}
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return nil, err
			}
			cols = append(cols, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[n] = cols
	}
	return out, nil
}

type pgColumn struct {
	name, typ string
	identity  bool
}

func copyInto(ctx context.Context, stx *sql.Tx, pc *pgx.Conn, lockKey int64, srcTables map[string][]string, rep *CopyReport, progress func(CopiedTable)) error {
	// citext has no OID pgx knows; its wire form is text's.
	var citextOID uint32
	if err := pc.QueryRow(ctx, `SELECT 'citext'::regtype::oid`).Scan(&citextOID); err != nil {
		return fmt.Errorf("copy: the citext extension: %w", err)
	}
	pc.TypeMap().RegisterType(&pgtype.Type{Name: "citext", OID: citextOID, Codec: pgtype.TextCodec{}})

	tx, err := pc.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Earshot processes already running on the database wait for the copy.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
		return err
	}
	tables, err := pgTablesInFKOrder(ctx, tx)
	if err != nil {
		return err
	}
	cols := map[string][]pgColumn{}
	rows, err := tx.Query(ctx, `SELECT table_name, column_name, data_type, is_identity = 'YES'
		FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var t string
		var c pgColumn
		if err := rows.Scan(&t, &c.name, &c.typ, &c.identity); err != nil {
			rows.Close()
			return err
		}
		cols[t] = append(cols[t], c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	// Only into an empty database: merging two installations would need
	// decisions (duplicate users, slugs) that a copy cannot make.
	for _, t := range tables {
		if t == "schema_version" || t == "installation_secrets" {
			// A process started on the empty database may have made
			// its secrets already; the copied installation's replace them
			// (its cursors stay valid).
			continue
		}
		var any bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+pgx.Identifier{t}.Sanitize()+`)`).Scan(&any); err != nil {
			return err
		}
		if any {
			return fmt.Errorf("%w (table %s has rows): earshot migrate copies into an empty database only", ErrNotEmpty, t)
		}
	}

	fts := false
	for _, name := range slices.Sorted(mapKeys(srcTables)) {
		switch {
		case strings.HasPrefix(name, "sqlite_"):
		case strings.HasPrefix(name, "mentions_fts"):
			if !fts {
				rep.Skipped = append(rep.Skipped, "mentions_fts* (SQLite's full-text index; PostgreSQL searches mentions.text_folded through a trigram index)")
			}
			fts = true
		case copySkip[name] != "":
			rep.Skipped = append(rep.Skipped, name+" ("+copySkip[name]+")")
		case cols[name] == nil:
			rep.Skipped = append(rep.Skipped, name+" (no such table on PostgreSQL)")
		}
	}

	for _, t := range tables {
		srcCols, ok := srcTables[t]
		if !ok || copySkip[t] != "" {
			continue
		}
		if t == "installation_secrets" {
			if _, err := tx.Exec(ctx, `DELETE FROM installation_secrets`); err != nil {
				return err
			}
		}
		// The copied rows are final: triggers that derive rows from
		// inserts (usage_days from usage_periods, a replayed delivery's
		// payload) must not add to what is copied as well.
		t0 := time.Now()
		id := pgx.Identifier{t}.Sanitize()
		if _, err := tx.Exec(ctx, `ALTER TABLE `+id+` DISABLE TRIGGER USER`); err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
		n, err := copyTable(ctx, stx, tx, t, srcCols, cols[t], rep)
		if err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
		if _, err := tx.Exec(ctx, `ALTER TABLE `+id+` ENABLE TRIGGER USER`); err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
		ct := CopiedTable{Name: t, Rows: n, Duration: time.Since(t0)}
		rep.Tables = append(rep.Tables, ct)
		if progress != nil {
			progress(ct)
		}
	}

	// Identity sequences continue after the copied values.
	for _, t := range tables {
		for _, c := range cols[t] {
			if !c.identity {
				continue
			}
			q := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(MAX(%[1]s), 0) + 1, false) FROM %[2]s`,
				pgx.Identifier{c.name}.Sanitize(), pgx.Identifier{t}.Sanitize())
			if _, err := tx.Exec(ctx, q, pgx.Identifier{t}.Sanitize(), c.name); err != nil {
				return fmt.Errorf("copy %s: resetting the sequence of %s: %w", t, c.name, err)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	// Fresh statistics, so the first queries are planned for the real sizes.
	if _, err := pc.Exec(ctx, `ANALYZE`); err != nil {
		return fmt.Errorf("copy: analyze: %w", err)
	}
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// pgTablesInFKOrder lists the schema's tables, each after the tables its
// foreign keys reference.
func pgTablesInFKOrder(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	rows, err = tx.Query(ctx, `SELECT c.relname, p.relname FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
		WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	for rows.Next() {
		var child, parent string
		if err := rows.Scan(&child, &parent); err != nil {
			rows.Close()
			return nil, err
		}
		if child != parent {
			deps[child] = append(deps[child], parent)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(string) error
	visit = func(n string) error {
		switch state[n] {
		case 1:
			return fmt.Errorf("copy: foreign keys form a cycle through %s", n)
		case 2:
			return nil
		}
		state[n] = 1
		sort.Strings(deps[n])
		for _, p := range deps[n] {
			if err := visit(p); err != nil {
				return err
			}
		}
		state[n] = 2
		out = append(out, n)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// copyTable streams one SQLite table into its PostgreSQL twin with COPY.
func copyTable(ctx context.Context, stx *sql.Tx, tx pgx.Tx, table string, srcCols []string, dstCols []pgColumn, rep *CopyReport) (int64, error) {
	has := map[string]bool{}
	for _, c := range srcCols {
		has[c] = true
	}
	var sel []string   // SQLite expressions
	var names []string // PostgreSQL columns
	var types []string // their types
	foldFrom, foldAt := -1, -1
	for _, c := range dstCols {
		switch {
		case has[c.name]:
			sel = append(sel, `"`+c.name+`"`)
		case c.name == "rowid":
			sel = append(sel, "rowid")
		case c.name == "text_folded" && has["text"]:
			foldAt = len(names)
			sel = append(sel, "NULL")
		default:
			rep.Defaults = append(rep.Defaults, table+"."+c.name)
			continue
		}
		names = append(names, c.name)
		types = append(types, c.typ)
	}
	for i, n := range names {
		if n == "text" {
			foldFrom = i
		}
	}
	order := ""
	if has["rowid"] || slices.ContainsFunc(dstCols, func(c pgColumn) bool { return c.name == "rowid" }) {
		order = " ORDER BY rowid" // parents before their children within a table
	}
	rows, err := stx.QueryContext(ctx, `SELECT `+strings.Join(sel, ", ")+` FROM "`+table+`"`+order)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	src := &sqliteCopySource{rows: rows, types: types, foldFrom: foldFrom, foldAt: foldAt,
		raw: make([]any, len(names)), ptrs: make([]any, len(names))}
	for i := range src.raw {
		src.ptrs[i] = &src.raw[i]
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{table}, names, src)
	if err != nil {
		return 0, err
	}
	return n, rows.Err()
}

// sqliteCopySource feeds pgx's COPY from SQLite rows, converting each
// value to the Go type of its PostgreSQL column.
type sqliteCopySource struct {
	rows             *sql.Rows
	types            []string
	foldFrom, foldAt int
	raw, ptrs        []any
	vals             []any
	err              error
}

func (s *sqliteCopySource) Next() bool {
	if s.err != nil || !s.rows.Next() {
		return false
	}
	if s.err = s.rows.Scan(s.ptrs...); s.err != nil {
		return false
	}
	s.vals = make([]any, len(s.raw))
	for i, v := range s.raw {
		if s.vals[i], s.err = pgValue(v, s.types[i]); s.err != nil {
			return false
		}
	}
	if s.foldAt >= 0 {
		t, _ := s.vals[s.foldFrom].(string)
		s.vals[s.foldAt] = Fold(t)
	}
	return true
}

func (s *sqliteCopySource) Values() ([]any, error) { return s.vals, s.err }
func (s *sqliteCopySource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}

// pgValue converts a value SQLite returned to the Go type pgx encodes for
// a column of type typ (information_schema's data_type).
func pgValue(v any, typ string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "bigint", "integer", "smallint":
		switch x := v.(type) {
		case int64:
			return x, nil
		case float64:
			if x == math.Trunc(x) {
				return int64(x), nil
			}
		case string:
			return strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		case []byte:
			return strconv.ParseInt(strings.TrimSpace(string(x)), 10, 64)
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		}
	case "double precision", "real", "numeric":
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		case string:
			return strconv.ParseFloat(strings.TrimSpace(x), 64)
		}
	case "bytea":
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case "boolean":
		if x, ok := v.(int64); ok {
			return x != 0, nil
		}
	default: // text, citext (USER-DEFINED), varchar
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x)
		case int64:
			s = strconv.FormatInt(x, 10)
		case float64:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		case time.Time:
			s = FormatTime(x)
		default:
			return nil, fmt.Errorf("value %v (%T) for a %s column", v, v, typ)
		}
		// PostgreSQL text holds valid UTF-8 without NUL; SQLite holds anything.
		return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", ""), nil
	}
	return nil, fmt.Errorf("value %v (%T) for a %s column", v, v, typ)
}
