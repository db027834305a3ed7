package store

import (
	"encoding/json"
	"strings"
)

// How Go values are kept in columns: scope lists as space-separated text,
// lists and objects as JSON text, booleans as 0 or 1.

// joinScopes stores a scope list.
func joinScopes(s []string) string { return strings.Join(s, " ") }

// splitScopes reads a stored scope list; never nil.
func splitScopes(s string) []string {
	f := strings.Fields(s)
	if f == nil {
		return []string{}
	}
	return f
}

// toJSON encodes plain data for a JSON column.
func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with plain data
	}
	return string(b)
}

// strList reads a JSON column holding a list of strings; never nil, and
// empty when the column is not such a list.
func strList(s string) []string {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || out == nil {
		return []string{}
	}
	return out
}

// boolInt is b as SQLite stores booleans.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
