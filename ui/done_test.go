package ui

import (
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"earshot/capability"
	"earshot/store/storetest"
)

func TestDoneMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"update_project", url.Values{"id": {"p"}, "name": {"Acme"}}, "Project saved."},
		{"create_keyword_group", url.Values{"name": {"Rivals"}}, "Keyword group created."},
		{"revoke_api_key", url.Values{"id": {"k"}}, "API key revoked."},
		{"remove_project_member", url.Values{"id": {"u"}}, "Member removed."},
		{"update_alert", url.Values{"id": {"a"}, "active": {"false"}}, "Alert paused."},
		{"update_monitor", url.Values{"id": {"m"}, "active": {"true"}}, "Monitor resumed."},
		{"update_monitor", url.Values{"id": {"m"}, "name": {"Brand"}, "active": {"true"}}, "Monitor saved."},
		{"update_category", url.Values{"id": {"complaint"}, "enabled": {"true"}}, "Category enabled."},
		{"rotate_webhook_secret", url.Values{"id": {"w"}}, "Webhook signing secret rotated."},
		{"set_public_dashboard", url.Values{"id": {"p"}, "enabled": {"true"}}, "Public page published."},
		{"update_account", url.Values{"full_name": {""}}, "Account saved."},
	} {
		if got := doneMessage(tc.name, tc.form); got != tc.want {
			t.Errorf("doneMessage(%s, %v) = %q, want %q", tc.name, tc.form, got, tc.want)
		}
	}
	// Every form capability gets a sentence, none the generic "Title: done.".
	st := storetest.Open(t)
	svc := capability.New(st, capability.Config{}, slog.New(slog.DiscardHandler))
	for _, c := range svc.Capabilities() {
		if !c.Write {
			continue
		}
		m := doneMessage(c.Name, url.Values{"id": {"x"}, "name": {"n"}})
		if strings.Contains(m, "done") || strings.Contains(m, "_") || !strings.HasSuffix(m, ".") || strings.ToUpper(m[:1]) != m[:1] {
			t.Errorf("%s: %q", c.Name, m)
		}
	}
}
