package ui_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/store"
)

func TestFirstRunSetup(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	st, _, h := c.get("/")
	if st != http.StatusSeeOther || h.Get("Location") != "/setup" {
		t.Fatalf("/ without users: %d %q", st, h.Get("Location"))
	}
	token, err := e.svc.SetupToken(context.Background())
	if err != nil || len(token) < 32 {
		t.Fatalf("setup token %q (%v): want 128 bits or more", token, err)
	}
	// Without the token (serve prints it in its log) the page asks for it
	// and shows no account form; a wrong one is refused.
	st, body, _ := c.get("/setup")
	if st != 200 || strings.Contains(body, `name="project_name"`) {
		t.Fatalf("setup without token: %d", st)
	}
	must(t, body, "Welcome to Earshot", `name="token"`, "setup?token=", `lang="en"`)
	st, body, _ = c.get("/setup?token=" + strings.Repeat("0", 32))
	if st != http.StatusForbidden || strings.Contains(body, `name="project_name"`) {
		t.Fatalf("setup with a wrong token: %d", st)
	}
	form := func(token string) url.Values {
		return url.Values{"email": {"o@example.com"}, "password": {"correct-horse-42"}, "project_name": {"Acme"}, "token": {token}}
	}
	// A visitor without the token can still pass the CSRF check (the
	// double-submit cookie is theirs): the token is what refuses them.
	u, _ := url.Parse(e.http.URL)
	for _, ck := range c.c.Jar.Cookies(u) {
		if ck.Name == "earshot_precsrf" {
			c.csrf = ck.Value
		}
	}
	for _, bad := range []string{"", strings.Repeat("0", 32), token[:len(token)-1]} {
		if st, body, _ := c.post("/setup", form(bad), true); st != http.StatusForbidden || !strings.Contains(body, "setup token") {
			t.Fatalf("POST /setup with token %q: %d", bad, st)
		}
	}
	if open, _ := e.svc.SetupOpen(context.Background()); !open {
		t.Fatal("a refused setup created a user")
	}
	st, body, _ = c.get("/setup?token=" + token)
	if st != 200 {
		t.Fatalf("setup %d", st)
	}
	must(t, body, "Welcome to Earshot", `name="project_name"`, `name="token" value="`+token+`"`)
	// Validation error shown next to its field.
	bad := form(token)
	bad.Set("email", "not-an-email")
	st, body, _ = c.post("/setup", bad, true)
	if st != 400 {
		t.Fatalf("bad email: %d", st)
	}
	must(t, body, `class="field-error"`, "email must be an email address")
	// The password rules apply at setup too (issue 25): padding a common
	// password with spaces does not make it 12 characters.
	weak := form(token)
	weak.Set("password", "password    ")
	if st, body, _ = c.post("/setup", weak, true); st != 400 {
		t.Fatalf("padded password at setup: %d", st)
	}
	must(t, body, `class="field-error"`, "password must be at least 12 characters")
	// Without the CSRF token: refused.
	st, _, _ = c.post("/setup", form(token), false)
	if st != http.StatusForbidden {
		t.Fatalf("setup without csrf: %d", st)
	}
	st, _, _ = c.post("/setup", form(token), true)
	if st != http.StatusSeeOther {
		t.Fatalf("setup: %d", st)
	}
	st, body, _ = c.get("/monitors/new")
	if st != 200 {
		t.Fatalf("after setup: %d", st)
	}
	must(t, body, "New monitor", "Acme")
	// Setup is gone once a user exists, token or not.
	for _, p := range []string{"/setup", "/setup?token=" + token} {
		st, _, h = e.client().get(p)
		if st != http.StatusSeeOther || h.Get("Location") != "/login" {
			t.Fatalf("%s with a user: %d %q", p, st, h.Get("Location"))
		}
	}
	c2 := e.client()
	c2.get("/login")
	second := form(token)
	second.Set("email", "second@example.com")
	if st, _, h := c2.post("/setup", second, true); st != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Fatalf("POST /setup with the token after setup: %d %q", st, h.Get("Location"))
	}
	if _, err := e.st.UserByEmail(context.Background(), "second@example.com"); err == nil {
		t.Fatal("the token created a second owner after setup")
	}
}

