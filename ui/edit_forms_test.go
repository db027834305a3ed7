package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestBlankNamesRefused: a blanked name reaches the capability, which
// refuses it as REST does; nothing else of the form is saved.
func TestBlankNamesRefused(t *testing.T) {
	e := newEnv(t)
	e.seed(1)
	ctx := context.Background()
	c := e.client()
	c.login("owner@example.com")
	if st, _, _ := c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}, "scan_interval_minutes": {"30"}, "_back": {"/monitors/new"}}, true); st != http.StatusSeeOther {
		t.Fatalf("create monitor: %d", st)
	}
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	m := ms[0]

	for _, tc := range []struct {
		name, path string
		form       url.Values
		field      string
	}{
		{"monitor", "/a/update_monitor", url.Values{"id": {m.ID}, "name": {""}, "keywords": {"acme"}, "scan_interval_minutes": {"60"}, "_back": {"/monitors/" + m.ID}}, "name"},
		{"project", "/a/update_project", url.Values{"id": {e.proj.ID}, "name": {""}, "website": {""}, "description": {"Changed"}, "_back": {"/settings"}}, "name"},
		{"category", "/a/update_category", url.Values{"id": {"complaint"}, "label": {""}, "description": {"Changed"}, "_form": {"update_category:complaint"}, "_back": {"/categories"}}, "label"},
	} {
		st, body, _ := c.post(tc.path, tc.form, true)
		if st != http.StatusBadRequest {
			t.Errorf("%s: blank %s answered %d", tc.name, tc.field, st)
			continue
		}
		if !strings.Contains(body, `class="field-error"`) || !strings.Contains(body, tc.field+" must") {
			t.Errorf("%s: no field error for %s", tc.name, tc.field)
		}
		if strings.Contains(body, "saved.") || strings.Contains(body, "done.") {
			t.Errorf("%s: success message on a refused form", tc.name)
		}
	}
	if got, _ := e.st.Monitor(ctx, e.proj.ID, m.ID); got.Name != "Brand" || got.ScanIntervalMinutes != 30 {
		t.Errorf("monitor changed by a refused form: %q every %d", got.Name, got.ScanIntervalMinutes)
	}
	if got, _ := e.st.Project(ctx, e.proj.ID); got.Name != "Acme" || got.Description == "Changed" {
		t.Errorf("project changed by a refused form: %q %q", got.Name, got.Description)
	}
	cs, _ := e.st.ListCategories(ctx, e.proj.ID)
	for _, cat := range cs {
		if cat.Category == "complaint" && (cat.Label == "" || cat.Description == "Changed") {
			t.Errorf("category changed by a refused form: %+v", cat)
		}
	}

	// The display name may be blank, as update_account allows: the header
	// then shows the email.
	if st, _, _ := c.post("/a/update_account", url.Values{"full_name": {""}, "_back": {"/account"}}, true); st != http.StatusSeeOther {
		t.Fatalf("blank display name: %d", st)
	}
	if u, _ := e.st.UserByID(ctx, e.owner.ID); u.FullName != "" {
		t.Errorf("display name %q", u.FullName)
	}
	_, body, _ := c.get("/account")
	must(t, body, `<span class="muted">owner@example.com`)
}
