package capability_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestSavedFilters: views and alerts check their filters as list_mentions
// checks its query, and an error names the field inside filters.
func TestSavedFilters(t *testing.T) {
	e := newEnv(t)
	mine := e.ok(e.a, "create_monitor", map[string]any{"name": "Mine", "keywords": []string{"acme"}})
	theirs := e.ok(e.b, "create_monitor", map[string]any{"name": "Theirs", "keywords": []string{"globex"}})
	deleted := e.ok(e.a, "create_monitor", map[string]any{"name": "Gone", "keywords": []string{"old"}})
	e.ok(e.a, "delete_monitor", map[string]any{"id": deleted["id"]})
	alert := e.ok(e.a, "create_alert", map[string]any{"name": "a", "channel": "email", "target": "ops@example.com"})
	view := e.ok(e.a, "create_mention_view", map[string]any{"name": "v"})

	// Each filter set is tried on every operation that takes filters.
	ops := []struct {
		capability string
		args       map[string]any
	}{
		{"create_mention_view", map[string]any{"name": "v2"}},
		{"update_mention_view", map[string]any{"id": view["id"]}},
		{"create_alert", map[string]any{"name": "a2", "channel": "email", "target": "ops@example.com"}},
		{"update_alert", map[string]any{"id": alert["id"]}},
	}
	cases := []struct {
		name    string
		filters any
		status  int
		code    string
		param   string
		message string // a substring of the message
	}{
		{"own monitor", map[string]any{"monitor_id": mine["id"]}, 200, "", "", ""},
		{"own deleted monitor", map[string]any{"monitor_id": deleted["id"]}, 200, "", "", ""},
		{"another project's monitor", map[string]any{"monitor_id": theirs["id"]}, 404, "NOT_FOUND", "filters.monitor_id", "monitor not found"},
		{"random monitor", map[string]any{"monitor_id": "d3d75382-2143-40ce-8d39-f18755c8c781"}, 404, "NOT_FOUND", "filters.monitor_id", "monitor not found"},
		{"malformed monitor", map[string]any{"monitor_id": "nope"}, 400, "VALIDATION_ERROR", "filters.monitor_id", "must be a UUID"},
		{"wrong type", map[string]any{"min_urgency": "high"}, 400, "VALIDATION_ERROR", "filters.min_urgency", "filters.min_urgency must be an integer"},
		{"out of range", map[string]any{"min_urgency": 101}, 400, "VALIDATION_ERROR", "filters.min_urgency", "at most 100"},
		{"bad enum", map[string]any{"source": "myspace"}, 400, "VALIDATION_ERROR", "filters.source", "must be one of"},
		{"unknown field", map[string]any{"urgency": 5}, 400, "VALIDATION_ERROR", "filters.urgency", `unknown field "urgency"`},
		{"empty urgency range", map[string]any{"min_urgency": 80, "max_urgency": 20}, 400, "VALIDATION_ERROR", "filters.max_urgency", "at least"},
		{"not an object", []int{1}, 400, "VALIDATION_ERROR", "filters", "filters must be an object"},
	}
	for _, c := range cases {
		for _, op := range ops {
			t.Run(c.name+"/"+op.capability, func(t *testing.T) {
				args := map[string]any{"filters": c.filters}
				for k, v := range op.args {
					args[k] = v
				}
				r := e.call(e.a, op.capability, "", args)
				if c.status == 200 {
					if r.Err != nil {
						t.Fatal(r.Err)
					}
					return
				}
				wantErr(t, c.name, r, c.status, c.code, c.param)
				if !strings.Contains(r.Err.Message, c.message) {
					t.Errorf("message %q lacks %q", r.Err.Message, c.message)
				}
			})
		}
	}

	t.Run("no existence leak", func(t *testing.T) {
		a := e.call(e.a, "create_mention_view", "", map[string]any{"name": "x", "filters": map[string]any{"monitor_id": theirs["id"]}})
		b := e.call(e.a, "create_mention_view", "", map[string]any{"name": "x", "filters": map[string]any{"monitor_id": "d3d75382-2143-40ce-8d39-f18755c8c781"}})
		if a.Err == nil || b.Err == nil || *a.Err != *b.Err {
			t.Errorf("another project's monitor %+v, a random id %+v", a.Err, b.Err)
		}
	})

	t.Run("list_mentions names the field too", func(t *testing.T) {
		r := e.call(e.a, "list_mentions", "", map[string]any{"monitor_id": theirs["id"]})
		wantErr(t, "list_mentions", r, http.StatusNotFound, "NOT_FOUND", "monitor_id")
	})
}