func TestAuthRedirects(t *testing.T) {
	e := newEnv(t)
	e.seed(3)
	c := e.client()
	for _, p := range []string{"/", "/inbox", "/monitors", "/monitors/new", "/groups", "/alerts", "/webhooks", "/categories", "/members", "/keys", "/account", "/usage", "/settings", "/wall", "/?overview=1"} {
		st, _, h := c.get(p)
		if st != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
			t.Errorf("%s logged out: %d %q", p, st, h.Get("Location"))
		}
	}
	st, body, _ := c.get("/ui/mentions")
	if st != 401 || !strings.Contains(body, "UNAUTHORIZED") {
		t.Errorf("ui endpoint logged out: %d %s", st, body)
	}
	if st, _, _ := c.get("/ui/overview"); st != 401 {
		t.Errorf("overview fragment logged out: %d", st)
	}
	if st, _, h := c.get("/export.csv"); st != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Errorf("export logged out: %d %q", st, h.Get("Location"))
	}
	// Wrong password: inline error, no cookie.
	c.get("/login")
	st, body, _ = c.post("/login", url.Values{"email": {"owner@example.com"}, "password": {"nope-nope"}}, true)
	if st != 401 {
		t.Fatalf("bad password: %d", st)
	}
	must(t, body, "wrong email or password")
	// Login without the pre-session token is refused.
	st, _, _ = e.client().post("/login", url.Values{"email": {"owner@example.com"}, "password": {"correct-horse-42"}}, false)
	if st != http.StatusForbidden {
		t.Fatalf("login without csrf: %d", st)
	}
}

func TestLoginCookieAndLogout(t *testing.T) {
	e := newEnv(t)
	e.seed(1)
	c := e.client()
	c.get("/login")
	c.csrf = csrfFromJar(t, c)
	resp, err := c.c.PostForm(e.http.URL+"/login", url.Values{"email": {"owner@example.com"}, "password": {"correct-horse-42"}, "_csrf": {c.csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var sc *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "earshot_session" {
			sc = ck
		}
	}
	if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteLaxMode || sc.Path != "/" || sc.Secure {
		t.Fatalf("session cookie %+v", sc)
	}
	// The cookie's token is the same session credential REST accepts.
	req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/projects", nil)
	req.Header.Set("Authorization", "Bearer "+sc.Value)
	r2, err := http.DefaultClient.Do(req)
	if err != nil || r2.StatusCode != 200 {
		t.Fatalf("REST with the cookie token: %v %d", err, r2.StatusCode)
	}
	c.get("/")
	if st, _, _ := c.post("/logout", url.Values{}, false); st != http.StatusForbidden {
		t.Fatalf("logout without csrf: %d", st)
	}
	if st, _, h := c.post("/logout", url.Values{}, true); st != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Fatalf("logout: %d", st)
	}
	if st, _, _ := c.get("/"); st != http.StatusSeeOther {
		t.Fatalf("after logout: %d", st)
	}
	if _, err := e.st.SessionByToken(context.Background(), sc.Value, time.Time{}); err == nil {
		t.Fatal("session still valid after logout")
	}
}

func csrfFromJar(t *testing.T, c *client) string {
	u, _ := url.Parse(c.e.http.URL)
	for _, ck := range c.c.Jar.Cookies(u) {
		if ck.Name == "earshot_precsrf" {
			return ck.Value
		}
	}
	t.Fatal("no pre-session csrf cookie")
	return ""
}

func TestEveryPageRenders(t *testing.T) {
	_, c := ownerClient(t, 5)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/", []string{"Inbox", "Acme post seed number 0", `<time datetime=`, "Urgency", "Keyboard shortcuts", `class="skip"`, "Summary seed", "https://reddit.example/seed/0"}},
		{"/inbox?status=new&min_urgency=1", []string{"Inbox", "2 active"}},
		{"/monitors", []string{"Monitors", "New monitor"}},
		{"/monitors/new", []string{"New monitor", `name="keywords"`, `name="backfill_hours"`, "Preview"}},
		{"/groups", []string{"Share of voice", "Create a keyword group"}},
		{"/alerts", []string{"Alerts", `name="channel"`}},
		{"/webhooks", []string{"Webhooks", `name="url"`}},
		{"/categories", []string{"Categories", "Testimonial"}},
		{"/members", []string{"Members", "owner@example.com"}},
		{"/keys", []string{"API keys", "mentions:write"}},
		{"/account", []string{"Account", "Olive Owner"}},
		{"/usage", []string{"Usage", "Mentions used"}},
		{"/settings", []string{"Project settings", "Public page", "Archive"}},
		{"/projects/new", []string{"New project"}},
	} {
		st, body, h := c.get(tc.path)
		if st != 200 {
			t.Errorf("%s: %d", tc.path, st)
			continue
		}
		if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Errorf("%s content type %q", tc.path, h.Get("Content-Type"))
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", tc.path, w)
			}
		}
	}
	if st, body, _ := c.get("/static/app.js"); st != 200 || !strings.Contains(body, "keydown") {
		t.Errorf("static js %d", st)
	}
	if st, _, _ := c.get("/monitors/00000000-0000-0000-0000-000000000000"); st != 404 {
		t.Errorf("unknown monitor: %d", st)
	}
	// API routes are untouched.
	if st, _, _ := c.get("/healthz"); st != 200 {
		t.Errorf("healthz %d", st)
	}
}

