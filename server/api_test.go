package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
	"earshot/server"
	"earshot/store/storetest"
	"earshot/vocab"
)

func hasKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("%s: missing %q in %v", what, k, m)
		}
	}
}

func TestEnvelopeAndHeaders(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/api/v1/monitors", e.keyA, nil).ok()
	meta := r.body["meta"].(map[string]any)
	if meta["capability"] != "list_monitors" || meta["idempotencyReplayed"] != false {
		t.Fatalf("meta %v", meta)
	}
	id := meta["requestId"].(string)
	if !strings.HasPrefix(id, "req_") || r.header.Get("X-Request-Id") != id {
		t.Fatalf("request id %q / header %q", id, r.header.Get("X-Request-Id"))
	}
	if r.header.Get("Api-Version") != "2026-09-02" {
		t.Fatalf("Api-Version %q", r.header.Get("Api-Version"))
	}
	if !strings.HasSuffix(meta["docs"].(string), "/docs/reference/list_monitors") {
		t.Fatalf("docs %v", meta["docs"])
	}
	// errors carry the same headers and meta
	er := e.do("GET", "/api/v1/monitors/"+"00000000-0000-4000-8000-000000000000", e.keyA, nil).expect(404, "NOT_FOUND")
	em := er.body["meta"].(map[string]any)
	if em["requestId"] != er.header.Get("X-Request-Id") || er.header.Get("Api-Version") == "" || em["capability"] != "get_monitor" {
		t.Fatalf("error meta %v headers %v", em, er.header)
	}
	e.do("GET", "/api/v1/nope", e.keyA, nil).expect(404, "NOT_FOUND")
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/api/v1/monitors", "", nil).expect(401, "UNAUTHORIZED")
	if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("WWW-Authenticate %q", r.header.Get("WWW-Authenticate"))
	}
	e.do("GET", "/api/v1/monitors", "esk_nonsense", nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/api/v1/monitors", capability.NewAPIKey(), nil).expect(401, "UNAUTHORIZED") // well-formed, unknown
	e.do("GET", "/api/v1/monitors", "ess_unknownsession", nil).expect(401, "UNAUTHORIZED")
	// a key in the query string is not a credential
	e.do("GET", "/api/v1/monitors?api_key="+e.keyA, "", nil).expect(401, "UNAUTHORIZED")

	// revoked keys stop working on the next request
	k := e.mustKey(e.projA, nil)
	e.do("GET", "/api/v1/monitors", k, nil).ok()
	keys := e.do("GET", "/api/v1/keys", e.sessionA, nil).ok().data()["keys"].([]any)
	var id string
	for _, kk := range keys {
		m := kk.(map[string]any)
		if strings.HasSuffix(k, m["last4"].(string)) && strings.HasPrefix(k, m["prefix"].(string)) {
			id = m["id"].(string)
		}
		if _, leaked := m["hash"]; leaked {
			t.Fatal("key listing leaks the hash")
		}
	}
	e.do("DELETE", "/api/v1/keys/"+id, e.sessionA, nil).ok()
	e.do("GET", "/api/v1/monitors", k, nil).expect(401, "UNAUTHORIZED")

	// wrong password; logout ends the session
	e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com", "password": "wrong-password"}).expect(401, "UNAUTHORIZED")
	s := e.login("a@example.com")
	e.do("GET", "/api/v1/projects", s, nil).ok()
	e.do("DELETE", "/api/v1/auth/sessions/current", s, nil).ok()
	e.do("GET", "/api/v1/projects", s, nil).expect(401, "UNAUTHORIZED")
}

