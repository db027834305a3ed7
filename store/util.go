package store

import (
	"encoding/json"
	"strings"
)

func joinScopes(s []string) string { return strings.Join(s, " ") }

func splitScopes(s string) []string {
	f := strings.Fields(s)
	if f == nil {
		return []string{}
	}
	return f
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with plain data
	}
	return string(b)
}

func strList(s string) []string {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || out == nil {
		return []string{}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
