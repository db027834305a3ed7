package capability_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestUUIDsAnyCase: ids are UUIDs, which are case-insensitive; an upper-case
// id in a path, query or body (also inside filters) finds the record, and a
// malformed id is still a 400.
func TestUUIDsAnyCase(t *testing.T) {
	e := newEnv(t)
	mon := e.ok(e.a, "create_monitor", map[string]any{"name": "Brand", "keywords": []string{"acme"}})
	group := e.ok(e.a, "create_keyword_group", map[string]any{"name": "Acme", "is_own": true})
	up := func(v any) string { return strings.ToUpper(v.(string)) }
	cases := []struct {
		name, capability string
		args             map[string]any
	}{
		{"path", "get_monitor", map[string]any{"id": up(mon["id"])}},
		{"query", "list_mentions", map[string]any{"monitor_id": up(mon["id"])}},
		{"body", "update_monitor", map[string]any{"id": up(mon["id"]), "group_id": up(group["id"])}},
		{"project path", "get_project", map[string]any{"id": strings.ToUpper(e.projA.ID)}},
		{"view filters", "create_mention_view", map[string]any{"name": "v", "filters": map[string]any{"monitor_id": up(mon["id"])}}},
		{"alert filters", "create_alert", map[string]any{"name": "a", "channel": "email", "target": "ops@example.com",
			"filters": map[string]any{"monitor_id": up(mon["id"])}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(e.a, c.capability, "", c.args)
			if r.Err != nil {
				t.Fatalf("%v", r.Err)
			}
		})
	}
	t.Run("stored lower-case", func(t *testing.T) {
		m := e.ok(e.a, "get_monitor", map[string]any{"id": mon["id"]})
		if m["group_id"] != group["id"] {
			t.Errorf("group_id %v, want %v", m["group_id"], group["id"])
		}
		v := e.ok(e.a, "list_views", nil)["views"].([]any)[0].(map[string]any)
		if f := v["filters"].(map[string]any); f["monitor_id"] != mon["id"] {
			t.Errorf("view filter monitor_id %v, want %v", f["monitor_id"], mon["id"])
		}
	})
	t.Run("project header and path", func(t *testing.T) {
		login, err := e.svc.Login(t.Context(), "a@example.com", "correct-horse-42", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, hdr := range [][2]string{{strings.ToUpper(e.projA.ID), ""}, {"", strings.ToUpper(e.projA.ID)}} {
			p, err := e.svc.Authenticate(t.Context(), login.Token, hdr[0], hdr[1])
			if err != nil || p.ProjectID != e.projA.ID {
				t.Errorf("header %q hint %q: project %q, %v", hdr[0], hdr[1], p.ProjectID, err)
			}
		}
	})
	for _, bad := range []string{"D3D75382-2143-40CE-8D39-F18755C8C78", "{d3d75382-2143-40ce-8d39-f18755c8c781}", "not-a-uuid"} {
		wantErr(t, bad, e.call(e.a, "get_monitor", "", map[string]any{"id": bad}), http.StatusBadRequest, "VALIDATION_ERROR", "id")
	}
}
