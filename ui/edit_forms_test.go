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
	e, c := ownerClient(t, 1)
	ctx := context.Background()
	if st, _, _ := c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}, "scan_interval_minutes": {"30"}, "_back": {"/monitors/new"}}, true); st != http.StatusSeeOther {
		t.Fatalf("create monitor: %d", st)
	}
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	m := ms[0]

	for _, tc := range []struct {
		name, path string
		form       url.Values
		field      string
		label      string // the control's label, which the message names
	}{
		{"monitor", "/a/update_monitor", url.Values{"id": {m.ID}, "name": {""}, "keywords": {"acme"}, "scan_interval_minutes": {"60"}, "_back": {"/monitors/" + m.ID}}, "name", "Name"},
		{"project", "/a/update_project", url.Values{"id": {e.proj.ID}, "name": {""}, "website": {""}, "description": {"Changed"}, "_back": {"/settings"}}, "name", "Name"},
		{"category", "/a/update_category", url.Values{"id": {"complaint"}, "label": {""}, "description": {"Changed"}, "_form": {"update_category:complaint"}, "_back": {"/categories"}}, "label", "Label"},
	} {
		st, body, _ := c.post(tc.path, tc.form, true)
		if st != formFailed {
			t.Errorf("%s: blank %s answered %d", tc.name, tc.field, st)
			continue
		}
		if !strings.Contains(body, `class="field-error"`) || !strings.Contains(body, tc.label+" is required.") {
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

// TestFailedEditFormsReopen: an item's edit form that fails comes back open,
// with what was typed and the error next to its field, linked for screen
// readers; the other items' forms keep their stored values.
func TestFailedEditFormsReopen(t *testing.T) {
	e, c := ownerClient(t, 1)
	ctx := context.Background()
	for _, n := range []string{"First", "Second"} {
		if st, _, _ := c.post("/a/create_alert", url.Values{"name": {n}, "channel": {"email"}, "target": {"ops@example.com"}, "min_urgency": {"70"}, "_back": {"/alerts"}}, true); st != http.StatusOK && st != http.StatusSeeOther {
			t.Fatalf("create alert: %d", st)
		}
	}
	as, _ := e.st.ListAlerts(ctx, e.proj.ID, false)
	a := as[0]
	k := "update_alert:" + a.ID

	// Blank name and a bad target: the name's error, both typed values kept.
	st, body, _ := c.post("/a/update_alert", url.Values{"_form": {k}, "id": {a.ID}, "name": {""}, "channel": {"email"}, "target": {"bad"}, "min_urgency": {"55"}, "digest": {"instant"}, "_back": {"/alerts"}}, true)
	if st != formFailed {
		t.Fatalf("bad alert edit: %d", st)
	}
	if n := strings.Count(body, "<details open>"); n != 1 {
		t.Errorf("%d edit panels open, want 1", n)
	}
	must(t, body, `id="al-n-`+a.ID+`-err"`, `aria-invalid="true" aria-describedby="al-n-`+a.ID+`-err"`, `value="bad"`, `value="55"`)
	// Then the target's error, next to the target.
	_, body, _ = c.post("/a/update_alert", url.Values{"_form": {k}, "id": {a.ID}, "name": {"Renamed"}, "channel": {"email"}, "target": {"bad"}, "_back": {"/alerts"}}, true)
	must(t, body, `id="al-t-`+a.ID+`-err"`, `value="Renamed"`)
	if got, _ := e.st.ListAlerts(ctx, e.proj.ID, false); got[0].Name != a.Name || got[0].Target != "ops@example.com" {
		t.Errorf("alert changed: %+v", got[0])
	}

	// A webhook with a bad URL: same.
	if st, _, _ := c.post("/a/create_webhook", url.Values{"url": {"https://hooks.example/x"}, "events": {"mention.created"}, "_back": {"/webhooks"}}, true); st != http.StatusOK {
		t.Fatalf("create webhook: %d", st)
	}
	whs, _ := e.st.ListWebhooks(ctx, e.proj.ID)
	wh := whs[0]
	st, body, _ = c.post("/a/update_webhook", url.Values{"_form": {"update_webhook:" + wh.ID}, "id": {wh.ID}, "url": {"ftp://typed.example/hook"}, "events": {"mention.updated"}, "_back": {"/webhooks"}}, true)
	if st != formFailed {
		t.Fatalf("bad webhook edit: %d", st)
	}
	must(t, body, `<details class="edit" open>`, `value="ftp://typed.example/hook"`, `id="wh-url-`+wh.ID+`-err"`, `aria-describedby="wh-url-`+wh.ID+`-err"`)
	edit := body[strings.Index(body, `<details class="edit" open>`):]
	edit = edit[:strings.Index(edit, "</details>")]
	if strings.Contains(edit, `value="mention.created" checked`) || !strings.Contains(edit, `value="mention.updated" checked`) {
		t.Error("the typed events are not kept")
	}

	// A category label over 80 characters: the typed label stays.
	long := strings.Repeat("L", 81)
	st, body, _ = c.post("/a/update_category", url.Values{"_form": {"update_category:complaint"}, "id": {"complaint"}, "label": {long}, "description": {"typed"}, "_back": {"/categories"}}, true)
	if st != formFailed {
		t.Fatalf("long label: %d", st)
	}
	must(t, body, `value="`+long+`"`, `id="c-l-complaint-err"`, `aria-describedby="c-l-complaint-err"`, ">typed</textarea>")
	if strings.Count(body, `class="field-error"`) != 1 {
		t.Error("the error is shown on more than one category")
	}

	// Create forms and the inbox filters link their errors the same way.
	_, body, _ = c.post("/a/create_monitor", url.Values{"name": {strings.Repeat("n", 81)}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	must(t, body, `id="mf-name-err"`, `aria-invalid="true" aria-describedby="mf-name-err"`)
	_, body, _ = c.get("/?min_urgency=500")
	must(t, body, `id="f-minu-err"`, `aria-invalid="true" aria-describedby="f-minu-err"`)
}

// TestKeywordGroupRowEdit: a group's row keeps its cells aligned with the
// header (the controls belong to the row's form through form=) and a
// refused rename shows in that row with what was typed.
func TestKeywordGroupRowEdit(t *testing.T) {
	e, c := ownerClient(t, 1)
	c.post("/a/create_keyword_group", url.Values{"name": {"Acme"}, "_back": {"/groups"}}, true)
	gs, _ := e.st.ListKeywordGroups(context.Background(), e.proj.ID)
	g := gs[0]
	_, body, _ := c.get("/groups")
	must(t, body, `<form id="g-f-`+g.ID+`"`, `name="name" form="g-f-`+g.ID+`"`, `type="checkbox" name="is_own" value="true" form="g-f-`+g.ID+`"`, `class="share-bars"`, "0 relevant mentions in total")
	if st, _, _ := c.post("/a/update_keyword_group", url.Values{"_form": {"update_keyword_group:" + g.ID}, "id": {g.ID}, "name": {"Acme Inc"}, "is_own": {"false", "true"}, "_back": {"/groups"}}, true); st != http.StatusSeeOther {
		t.Fatalf("rename: %d", st)
	}
	st, body, _ := c.post("/a/update_keyword_group", url.Values{"_form": {"update_keyword_group:" + g.ID}, "id": {g.ID}, "name": {""}, "is_own": {"false"}, "_back": {"/groups"}}, true)
	if st != formFailed {
		t.Fatalf("blank group name: %d", st)
	}
	must(t, body, `id="g-n-`+g.ID+`-err"`, `aria-describedby="g-n-`+g.ID+`-err"`, `form="g-f-`+g.ID+`" maxlength="80" value=""`)
	if strings.Contains(body, `value="true" form="g-f-`+g.ID+`" checked`) {
		t.Error("the unticked own-brand box is shown ticked")
	}
	gs, _ = e.st.ListKeywordGroups(context.Background(), e.proj.ID)
	if gs[0].Name != "Acme Inc" || !gs[0].IsOwn {
		t.Errorf("group %+v", gs[0])
	}
}