func TestSessionProjects(t *testing.T) {
	e := newEnv(t)
	// create_project: sessions only
	e.do("POST", "/api/v1/projects", e.keyA, map[string]any{"name": "Nope"}).expect(403, "FORBIDDEN")
	p2 := e.do("POST", "/api/v1/projects", e.sessionA, map[string]any{"name": "Second", "website": "https://second.example"}).ok().data()
	hasKeys(t, "create_project", p2, "id", "name", "slug", "plan")
	// Self-hosted: no quota unless the operator sets plans.
	if p2["plan"] != "unlimited" {
		t.Fatalf("plan %v", p2["plan"])
	}
	if u := e.do("GET", "/api/v1/usage", e.sessionA, nil, "Earshot-Project", p2["id"].(string)).ok().data(); u["unlimited"] != true || u["mentions_included"] != float64(0) {
		t.Fatalf("new project's usage %v", u)
	}
	// two projects: list shows both; project-scoped calls need the header
	ps := e.do("GET", "/api/v1/projects", e.sessionA, nil).ok().data()["projects"].([]any)
	if len(ps) != 2 {
		t.Fatalf("projects %v", ps)
	}
	e.do("GET", "/api/v1/monitors", e.sessionA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/monitors", e.sessionA, nil, "Earshot-Project", p2["id"].(string)).ok()
	// another user's project via the header: 404
	e.do("GET", "/api/v1/monitors", e.sessionA, nil, "Earshot-Project", e.projB.ID).expect(404, "NOT_FOUND")
	// an API key sees exactly its own project
	kp := e.do("GET", "/api/v1/projects", e.keyA, nil).ok().data()["projects"].([]any)
	if len(kp) != 1 || kp[0].(map[string]any)["id"] != e.projA.ID {
		t.Fatalf("key projects %v", kp)
	}
}

func TestProjectLifecycle(t *testing.T) {
	e := newEnv(t)
	base := "/api/v1/projects/" + e.projA.ID
	g := e.do("GET", base, e.keyA, nil).ok().data()
	hasKeys(t, "get_project", g, "id", "name", "plan", "mention_quota")
	if g["plan"] != "unlimited" || g["mention_quota"].(float64) != 0 {
		t.Fatalf("plan %v quota %v", g["plan"], g["mention_quota"])
	}
	u := e.do("PATCH", base, e.keyA, map[string]any{"description": "Project management", "website": nil}).ok().data()
	hasKeys(t, "update_project", u, "id", "name")
	pub := e.do("PATCH", base+"/public", e.keyA, map[string]any{"enabled": true}).ok().data()
	if pub["public_enabled"] != true || !strings.HasSuffix(pub["url"].(string), "/p/"+e.projA.Slug) {
		t.Fatalf("public %v", pub)
	}
	pub = e.do("PATCH", base+"/public", e.keyA, map[string]any{"enabled": false}).ok().data()
	if pub["url"] != nil {
		t.Fatalf("url should be null: %v", pub)
	}
	m := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "M", "keywords": []string{"acme"}}).ok().data()
	// delete_project: confirmation rules
	e.do("DELETE", base, e.keyA, map[string]any{"confirmation_name": "acme", "confirm_deletion": true}).expect(400, "VALIDATION_ERROR")
	e.do("DELETE", base, e.keyA, map[string]any{"confirmation_name": "Acme", "confirm_deletion": false}).expect(400, "VALIDATION_ERROR")
	e.do("DELETE", base, e.keyA, map[string]any{"confirmation_name": "Acme"}).expect(400, "VALIDATION_ERROR")
	d := e.do("DELETE", base, e.keyA, map[string]any{"confirmation_name": "Acme", "confirm_deletion": true}).ok().data()
	if d["archived"] != true || d["id"] != e.projA.ID {
		t.Fatalf("delete %v", d)
	}
	// archived: reads answer, writes 409, monitors paused
	mon := e.do("GET", "/api/v1/monitors/"+m["id"].(string), e.keyA, nil).ok().data()
	if mon["active"] != false {
		t.Fatalf("monitor still active after archive")
	}
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "M2", "keywords": []string{"x"}}).expect(409, "CONFLICT")
	e.do("GET", "/api/v1/usage", e.keyA, nil).ok()
}

