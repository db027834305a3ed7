package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/store"
)

// TestActionsNeedCSRF: every POST form endpoint refuses a request without the
// session's token, and a token of another session.
func TestActionsNeedCSRF(t *testing.T) {
	e, c := ownerClient(t, 1)
	for _, path := range []string{"/a/create_monitor", "/a/set_public_dashboard", "/a/create_api_key", "/switch", "/logout", "/ui/status", "/ui/preview"} {
		st, _, _ := c.post(path, url.Values{"name": {"x"}, "keywords": {"acme"}}, false)
		if st != http.StatusForbidden {
			t.Errorf("%s without token: %d", path, st)
		}
	}
	other := e.client()
	other.login("owner@example.com") // a second session of the same user
	c.csrf, other.csrf = other.csrf, c.csrf
	if st, _, _ := c.post("/a/create_monitor", url.Values{"name": {"x"}, "keywords": {"acme"}}, true); st != http.StatusForbidden {
		t.Errorf("another session's token: %d", st)
	}
	// A request from another origin is refused even with a valid token.
	req, _ := http.NewRequest("POST", e.http.URL+"/a/create_monitor", strings.NewReader(url.Values{"name": {"x"}, "keywords": {"acme"}, "_csrf": {other.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := other.c.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin: %v %d", err, resp.StatusCode)
	}
	// Unknown or read-only capabilities are not actions.
	other.get("/")
	if st, _, _ := other.post("/a/list_mentions", url.Values{}, true); st != http.StatusNotFound {
		t.Errorf("read capability as action: %d", st)
	}
}

func TestMonitorFormFlow(t *testing.T) {
	e, c := ownerClient(t, 5)
	// Validation error rendered inline next to the field Error.Param names,
	// with the typed values kept.
	st, body, _ := c.post("/a/create_monitor", url.Values{"name": {strings.Repeat("n", 81)}, "keywords": {"acme\nacme.example"}, "_back": {"/monitors/new"}}, true)
	if st != formFailed {
		t.Fatalf("long name: %d", st)
	}
	must(t, body, "Name can be at most 80 characters long.", "acme.example", `class="field-error"`)
	st, body, _ = c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}, "backfill_hours": {"5"}, "_back": {"/monitors/new"}}, true)
	if st != formFailed || !strings.Contains(body, "Backfill: choose one of") {
		t.Fatalf("bad backfill: %d", st)
	}
	st, body, _ = c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "_back": {"/monitors/new"}}, true)
	if st != formFailed || !strings.Contains(body, "keywords") {
		t.Fatalf("nothing to watch: %d", st)
	}
	st, _, h := c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme, acme.example"}, "exclude_keywords": {"jobs"},
		"sources": {"reddit", "hn"}, "query_mode": {"any"}, "backfill_hours": {"72"}, "scan_interval_minutes": {"30"}, "_back": {"/monitors/new"}}, true)
	if st != http.StatusSeeOther || h.Get("Location") != "/monitors" {
		t.Fatalf("create: %d %q", st, h.Get("Location"))
	}
	ms, err := e.st.ListMonitors(context.Background(), e.proj.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("monitors %v %d", err, len(ms))
	}
	m := ms[0]
	if strings.Join(m.Keywords, "|") != "acme|acme.example" || strings.Join(m.Sources, "|") != "reddit|hn" || m.BackfillHours != 72 || m.ScanIntervalMinutes != 30 {
		t.Fatalf("monitor %+v", m)
	}
	_, body, _ = c.get("/monitors")
	must(t, body, "Brand", "acme, acme.example", "Source health", "Pause")
	_, body, _ = c.get("/monitors/" + m.ID)
	must(t, body, "Edit Brand", "acme.example", `value="reddit" data-preview checked`)
	// Edit: clearing excludes sends an empty list.
	st, _, _ = c.post("/a/update_monitor", url.Values{"id": {m.ID}, "name": {"Brand 2"}, "keywords": {"acme"}, "exclude_keywords": {""}, "group_id": {""}, "_back": {"/monitors/" + m.ID}}, true)
	if st != http.StatusSeeOther {
		t.Fatalf("update: %d", st)
	}
	// Pause, then delete.
	c.post("/a/update_monitor", url.Values{"id": {m.ID}, "active": {"false"}, "_back": {"/monitors"}}, true)
	m2, _ := e.st.Monitor(context.Background(), e.proj.ID, m.ID)
	if m2.Name != "Brand 2" || len(m2.ExcludeKeywords) != 0 || m2.Active {
		t.Fatalf("after update %+v", m2)
	}
	_, body, _ = c.get("/monitors")
	must(t, body, "Resume", "Paused")
	if st, _, _ := c.post("/a/delete_monitor", url.Values{"id": {m.ID}, "_back": {"/monitors"}}, true); st != http.StatusSeeOther {
		t.Fatalf("delete: %d", st)
	}
	// Preview endpoint: the capability over the stored mentions.
	st, body, _ = c.post("/ui/preview", url.Values{"keywords": {"number 3"}, "query_mode": {"phrase"}}, true)
	if st != 200 || !strings.Contains(body, `"matched":1`) {
		t.Fatalf("preview %d %s", st, body)
	}
	st, body, _ = c.post("/ui/preview", url.Values{"keywords": {""}}, true)
	if st != 400 || !strings.Contains(body, "keywords") {
		t.Fatalf("empty preview %d %s", st, body)
	}
}

