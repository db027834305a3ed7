package store

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