func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	body := map[string]any{"name": "Brand", "keywords": []string{"acme"}}
	first := e.do("POST", "/api/v1/monitors", e.keyA, body, "Idempotency-Key", "key-00000001").ok()
	again := e.do("POST", "/api/v1/monitors", e.keyA, body, "Idempotency-Key", "key-00000001").ok()
	if again.body["meta"].(map[string]any)["idempotencyReplayed"] != true || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("not replayed: %s", again.raw)
	}
	if first.data()["id"] != again.data()["id"] {
		t.Fatalf("replay returned another monitor")
	}
	ms := e.do("GET", "/api/v1/monitors", e.keyA, nil).ok().data()["monitors"].([]any)
	if len(ms) != 1 {
		t.Fatalf("%d monitors after replay", len(ms))
	}
	// same key, other body → 409 reused
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Other", "keywords": []string{"x"}}, "Idempotency-Key", "key-00000001").
		expect(409, "IDEMPOTENCY_KEY_REUSED")
	// key length
	e.do("POST", "/api/v1/monitors", e.keyA, body, "Idempotency-Key", "short").expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/monitors", e.keyA, body, "Idempotency-Key", strings.Repeat("k", 129)).expect(400, "VALIDATION_ERROR")
	// a refused request (400) stores nothing: a corrected retry with the same key runs
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Bad"}, "Idempotency-Key", "key-00000002").expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Good", "keywords": []string{"y"}}, "Idempotency-Key", "key-00000002").ok()
	// keys are per project: B may use the same key string
	e.do("POST", "/api/v1/monitors", e.keyB, body, "Idempotency-Key", "key-00000001").ok()
	// a 404 is stored and replayed
	miss := "/api/v1/monitors/00000000-0000-4000-8000-000000000000"
	e.do("PATCH", miss, e.keyA, map[string]any{"name": "x"}, "Idempotency-Key", "key-00000003").expect(404, "NOT_FOUND")
	rp := e.do("PATCH", miss, e.keyA, map[string]any{"name": "x"}, "Idempotency-Key", "key-00000003").expect(404, "NOT_FOUND")
	if rp.header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("404 not replayed")
	}
}

func TestIdempotencyConcurrent(t *testing.T) {
	e := newEnv(t)
	body := map[string]any{"name": "Race", "keywords": []string{"acme"}}
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	codes := make([]string, 20)
	ids := make([]any, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do("POST", "/api/v1/monitors", e.keyA, body, "Idempotency-Key", "concurrent-key-1")
			statuses[i], codes[i], ids[i] = r.status, r.errCode(), r.data()["id"]
		}()
	}
	wg.Wait()
	ms := e.do("GET", "/api/v1/monitors", e.keyA, nil).ok().data()["monitors"].([]any)
	if len(ms) != 1 {
		t.Fatalf("%d monitors created by 20 concurrent requests with one key", len(ms))
	}
	for i := range 20 {
		switch {
		case statuses[i] == 200 && ids[i] == ms[0].(map[string]any)["id"]:
		case statuses[i] == 409 && codes[i] == "IDEMPOTENCY_KEY_IN_USE":
		default:
			t.Fatalf("request %d: %d %s", i, statuses[i], codes[i])
		}
	}
}

func TestLimitsAndErrors(t *testing.T) {
	e := newEnv(t, server.Options{RateLimit: 1, RateBurst: 3})
	big := `{"name":"` + strings.Repeat("a", 1<<20) + `"}`
	e.do("POST", "/api/v1/monitors", e.keyA, big).expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/monitors", e.keyA, `{"name":`).expect(400, "VALIDATION_ERROR")
	r := e.do("GET", "/api/v1/monitors", e.keyA, nil)
	for r.status != 429 {
		r = e.do("GET", "/api/v1/monitors", e.keyA, nil)
	}
	r.expect(429, "RATE_LIMITED")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	// another credential is not limited by the first
	e.do("GET", "/api/v1/monitors", e.keyB, nil).ok()

	// a panic becomes 500 INTERNAL without internals
	e.srv.Router.GET("/boom", func(http.ResponseWriter, *http.Request, httprouter.Params) { panic("secret internals") })
	p := e.do("GET", "/boom", "", nil).expect(500, "INTERNAL")
	if strings.Contains(string(p.raw), "secret") {
		t.Fatal("panic leaked internals")
	}
}