func TestSecretsShownOnce(t *testing.T) {
	e, c := ownerClient(t, 1)
	// API key with scope checkboxes.
	st, body, _ := c.post("/a/create_api_key", url.Values{"name": {"ci"}, "scopes": {"mentions:read", "monitors:read"}, "_back": {"/keys"}}, true)
	if st != 200 || !strings.Contains(body, "esk_") || !strings.Contains(body, "shown only once") {
		t.Fatalf("create key: %d", st)
	}
	key := regexpFind(body, `<code id="new-key">([^<]+)</code>`)
	req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/mentions", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("new key does not work: %v", err)
	}
	_, body, _ = c.get("/keys")
	if strings.Contains(body, key) || !strings.Contains(body, "mentions:read, monitors:read") {
		t.Error("key list shows the key or misses its scopes")
	}
	// Webhook secret.
	st, body, _ = c.post("/a/create_webhook", url.Values{"url": {"https://hooks.example/x"}, "events": {"mention.created", "mention.updated"}, "_back": {"/webhooks"}}, true)
	if st != 200 || !strings.Contains(body, "whsec_") {
		t.Fatalf("create webhook: %d", st)
	}
	_, body, _ = c.get("/webhooks")
	if strings.Contains(body, "whsec_") || !strings.Contains(body, "mention.created, mention.updated") {
		t.Error("webhook list shows a secret or misses events")
	}
	id := regexpFind(body, `href="/webhooks/([0-9a-f-]{36})"`)
	if st, body, _ := c.get("/webhooks/" + id); st != 200 || !strings.Contains(body, "No deliveries yet") {
		t.Errorf("deliveries page %d", st)
	}
	if st, body, _ := c.post("/a/rotate_webhook_secret", url.Values{"id": {id}, "_back": {"/webhooks"}}, true); st != 200 || !strings.Contains(body, "whsec_") {
		t.Errorf("rotate %d", st)
	}
	// Edit a webhook's URL and events.
	if !strings.Contains(body, `action="/a/update_webhook" class="stack"`) {
		_, body, _ = c.get("/webhooks")
	}
	if !strings.Contains(body, `action="/a/update_webhook" class="stack"`) {
		t.Errorf("the webhooks page has no edit form")
	}
	if st, b, _ := c.post("/a/update_webhook", url.Values{"id": {id}, "url": {"https://hooks.example/y"}, "events": {"monitor.scan_failed"}, "_back": {"/webhooks"}}, true); st != http.StatusSeeOther {
		t.Fatalf("edit webhook %d %s", st, b)
	}
	if w, err := e.st.Webhook(context.Background(), e.proj.ID, id); err != nil || w.URL != "https://hooks.example/y" || strings.Join(w.Events, ",") != "monitor.scan_failed" {
		t.Fatalf("webhook after edit: %+v %v", w, err)
	}
	// Bad webhook URL: inline error.
	st, body, _ = c.post("/a/create_webhook", url.Values{"url": {"ftp://x"}, "_back": {"/webhooks"}}, true)
	if st != formFailed || !strings.Contains(body, `class="field-error"`) {
		t.Errorf("bad webhook url %d", st)
	}
	// Invite: the one-time link shown once; the invitee chooses a password
	// and accepts; then role change and removal.
	st, body, _ = c.post("/a/invite_member", url.Values{"email": {"ed@example.com"}, "role": {"editor"}, "_back": {"/members"}}, true)
	if st != 200 || !strings.Contains(body, "one-time link") {
		t.Fatalf("invite %d", st)
	}
	link := regexpFind(body, `shown only once[^<]*</p><code id="new-secret">([^<]+)</code>`)
	token := link[strings.LastIndex(link, "/")+1:]
	if err := e.svc.SignUpWithInvitation(context.Background(), token, "ed-password-1", "Ed"); err != nil {
		t.Fatalf("sign-up with the link: %v", err)
	}
	login, err := e.svc.Login(context.Background(), "ed@example.com", "ed-password-1", "")
	if err != nil {
		t.Fatalf("the chosen password does not log in: %v", err)
	}
	sess, _ := e.st.SessionByToken(context.Background(), login.Token, time.Time{})
	ed := &capability.Principal{Kind: capability.KindSession, UserID: sess.UserID, SessionID: sess.ID}
	acc, _ := e.svc.Capability("accept_invitation")
	if o := e.svc.Execute(context.Background(), acc, ed, &capability.AcceptInvitationIn{Token: token}, ""); o.Err != nil {
		t.Fatalf("accept: %v", o.Err)
	}
	u, _ := e.st.UserByEmail(context.Background(), "ed@example.com")
	c.post("/a/update_project_member", url.Values{"id": {u.ID}, "role": {"viewer"}, "_back": {"/members"}}, true)
	if role, _ := e.st.Membership(context.Background(), e.proj.ID, u.ID); role != "viewer" {
		t.Errorf("role %s", role)
	}
	c.post("/a/remove_project_member", url.Values{"id": {u.ID}, "_back": {"/members"}}, true)
	if _, err := e.st.Membership(context.Background(), e.proj.ID, u.ID); err == nil {
		t.Error("member not removed")
	}
}

