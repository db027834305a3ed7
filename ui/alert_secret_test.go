package ui_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestAlertsPageMasksTargetsForViewers: on /alerts a viewer sees a Slack
// alert's URL masked; the owner (alerts:write) sees it in full.
func TestAlertsPageMasksTargetsForViewers(t *testing.T) {
	e, owner := ownerClient(t, 0)
	owner.get("/alerts")
	const hook = "https://127.0.0.1/services/T0000/B0000/tokenSecretWXYZ"
	owner.post("/a/create_alert", url.Values{"name": {"Slack"}, "channel": {"slack"}, "target": {hook}, "_back": {"/alerts"}}, true)
	if _, body, _ := owner.get("/alerts"); !strings.Contains(body, hook) {
		t.Fatalf("the owner does not see the alert's target")
	}
	ctx := context.Background()
	v, err := e.svc.CreateUser(ctx, "vic@example.com", "correct-horse-42", "Vic Viewer")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddMember(ctx, e.proj.ID, v.ID, "viewer"); err != nil {
		t.Fatal(err)
	}
	viewer := e.client()
	viewer.login("vic@example.com")
	_, body, _ := viewer.get("/alerts")
	if strings.Contains(body, "tokenSecret") || !strings.Contains(body, "https://127.0.0.1/…/WXYZ") {
		t.Errorf("a viewer's /alerts shows the Slack URL (masked: %v)", strings.Contains(body, "/…/WXYZ"))
	}
}
