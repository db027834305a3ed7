package store

import "strings"

// SQL fragments whose text differs between SQLite and PostgreSQL. Each
// returns the SQLite form unchanged, so SQLite keeps the statements (and
// query plans) it had; PostgreSQL gets the plain equivalent and leaves the
// choice of index to its planner, which has statistics SQLite lacks.

// indexed names a table (and its alias, "" for none) read through a given
// index: SQLite's INDEXED BY pins the plan; PostgreSQL has no such hint,
// its planner chooses by its statistics, so the table is named bare.
func (s *Store) indexed(table, alias, index string) string {
	name := table
	if alias != "" {
		name += " " + alias
	}
	if s.pg {
		return name
	}
	return name + " INDEXED BY " + index
}

// jsonValues selects the elements of a JSON array parameter (a list of ids
// passed as one argument) as a column "value": SQLite's json_each, on
// PostgreSQL jsonb_array_elements_text over the parameter read as jsonb.
func (s *Store) jsonValues() string {
	if s.pg {
		return `SELECT value FROM jsonb_array_elements_text(CAST(? AS jsonb)) AS j(value)`
	}
	return `SELECT value FROM json_each(?)`
}

// jsonCount is the integer under key (a parameter) of a JSON object of
// counts stored as text in col, 0 when absent.
func jsonCount(pg bool, col string) string {
	if pg {
		return `COALESCE((CAST(` + col + ` AS jsonb) ->> ?)::bigint, 0)`
	}
	return `COALESCE(json_extract(` + col + `, '$.' || ?), 0)`
}

// likeEscape escapes LIKE's wildcards (and the escape character itself)
// in s, for `LIKE '%' || ? || '%' ESCAPE '\'`: the search is a plain
// substring, so a % or _ in it matches only itself.
func likeEscape(s string) string {
	if !strings.ContainsAny(s, `\%_`) {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// searchCond is the exact search predicate: the mention's text, Unicode
// case-folded, contains the folded search. SQLite folds the text in SQL
// (earshot_fold, mentions.go) and finds candidates through its FTS5
// trigram index first; PostgreSQL keeps the folded text in text_folded,
// written at ingest, whose pg_trgm GIN index answers this LIKE by itself.
func searchCond(pg bool, search string) (string, any) {
	folded := Fold(search)
	if pg {
		return `m.text_folded LIKE '%' || ? || '%' ESCAPE '\'`, likeEscape(folded)
	}
	return `instr(earshot_fold(m.text), ?) > 0`, folded
}