func TestMonitorsAndKeywords(t *testing.T) {
	e := newEnv(t)
	// keywords optional when something else is watched; otherwise 400
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Empty"}).expect(400, "VALIDATION_ERROR")
	feed := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Feed", "feed_urls": []string{"https://blog.example/rss"}}).ok().data()
	if feed["query_mode"] != "any" || feed["backfill_hours"].(float64) != 24 || feed["scan_interval_minutes"].(float64) != 15 || len(feed["sources"].([]any)) != len(vocab.Sources) {
		t.Fatalf("defaults %v", feed)
	}
	a := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A", "keywords": []string{"Acme", "shared"}}).ok().data()
	b := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "B", "keywords": []string{"shared"}}).ok().data()
	// update only changes sent fields
	u := e.do("PATCH", "/api/v1/monitors/"+a["id"].(string), e.keyA, map[string]any{"active": false}).ok().data()
	if u["active"] != false || u["name"] != "A" || len(u["keywords"].([]any)) != 2 {
		t.Fatalf("update %v", u)
	}
	// update_keyword replaces the list
	k := e.do("PATCH", "/api/v1/keywords/"+a["id"].(string), e.keyA, map[string]any{"keywords": []string{"acme.io"}}).ok().data()
	if k["id"] != a["id"] || len(k["keywords"].([]any)) != 1 {
		t.Fatalf("update_keyword %v", k)
	}
	e.do("PATCH", "/api/v1/keywords/"+a["id"].(string), e.keyA, map[string]any{"keywords": []string{"shared", "acme.io"}}).ok()
	// delete_keyword removes it everywhere; B is left with nothing and soft-stops
	d := e.do("DELETE", "/api/v1/keywords/SHARED", e.keyA, nil).ok().data()
	if d["deleted"] != true || d["keyword"] != "SHARED" || len(d["monitor_ids"].([]any)) != 2 {
		t.Fatalf("delete_keyword %v", d)
	}
	bm := e.do("GET", "/api/v1/monitors/"+b["id"].(string), e.keyA, nil).ok().data()
	if bm["active"] != false || len(bm["keywords"].([]any)) != 0 {
		t.Fatalf("monitor B %v", bm)
	}
	e.do("DELETE", "/api/v1/keywords/nothere", e.keyA, nil).expect(404, "NOT_FOUND")
	// delete_monitor: leaves the list
	e.do("DELETE", "/api/v1/monitors/"+b["id"].(string), e.keyA, nil).ok()
	e.do("GET", "/api/v1/monitors/"+b["id"].(string), e.keyA, nil).expect(404, "NOT_FOUND")
	ms := e.do("GET", "/api/v1/monitors", e.keyA, nil).ok().data()["monitors"].([]any)
	if len(ms) != 2 || ms[0].(map[string]any)["name"] != "Feed" {
		t.Fatalf("list (oldest first) %v", ms)
	}
}

func TestQuotaBlocksMonitors(t *testing.T) {
	e := newEnv(t)
	// New projects are unlimited; an operator who sells plans sets one.
	if err := e.st.SetPlan(context.Background(), e.projA.ID, "trial"); err != nil {
		t.Fatal(err)
	}
	m := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A", "keywords": []string{"acme"}}).ok().data()
	e.do("PATCH", "/api/v1/monitors/"+m["id"].(string), e.keyA, map[string]any{"active": false}).ok()
	if err := e.st.AddUsage(context.Background(), e.projA.ID, time.Now(), 1000, 0, 0.5); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "B", "keywords": []string{"x"}}).expect(402, "USAGE_LIMIT_REACHED")
	e.do("PATCH", "/api/v1/monitors/"+m["id"].(string), e.keyA, map[string]any{"active": true}).expect(402, "USAGE_LIMIT_REACHED")
	u := e.do("GET", "/api/v1/usage", e.keyA, nil).ok().data()
	hasKeys(t, "get_usage", u, "plan", "quota_period", "mentions_included", "mentions_used", "mentions_remaining", "period_start", "provider_cost_usd", "cost_per_new_mention_usd")
	if u["mentions_remaining"].(float64) != 0 || u["cost_per_new_mention_usd"].(float64) != 0.0005 {
		t.Fatalf("usage %v", u)
	}
}