func TestSettingsAlertsGroupsCategories(t *testing.T) {
	e, c := ownerClient(t, 3)
	ctx := context.Background()
	// Alerts with filters.
	st, _, _ := c.post("/a/create_alert", url.Values{"name": {"Urgent"}, "channel": {"email"}, "target": {"ops@example.com"}, "min_urgency": {"80"},
		"digest": {"hourly"}, "filters.category": {"bug_report"}, "filters.source": {""}, "_back": {"/alerts"}}, true)
	if st != 200 {
		t.Fatalf("create alert %d", st)
	}
	_, body, _ := c.get("/alerts")
	must(t, body, "Urgent", "ops@example.com", "Category: Bug report", "Hourly digest")
	// Edit the alert's channel, target and filters.
	as, _ := e.st.ListAlerts(context.Background(), e.proj.ID, false)
	st, b, _ := c.post("/a/update_alert", url.Values{"id": {as[0].ID}, "name": {"Urgent"}, "min_urgency": {"75"}, "channel": {"slack"},
		"target": {"https://hooks.slack.example/T1"}, "digest": {"instant"}, "filters.category": {""}, "filters.sentiment": {"negative"},
		"filters.source": {"x"}, "filters.search": {"outage"}, "_back": {"/alerts"}}, true)
	if st != http.StatusSeeOther {
		t.Fatalf("edit alert %d %s", st, b)
	}
	a, _ := e.st.Alert(context.Background(), e.proj.ID, as[0].ID)
	if a.Channel != "slack" || a.MinUrgency != 75 || !strings.Contains(string(a.Filters), `"sentiment":"negative"`) || strings.Contains(string(a.Filters), "bug_report") {
		t.Fatalf("alert after edit: %+v %s", a, a.Filters)
	}
	_, body, _ = c.get("/alerts")
	must(t, body, `<option value="negative" selected>`, `value="outage"`)
	st, body, _ = c.post("/a/create_alert", url.Values{"name": {"Bad"}, "channel": {"email"}, "target": {"nope"}, "_back": {"/alerts"}}, true)
	if st != formFailed || !strings.Contains(body, "Target must be an email address") {
		t.Errorf("bad alert %d", st)
	}
	// Keyword groups and the share-of-voice chart.
	c.post("/a/create_keyword_group", url.Values{"name": {"Acme"}, "is_own": {"true"}, "_back": {"/groups"}}, true)
	c.post("/a/create_keyword_group", url.Values{"name": {"Globex"}, "_back": {"/groups"}}, true)
	gs, _ := e.st.ListKeywordGroups(ctx, e.proj.ID)
	c.post("/a/create_monitor", url.Values{"name": {"Own"}, "keywords": {"acme"}, "group_id": {gs[0].ID}, "_back": {"/monitors/new"}}, true)
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	if _, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{{Source: "x", ExternalID: "g1", URL: "https://x.example/1", AuthorHandle: "a",
		Text: "acme rocks", PublishedAt: time.Now().Add(-time.Hour), MonitorIDs: []string{ms[0].ID}, IsRelevant: true, Category: "testimonial", Sentiment: "positive"}}); err != nil {
		t.Fatal(err)
	}
	_, body, _ = c.get("/groups")
	must(t, body, "Acme", "Globex", "own brand", "100% positive · 0% neutral · 0% negative", "<svg", "<title id=\"sov-w-t\">", "<desc id=\"sov-n-d\">")
	// Categories: relabel, disable, enable.
	c.post("/a/update_category", url.Values{"id": {"complaint"}, "label": {"Gripes"}, "description": {"Unhappy posts"}, "_back": {"/categories"}}, true)
	c.post("/a/delete_category", url.Values{"id": {"complaint"}, "_back": {"/categories"}}, true)
	_, body, _ = c.get("/categories")
	must(t, body, "Gripes", "Unhappy posts", "Disabled", "Enable")
	// Account name (a user-level capability).
	c.post("/a/update_account", url.Values{"full_name": {"Olivia"}, "_back": {"/account"}}, true)
	if u, _ := e.st.UserByID(ctx, e.owner.ID); u.FullName != "Olivia" {
		t.Errorf("name %q", u.FullName)
	}
	// Project settings; delete needs the typed name.
	c.post("/a/update_project", url.Values{"id": {e.proj.ID}, "name": {"Acme"}, "website": {""}, "description": {"Widgets"}, "_back": {"/settings"}}, true)
	st, body, _ = c.post("/a/delete_project", url.Values{"id": {e.proj.ID}, "confirm_deletion": {"true"}, "confirmation_name": {"acme"}, "_back": {"/settings"}}, true)
	if st != formFailed || !strings.Contains(body, "must equal") {
		t.Fatalf("delete with wrong name: %d", st)
	}
	st, _, _ = c.post("/a/delete_project", url.Values{"id": {e.proj.ID}, "confirm_deletion": {"true"}, "confirmation_name": {"Acme"}, "_back": {"/settings"}}, true)
	if st != http.StatusSeeOther {
		t.Fatalf("delete: %d", st)
	}
	_, body, _ = c.get("/settings")
	must(t, body, "archived", "Widgets", "This project is archived", "Acme (archived)</option>")
	// Writes to an archived project show the capability's 409.
	st, body, _ = c.post("/a/create_keyword_group", url.Values{"name": {"Late"}, "_back": {"/groups"}}, true)
	if st != formFailed || !strings.Contains(body, "archived") {
		t.Errorf("write to archived: %d", st)
	}
	_, body, _ = c.get("/usage")
	must(t, body, "Mentions used", `<meter id="quota"`)
}

