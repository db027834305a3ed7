package capability_test

import (
	"net/http"
	"testing"

	"earshot/capability"
)

// TestIdempotentErrorReplay: an error response that reached its operation
// (404, 409 CONFLICT) is kept and replayed with the same status and error,
// marked Replayed so each binding writes meta.idempotencyReplayed true.
func TestIdempotentErrorReplay(t *testing.T) {
	e := newEnv(t)
	// B's project is archived: its writes answer 409 CONFLICT.
	e.ok(e.b, "delete_project", map[string]any{"id": e.projB.ID, "confirmation_name": "Globex", "confirm_deletion": true})
	cases := []struct {
		name, capability string
		p                *capability.Principal
		args             map[string]any
		status           int
		code             string
	}{
		{"not found", "update_monitor", e.a, map[string]any{"id": "d3d75382-2143-40ce-8d39-f18755c8c781", "name": "x"}, http.StatusNotFound, "NOT_FOUND"},
		{"unknown keyword", "delete_keyword", e.a, map[string]any{"id": "never-used"}, http.StatusNotFound, "NOT_FOUND"},
		{"archived project", "create_monitor", e.b, map[string]any{"name": "m", "keywords": []string{"globex"}}, http.StatusConflict, "CONFLICT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := "idem-err-" + c.capability
			first := e.call(c.p, c.capability, key, c.args)
			wantErr(t, "first", first, c.status, c.code, "")
			if first.Replayed {
				t.Fatal("first answer marked replayed")
			}
			again := e.call(c.p, c.capability, key, c.args)
			wantErr(t, "replay", again, c.status, c.code, "")
			if !again.Replayed || again.Err.Message != first.Err.Message {
				t.Errorf("replay: replayed %v, %+v; first %+v", again.Replayed, again.Err, first.Err)
			}
		})
	}
}