func TestInboxFiltersValidation(t *testing.T) {
	_, c := ownerClient(t, 3)
	st, body, _ := c.get("/?min_urgency=500")
	if st != 200 {
		t.Fatalf("bad filter %d", st)
	}
	must(t, body, `class="field-error"`, "Minimum urgency must be 100 or less.")
	// Every filter's error at once, each next to its control.
	_, body, _ = c.get("/?min_urgency=500&since=garbage&status=nope")
	must(t, body, "Minimum urgency must be 100 or less.", "Published since must be a date like", "Status: choose one of New, Reviewed, Done, Ignored.", `id="f-since"`)
	if n := strings.Count(body, `class="field-error"`); n != 3 {
		t.Errorf("%d field errors, want 3", n)
	}
	_, body, _ = c.get("/?search=%22number+2%22") // a phrase (package search)
	if !strings.Contains(body, "Acme post seed <mark>number 2</mark>") || strings.Contains(body, "Acme post seed number 1<") {
		t.Error("search filter not applied")
	}
}

func TestTriageStatusEndpoint(t *testing.T) {
	e := newEnv(t)
	e.seed(3)
	ms, _ := e.st.ListMentions(context.Background(), store.MentionFilter{ProjectID: e.proj.ID}, nil, 10)
	c := e.client()
	c.login("owner@example.com")
	// Without the token: 403 and nothing changes.
	st, _, _ := c.post("/ui/status", url.Values{"id": {ms[0].ID}, "status": {"done"}}, false)
	if st != http.StatusForbidden {
		t.Fatalf("status without csrf: %d", st)
	}
	// A cross-site request is refused even with the token.
	req, _ := http.NewRequest("POST", e.http.URL+"/ui/status", strings.NewReader(url.Values{"id": {ms[0].ID}, "status": {"done"}, "_csrf": {c.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := c.c.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site: %v %d", err, resp.StatusCode)
	}
	st, body, _ := c.post("/ui/status", url.Values{"id": {ms[0].ID, ms[1].ID}, "status": {"done"}}, true)
	if st != 200 {
		t.Fatalf("status: %d %s", st, body)
	}
	var out struct {
		Rows map[string]string `json:"rows"`
	}
	json.Unmarshal([]byte(body), &out)
	if len(out.Rows) != 2 || !strings.Contains(out.Rows[ms[0].ID], "status-done") {
		t.Fatalf("rows %v", out.Rows)
	}
	m, _ := e.st.Mention(context.Background(), e.proj.ID, ms[1].ID)
	if m.Status != "done" {
		t.Fatalf("status %s", m.Status)
	}
	// Validation comes from the capability.
	st, body, _ = c.post("/ui/status", url.Values{"id": {ms[0].ID}, "status": {"archived"}}, true)
	if st != 400 || !strings.Contains(body, "status must be one of") {
		t.Fatalf("bad status: %d %s", st, body)
	}
	// No-JS fallback: the form posts to the generic action and redirects back.
	st, _, h := c.post("/a/update_mention_status", url.Values{"id": {ms[2].ID}, "status": {"ignored"}, "_back": {"/?status=new"}}, true)
	if st != http.StatusSeeOther || h.Get("Location") != "/?status=new" {
		t.Fatalf("form fallback %d %q", st, h.Get("Location"))
	}
	// An open redirect is not possible through _back.
	_, _, h = c.post("/a/update_mention_status", url.Values{"id": {ms[2].ID}, "status": {"new"}, "_back": {"//evil.example/"}}, true)
	if h.Get("Location") != "/" {
		t.Fatalf("_back to another host: %q", h.Get("Location"))
	}
}

func TestInfiniteScrollAndPoll(t *testing.T) {
	e, c := ownerClient(t, 60)
	_, body, _ := c.get("/")
	next := regexpFind(body, `data-next="([^"]+)"`)
	from := regexpFind(body, `data-poll-from="([^"]+)"`)
	if next == "" || from == "" {
		t.Fatal("no cursor or poll start on the page")
	}
	st, body, _ := c.get("/ui/mentions?cursor=" + url.QueryEscape(next))
	if st != 200 {
		t.Fatalf("more: %d %s", st, body)
	}
	var page struct {
		HTML    string `json:"html"`
		Count   int    `json:"count"`
		HasMore bool   `json:"hasMore"`
	}
	json.Unmarshal([]byte(body), &page)
	if page.Count != 10 || page.HasMore || !strings.Contains(page.HTML, "Acme post seed number 59") {
		t.Fatalf("page 2: count %d more %v", page.Count, page.HasMore)
	}
	// A cursor of other filters is refused by list_mentions.
	if st, _, _ := c.get("/ui/mentions?status=new&cursor=" + url.QueryEscape(next)); st != 400 {
		t.Fatalf("foreign cursor: %d", st)
	}
	e.ingest(2, "late")
	st, body, _ = c.get("/ui/poll?after=" + url.QueryEscape(from))
	var poll struct {
		Count int      `json:"count"`
		IDs   []string `json:"ids"`
		HTML  string   `json:"html"`
		Since string   `json:"after"`
	}
	json.Unmarshal([]byte(body), &poll)
	if st != 200 || poll.Count != 2 || !strings.Contains(poll.HTML, "late number 0") || poll.Since <= from {
		t.Fatalf("poll: %d %+v", st, poll)
	}
}

func TestViewerIsReadOnly(t *testing.T) {
	e := newEnv(t)
	e.seed(3)
	ctx := context.Background()
	v, err := e.svc.CreateUser(ctx, "viewer@example.com", "correct-horse-42", "Vic Viewer")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddMember(ctx, e.proj.ID, v.ID, "viewer"); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	c.login("viewer@example.com")
	_, body, _ := c.get("/")
	if strings.Contains(body, "st-btn") || strings.Contains(body, `id="bulk"`) {
		t.Error("viewer sees triage buttons")
	}
	must(t, body, "Acme post seed number 0", "Viewer")
	_, body, _ = c.get("/monitors")
	if strings.Contains(body, "New monitor") {
		t.Error("viewer sees New monitor")
	}
	// No link to a page the role cannot open, and no form that looks editable.
	if strings.Contains(body, `href="/webhooks"`) {
		t.Error("viewer's navigation links to Webhooks (a 403)")
	}
	st, body, _ := c.get("/monitors/new")
	if st != http.StatusForbidden || strings.Contains(body, `name="keywords"`) {
		t.Errorf("viewer's /monitors/new: %d, form shown %v", st, strings.Contains(body, `name="keywords"`))
	}
	owner := e.client()
	owner.login("owner@example.com")
	owner.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	mons, _ := e.st.ListMonitors(ctx, e.proj.ID)
	if len(mons) == 1 {
		_, body, _ = c.get("/monitors/" + mons[0].ID)
		must(t, body, `<fieldset class="plain" disabled>`, "can view this monitor but not change it")
		if strings.Contains(body, "Save changes") {
			t.Error("viewer sees Save changes")
		}
	} else {
		t.Error("no monitor to view")
	}
	ms, _ := e.st.ListMentions(ctx, store.MentionFilter{ProjectID: e.proj.ID}, nil, 1)
	st, body, _ = c.post("/ui/status", url.Values{"id": {ms[0].ID}, "status": {"done"}}, true)
	if st != http.StatusForbidden || !strings.Contains(body, "mentions:write") {
		t.Fatalf("viewer triage: %d %s", st, body)
	}
	// The generic form binding shows the capability's 403 on the page.
	st, body, _ = c.post("/a/create_monitor", url.Values{"name": {"X"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	if st != http.StatusForbidden || !strings.Contains(body, "lacks the monitors:write scope") {
		t.Fatalf("viewer create monitor: %d", st)
	}
}

func TestPublicPage(t *testing.T) {
	e := newEnv(t)
	e.seed(6)
	anon := e.client()
	path := "/p/" + e.proj.Slug
	if st, _, _ := anon.get(path); st != 404 {
		t.Fatalf("disabled public page: %d", st)
	}
	if st, _, _ := anon.get("/p/no-such-slug"); st != 404 {
		t.Fatalf("unknown slug: %d", st)
	}
	c := e.client()
	c.login("owner@example.com")
	st, body, _ := c.post("/a/set_public_dashboard", url.Values{"id": {e.proj.ID}, "enabled": {"true"}, "_back": {"/settings"}}, true)
	if st != http.StatusSeeOther {
		t.Fatalf("publish: %d %s", st, body)
	}
	_, body, _ = c.get("/settings")
	must(t, body, e.svc.PublicURL(e.proj.Slug))
	st, body, _ = anon.get(path)
	if st != 200 {
		t.Fatalf("public page: %d", st)
	}
	must(t, body, "Acme", "Wall of love", "Acme post seed number 0", "@user0")
	ms, _ := e.st.ListMentions(context.Background(), store.MentionFilter{ProjectID: e.proj.ID}, nil, 1)
	for _, leak := range []string{ms[0].ID, "Urgency", "urgency", "builtin", "Summary seed", "status"} {
		if strings.Contains(body, leak) {
			t.Errorf("public page leaks %q", leak)
		}
	}
	// Testimonials come first.
	if strings.Index(body, "number 0") > strings.Index(body, "number 1<") && strings.Contains(body, "number 1<") {
		t.Error("testimonial not first")
	}
	e.st.ArchiveProject(context.Background(), e.proj.ID)
	if st, _, _ := anon.get(path); st != 404 {
		t.Fatalf("archived public page: %d", st)
	}
}

func regexpFind(s, re string) string {
	m := regexpMust(re).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

var _ = capability.APIVersion

func TestNoJSLoadMoreAndNoExternalAssets(t *testing.T) {
	_, c := ownerClient(t, 55)
	_, body, _ := c.get("/")
	href := regexpFind(body, `id="load-more" href="([^"]+)"`)
	if href == "" {
		t.Fatal("no Load more link")
	}
	_, body2, _ := c.get(href)
	if !strings.Contains(body2, "Acme post seed number 54") || strings.Contains(body2, "Acme post seed number 0<") {
		t.Error("Load more link does not show the next page")
	}
	for _, re := range []string{`src="http`, `href="http[^"]*\.css`, `@import`, `fonts.googleapis`} {
		if regexpMust(re).MatchString(body) {
			t.Errorf("page references an external asset (%s)", re)
		}
	}
	_, css, _ := c.get("/static/app.css")
	if strings.Contains(css, "url(http") || strings.Contains(css, "@import") {
		t.Error("css loads external assets")
	}
}

func TestMentionPageFromAlertLink(t *testing.T) {
	e := newEnv(t)
	e.seed(0)
	ms := e.ingest(1, "alert")
	c := e.client()
	c.login("owner@example.com")
	st, body, _ := c.get("/mentions/" + ms[0].ID)
	if st != http.StatusOK || !strings.Contains(body, ms[0].Text) {
		t.Fatalf("mention page: %d", st)
	}
	// Its own heading and a way back; not the inbox's heading, filters or views.
	must(t, body, "<h1>Reddit post by @user0</h1>", `← Inbox</a>`, `class="btn-small st-btn"`, "Classification", "More from @user0")
	for _, inbox := range []string{"<h1>Inbox</h1>", `class="filters"`, "All mentions", `id="f-search"`, `class="sel"`} {
		if strings.Contains(body, inbox) {
			t.Errorf("mention page shows the inbox's %q", inbox)
		}
	}
	if st, _, _ := c.get("/mentions/00000000-0000-4000-8000-000000000000"); st != http.StatusNotFound {
		t.Fatalf("unknown mention: %d", st)
	}
}
