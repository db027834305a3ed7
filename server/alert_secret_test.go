package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

const slackHook = "https://127.0.0.1/services/T0000/B0000/tokenSecretWXYZ"

// TestAlertTargetIsASecret: a Slack (or webhook) alert's URL is a
// credential. The creator sees it; a read-only key sees it masked over
// REST and MCP; a key with alerts:write reads it in full; an update that
// leaves the target out, or sends the masked form back, keeps it.
func TestAlertTargetIsASecret(t *testing.T) {
	e := newEnv(t)
	reader := e.mustKey(e.projA, []string{"mentions:read"})
	created := e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "Slack", "channel": "slack", "target": slackHook}).ok()
	if got := created.data()["target"]; got != slackHook {
		t.Fatalf("the creator does not see the target once: %v", got)
	}
	id := created.data()["id"].(string)
	e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "Mail", "channel": "email", "target": "ops@example.com"}).ok()

	const masked = "https://127.0.0.1/…/WXYZ"
	r := e.do("GET", "/api/v1/alerts", reader, nil).ok()
	if strings.Contains(string(r.raw), "tokenSecret") || !strings.Contains(string(r.raw), masked) {
		t.Errorf("a read-only key's list_alerts: %s, want the target as %s", r.raw, masked)
	}
	if !strings.Contains(string(r.raw), "ops@example.com") {
		t.Errorf("an email target (no credential) is hidden: %s", r.raw)
	}
	st, body := mcpRaw(t, e, reader, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_alerts","arguments":{}}}`)
	if st != http.StatusOK || strings.Contains(body, "tokenSecret") || !strings.Contains(body, "/…/WXYZ") {
		t.Errorf("a read-only key's MCP list_alerts: %d %.400s", st, body)
	}
	if r := e.do("GET", "/api/v1/alerts", e.keyA, nil).ok(); !strings.Contains(string(r.raw), slackHook) {
		t.Errorf("a key with alerts:write does not read the target: %s", r.raw)
	}
	// Updates that do not mean to change the target keep it.
	e.do("PATCH", "/api/v1/alerts/"+id, e.keyA, map[string]any{"name": "Renamed"}).ok()
	e.do("PATCH", "/api/v1/alerts/"+id, e.keyA, map[string]any{"target": masked, "min_urgency": 10}).ok()
	a, err := e.st.Alert(context.Background(), e.projA.ID, id)
	if err != nil || a.Target != slackHook || a.Name != "Renamed" || a.MinUrgency != 10 {
		t.Errorf("after the updates: %+v %v, want the target kept", a, err)
	}
}