func TestProjectSwitcher(t *testing.T) {
	e := newEnv(t)
	e.seed(2)
	ctx := context.Background()
	p2, _ := e.st.CreateProject(ctx, e.owner.ID, "Second", nil)
	stranger, _ := e.svc.CreateUser(ctx, "s@example.com", "correct-horse-42", "")
	p3, _ := e.st.CreateProject(ctx, stranger.ID, "Theirs", nil)
	c := e.client()
	c.login("owner@example.com")
	_, body, _ := c.get("/")
	must(t, body, "Acme", "Second", `id="project-switch"`)
	if st, _, _ := c.post("/switch", url.Values{"project": {p3.ID}}, true); st != http.StatusNotFound {
		t.Errorf("switch to a stranger's project: %d", st)
	}
	if st, _, _ := c.post("/switch", url.Values{"project": {p2.ID}}, true); st != http.StatusSeeOther {
		t.Errorf("switch: %d", st)
	}
	_, body, _ = c.get("/")
	if strings.Contains(body, "Acme post seed") {
		t.Error("still showing the first project's mentions")
	}
	must(t, body, "No mentions yet")
	// A forged project cookie falls back to a project of the user.
	u, _ := url.Parse(e.http.URL)
	c.c.Jar.SetCookies(u, []*http.Cookie{{Name: "earshot_project", Value: p3.ID, Path: "/"}})
	_, body, _ = c.get("/")
	if strings.Contains(body, "Theirs") && strings.Contains(body, `selected>Theirs`) {
		t.Error("forged project cookie honoured")
	}
}

// The members page lists pending invitations to owners, who can withdraw
// one there (its link then stops working).
func TestMembersPagePendingInvitations(t *testing.T) {
	e, c := ownerClient(t, 1)
	st, body, _ := c.post("/a/invite_member", url.Values{"email": {"pat@example.com"}, "role": {"viewer"}, "_back": {"/members"}}, true)
	if st != 200 || !strings.Contains(body, "one-time link") {
		t.Fatalf("invite %d", st)
	}
	link := regexpFind(body, `shown only once[^<]*</p><code id="new-secret">([^<]+)</code>`)
	token := link[strings.LastIndex(link, "/")+1:]
	_, body, _ = c.get("/members")
	must(t, body, "Pending invitations", "pat@example.com", `action="/a/revoke_invitation"`)
	id := regexpFind(body, `action="/a/revoke_invitation"[^>]*>.*?name="id" value="([^"]+)"`)
	if st, b, _ := c.post("/a/revoke_invitation", url.Values{"id": {id}, "_back": {"/members"}}, true); st != 200 && st != http.StatusSeeOther {
		t.Fatalf("withdraw %d %s", st, b)
	}
	_, body, _ = c.get("/members")
	if strings.Contains(body, "Pending invitations") {
		t.Error("a withdrawn invitation is still listed")
	}
	if err := e.svc.SignUpWithInvitation(context.Background(), token, "pat-password-1", "Pat"); err == nil {
		t.Error("a withdrawn invitation's link still signs up")
	}
}