func TestResourceCRUD(t *testing.T) {
	e := newEnv(t)
	k := e.keyA
	// keyword groups
	g := e.do("POST", "/api/v1/keyword-groups", k, map[string]any{"name": "Acme", "is_own": true}).ok().data()
	hasKeys(t, "create_keyword_group", g, "id", "name")
	ug := e.do("PATCH", "/api/v1/keyword-groups/"+g["id"].(string), k, map[string]any{"is_own": false}).ok().data()
	if ug["is_own"] != false {
		t.Fatalf("%v", ug)
	}
	m := e.do("POST", "/api/v1/monitors", k, map[string]any{"name": "M", "keywords": []string{"a"}, "group_id": g["id"]}).ok().data()
	if m["group_id"] != g["id"] {
		t.Fatalf("group_id %v", m["group_id"])
	}
	if n := len(e.do("GET", "/api/v1/keyword-groups", k, nil).ok().data()["keyword_groups"].([]any)); n != 1 {
		t.Fatalf("groups %d", n)
	}
	e.do("DELETE", "/api/v1/keyword-groups/"+g["id"].(string), k, nil).ok()
	if e.do("GET", "/api/v1/monitors/"+m["id"].(string), k, nil).ok().data()["group_id"] != nil {
		t.Fatal("monitor still grouped")
	}
	// views
	v := e.do("POST", "/api/v1/views", k, map[string]any{"name": "Urgent", "filters": map[string]any{"min_urgency": 70, "status": "new"}}).ok().data()
	hasKeys(t, "create_mention_view", v, "id", "name")
	e.do("POST", "/api/v1/views", k, map[string]any{"name": "Bad", "filters": map[string]any{"colour": "red"}}).expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/views", k, map[string]any{"name": "Bad", "filters": map[string]any{"status": "nope"}}).expect(400, "VALIDATION_ERROR")
	e.do("PATCH", "/api/v1/views/"+v["id"].(string), k, map[string]any{"filters": map[string]any{"source": "x"}}).ok()
	vs := e.do("GET", "/api/v1/views", k, nil).ok().data()["views"].([]any)
	f := vs[0].(map[string]any)["filters"].(map[string]any)
	if f["source"] != "x" || f["status"] != nil {
		t.Fatalf("filters not replaced: %v", f)
	}
	e.do("DELETE", "/api/v1/views/"+v["id"].(string), k, nil).ok()
	// categories
	cs := e.do("GET", "/api/v1/categories", k, nil).ok().data()["categories"].([]any)
	if len(cs) != 6 {
		t.Fatalf("categories %v", cs)
	}
	c := e.do("PATCH", "/api/v1/categories/bug_report", k, map[string]any{"label": "Bugs", "description": "Broken things"}).ok().data()
	if c["category"] != "bug_report" || c["label"] != "Bugs" {
		t.Fatalf("%v", c)
	}
	dc := e.do("DELETE", "/api/v1/categories/complaint", k, nil).ok().data()
	if dc["enabled"] != false || dc["category"] != "complaint" {
		t.Fatalf("%v", dc)
	}
	// alerts
	a := e.do("POST", "/api/v1/alerts", k, map[string]any{"name": "Urgent", "channel": "slack", "target": "https://hooks.slack.example/T1", "min_urgency": 80}).ok().data()
	hasKeys(t, "create_alert", a, "id", "name", "active", "min_urgency")
	e.do("POST", "/api/v1/alerts", k, map[string]any{"name": "Bad", "channel": "email", "target": "not-an-email"}).expect(400, "VALIDATION_ERROR")
	ua := e.do("PATCH", "/api/v1/alerts/"+a["id"].(string), k, map[string]any{"active": false}).ok().data()
	if ua["active"] != false || ua["min_urgency"].(float64) != 80 {
		t.Fatalf("%v", ua)
	}
	if n := len(e.do("GET", "/api/v1/alerts", k, nil).ok().data()["alerts"].([]any)); n != 1 {
		t.Fatalf("alerts %d", n)
	}
	e.do("DELETE", "/api/v1/alerts/"+a["id"].(string), k, nil).ok()
	// webhooks
	w := e.do("POST", "/api/v1/webhooks", k, map[string]any{"url": "https://hooks.example.com/in"}).ok().data()
	if !strings.HasPrefix(w["secret"].(string), "whsec_") || w["events"].([]any)[0] != "mention.created" {
		t.Fatalf("%v", w)
	}
	ws := e.do("GET", "/api/v1/webhooks", k, nil).ok().data()["webhooks"].([]any)
	if _, shown := ws[0].(map[string]any)["secret"]; shown {
		t.Fatal("secret shown again in list")
	}
	uw := e.do("PATCH", "/api/v1/webhooks/"+w["id"].(string), k, map[string]any{"active": false, "events": []string{"mention.updated"}}).ok().data()
	if uw["active"] != false {
		t.Fatalf("%v", uw)
	}
	rot := e.do("POST", "/api/v1/webhook-secrets/"+w["id"].(string)+"/rotate", k, nil).ok().data()
	if rot["secret"] == w["secret"] {
		t.Fatal("secret not rotated")
	}
	dl := e.do("GET", "/api/v1/webhooks/"+w["id"].(string)+"/deliveries", k, nil).ok().data()
	hasKeys(t, "list_webhook_deliveries", dl, "deliveries", "nextCursor", "hasMore")
	e.do("DELETE", "/api/v1/webhooks/"+w["id"].(string), k, nil).ok()
	// members and account
	_, uid := e.joinByInvite(k, "new@example.com", "viewer")
	um := e.do("PATCH", "/api/v1/members/"+uid, k, map[string]any{"role": "editor"}).ok().data()
	if um["role"] != "editor" || um["user_id"] != uid {
		t.Fatalf("%v", um)
	}
	e.do("PATCH", "/api/v1/members/"+e.userA.ID, k, map[string]any{"role": "viewer"}).expect(409, "CONFLICT")
	mem := e.do("GET", "/api/v1/members", k, nil).ok().data()["members"].([]any)
	if len(mem) != 2 {
		t.Fatalf("members %v", mem)
	}
	rm := e.do("DELETE", "/api/v1/members/"+uid, k, nil).ok().data()
	if rm["deleted"] != true || rm["user_id"] != uid {
		t.Fatalf("%v", rm)
	}
	acc := e.do("PATCH", "/api/v1/account", e.sessionA, map[string]any{"full_name": "Ada"}).ok().data()
	if acc["full_name"] != "Ada" || acc["id"] != e.userA.ID {
		t.Fatalf("%v", acc)
	}
}

