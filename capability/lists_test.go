package capability_test

import (
	"net/http"
	"testing"
)

// TestExplicitEmptyLists: a list that must name something answers 400 when
// sent empty, while leaving it out still takes the documented default.
func TestExplicitEmptyLists(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, capability string
		args             map[string]any
		param, message   string
	}{
		{"key with no scopes", "create_api_key", map[string]any{"name": "ci", "scopes": []string{}},
			"scopes", "scopes must name at least one scope"},
		{"webhook with no events", "create_webhook", map[string]any{"url": "https://hooks.example.com/a", "events": []string{}},
			"events", "events must name at least one event"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(e.a, c.capability, "", c.args)
			wantErr(t, c.name, r, http.StatusBadRequest, "VALIDATION_ERROR", c.param)
			if r.Err.Message != c.message {
				t.Errorf("message %q, want %q", r.Err.Message, c.message)
			}
		})
	}

	t.Run("defaults when omitted", func(t *testing.T) {
		k := e.ok(e.a, "create_api_key", map[string]any{"name": "ci"})
		if got := k["scopes"].([]any); len(got) != 9 {
			t.Errorf("omitted scopes gave %v, want all nine", got)
		}
		w := e.ok(e.a, "create_webhook", map[string]any{"url": "https://hooks.example.com/b"})
		if got := w["events"].([]any); len(got) != 1 || got[0] != "mention.created" {
			t.Errorf("omitted events gave %v, want [mention.created]", got)
		}
	})
}