func TestViewerRole(t *testing.T) {
	e := newEnv(t)
	tok, _ := e.joinByInvite(e.keyA, "viewer@example.com", "viewer")
	e.do("GET", "/api/v1/monitors", tok, nil).ok()
	e.do("POST", "/api/v1/monitors", tok, map[string]any{"name": "x", "keywords": []string{"x"}}).expect(403, "FORBIDDEN")
	var body map[string]any
	json.Unmarshal([]byte(`{}`), &body)
}

func TestSessionTenancyOnProjects(t *testing.T) {
	e := newEnv(t)
	// a session reaching for another user's project by path: 404, not 400
	e.do("GET", "/api/v1/projects/"+e.projB.ID, e.sessionA, nil).expect(404, "NOT_FOUND")
	e.do("PATCH", "/api/v1/projects/"+e.projB.ID, e.sessionA, map[string]any{"name": "x"}).expect(404, "NOT_FOUND")
	// its own second project by path works without the header
	p2 := e.do("POST", "/api/v1/projects", e.sessionA, map[string]any{"name": "Second"}).ok().data()["id"].(string)
	if e.do("GET", "/api/v1/projects/"+p2, e.sessionA, nil).ok().data()["name"] != "Second" {
		t.Fatal("wrong project")
	}
	e.do("GET", "/api/v1/projects/"+e.projA.ID, e.sessionA, nil).ok()
}

// A failed check is a 503 that names the check, not its error: /healthz
// answers anyone, and a PostgreSQL connection error names the database's
// host, port, user and database (the log has it).
func TestHealthFailureHidesTheError(t *testing.T) {
	e := newEnv(t)
	e.st.Close()
	r := e.do("GET", "/healthz", "", nil)
	if r.status != 503 {
		t.Fatalf("healthz on a closed store: %d %s", r.status, r.raw)
	}
	c, _ := r.body["checks"].(map[string]any)
	if r.body["status"] != "unavailable" || c["database"] != "failed" {
		t.Fatalf("healthz on a closed store: %s", r.raw)
	}
	if strings.Contains(string(r.raw), "closed") {
		t.Fatalf("healthz shows the error: %s", r.raw)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t)
	h := e.do("GET", "/healthz", "", nil).ok()
	if h.body["status"] != "ok" {
		t.Fatalf("healthz %s", h.raw)
	}
	// It names the store's engine (issue 17: a balancer's check shows it).
	if want := map[bool]string{false: "sqlite", true: "postgres"}[storetest.Postgres()]; h.body["backend"] != want {
		t.Errorf("healthz backend %v, want %s", h.body["backend"], want)
	}
	// The active classifier is reported (informational, status stays ok).
	e.srv.ClassifierStatus = func(bool) any {
		return map[string]any{"active": "ollama:llama3.2", "breaker": map[string]any{"state": "open"}}
	}
	h = e.do("GET", "/healthz", "", nil).ok()
	if c, _ := h.body["classifier"].(map[string]any); h.body["status"] != "ok" || c["active"] != "ollama:llama3.2" {
		t.Fatalf("healthz with a classifier: %s", h.raw)
	}
	e.do("GET", "/api/v1/monitors", e.keyA, nil).ok()
	e.do("GET", "/api/v1/monitors", "", nil).expect(401, "UNAUTHORIZED")
	m := e.do("GET", "/metrics", "", nil)
	text := string(m.raw)
	for _, want := range []string{
		`earshot_http_requests_total{capability="list_monitors",status="200"} 1`,
		`earshot_http_requests_total{capability="list_monitors",status="401"} 1`,
		`earshot_http_request_duration_seconds_bucket{capability="list_monitors",le="+Inf"} 2`,
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("metrics lack %q:\n%s", want, text)
		}
	}
}

func TestLoginRateLimited(t *testing.T) {
	e := newEnv(t)
	// 30 guesses at once: the per-email bucket (10, refilled at 1/s) refuses
	// most of them before any password is checked.
	var wg sync.WaitGroup
	var mu sync.Mutex
	limited := 0
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com", "password": "wrong-password"})
			if r.status == 429 && r.errCode() == "RATE_LIMITED" && r.header.Get("Retry-After") != "" {
				mu.Lock()
				limited++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if limited < 10 {
		t.Fatalf("only %d of 30 simultaneous guesses were rate limited", limited)
	}
}

// TestWebhookSSRFGuard: the REST binding refuses private and metadata
// targets for webhooks and webhook/slack alerts (docs/decisions.md#webhooks).
func TestWebhookSSRFGuard(t *testing.T) {
	e := newEnv(t)
	e.svc.Config.AllowPrivateWebhooks = false
	for _, u := range []string{"https://127.0.0.1/x", "https://169.254.169.254/latest", "https://10.0.0.1/h", "http://hooks.example.com/x", "https://[::1]/x"} {
		r := e.do("POST", "/api/v1/webhooks", e.keyA, map[string]any{"url": u}).expect(400, "VALIDATION_ERROR")
		if r.errParam() != "url" {
			t.Fatalf("%s: param %q", u, r.errParam())
		}
		e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "a", "channel": "slack", "target": u}).expect(400, "VALIDATION_ERROR")
	}
}
