package server_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"earshot/capability"
	"earshot/server"
	"earshot/store/storetest"
)

// Black-box tests of the hardening issue's findings, over HTTP and MCP.
// Each would fail on the code the attack ran against.

// ---- helpers ----

// browser is an HTTP client with a cookie jar, for the invitation page.
func (e *env) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signUpWithLink opens an invitation link and chooses a password on it, as
// a person without a session does; it returns the page's status and body.
func (e *env) signUpWithLink(link, password string) (int, string) {
	e.t.Helper()
	c := e.browser()
	resp, err := c.Get(link)
	if err != nil {
		e.t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfInput.FindSubmatch(page)
	if resp.StatusCode != 200 || m == nil {
		return resp.StatusCode, string(page)
	}
	resp, err = c.PostForm(link, url.Values{"_csrf": {string(m[1])}, "action": {"signup"}, "password": {password}})
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body)
}

// loginAs opens a session with a password over REST.
func (e *env) loginAs(email, password string) string {
	e.t.Helper()
	return e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": email, "password": password}).ok().data()["token"].(string)
}

// joinByInvite walks the consent path: the inviter invites, the person
// chooses a password on the link, logs in and accepts. It returns the
// person's session and user id.
func (e *env) joinByInvite(inviter, email, role string) (session, userID string) {
	e.t.Helper()
	inv := e.do("POST", "/api/v1/members", inviter, map[string]any{"email": email, "role": role}).ok().data()
	link, _ := inv["invite_url"].(string)
	if st, body := e.signUpWithLink(link, "invitee-password-1"); st != 200 {
		e.t.Fatalf("sign-up on the invitation page: %d %s", st, body)
	}
	session = e.loginAs(email, "invitee-password-1")
	acc := e.do("POST", "/api/v1/invitations/accept", session, map[string]any{"token": tokenOf(link)}).ok().data()
	if acc["role"] != role {
		e.t.Fatalf("accepted with role %v", acc["role"])
	}
	u, err := e.st.UserByEmail(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return session, u.ID
}

func tokenOf(link string) string { return link[strings.LastIndex(link, "/")+1:] }

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ---- 1. invitations are consent ----

func TestInvitationIsConsentNotAccountCreation(t *testing.T) {
	e := newEnv(t)
	// The answer is the same shape whether or not the email has an account,
	// and names no user id, no "created", no password.
	unknown := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "nobody@corp.example", "role": "viewer"}).ok().data()
	known := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "b@example.com", "role": "viewer"}).ok().data()
	if !slices.Equal(keysOf(unknown), keysOf(known)) {
		t.Errorf("answers differ by account existence: %v vs %v", keysOf(unknown), keysOf(known))
	}
	for _, leak := range []string{"user_id", "created", "temporary_password"} {
		if _, ok := known[leak]; ok {
			t.Errorf("invite_member answers %s: %v", leak, known)
		}
	}
	if link, _ := unknown["invite_url"].(string); !strings.Contains(link, "/invite/") || unknown["status"] != "pending" {
		t.Errorf("no one-time link: %v", unknown)
	}
	// Nobody joined without accepting.
	if mem := e.do("GET", "/api/v1/members", e.keyA, nil).ok().data()["members"].([]any); len(mem) != 1 {
		t.Errorf("an invitation added members without consent: %v", mem)
	}
	if _, err := e.st.UserByEmail(context.Background(), "nobody@corp.example"); err == nil {
		t.Error("inviting created an account")
	}
	invs := e.do("GET", "/api/v1/invitations", e.keyA, nil).ok().data()["invitations"].([]any)
	if len(invs) != 2 {
		t.Errorf("pending invitations %v", invs)
	}
	if strings.Contains(fmt.Sprint(invs), "invite_url") || strings.Contains(fmt.Sprint(invs), "esi_") {
		t.Error("the list shows the secret link again")
	}
}

// The reproduced attack: B's owner pre-creates the victim's account through
// an invitation, A later invites the victim; B must not reach A.
func TestInvitationPreHijackingFails(t *testing.T) {
	e := newEnv(t)
	const victim = "victim@corp.example"
	byB := e.do("POST", "/api/v1/members", e.keyB, map[string]any{"email": victim, "role": "viewer"}).ok().data()
	if st, _ := e.signUpWithLink(byB["invite_url"].(string), "attacker-pass-1"); st != 200 {
		t.Fatalf("sign-up %d", st)
	}
	byA := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": victim, "role": "editor"}).ok().data()
	if _, ok := byA["user_id"]; ok {
		t.Fatalf("A's invite reveals the account: %v", byA)
	}
	// B logs in as the victim and finds nothing of A.
	s := e.loginAs(victim, "attacker-pass-1")
	for _, p := range e.do("GET", "/api/v1/projects", s, nil).ok().data()["projects"].([]any) {
		if p.(map[string]any)["id"] == e.projA.ID {
			t.Fatal("the attacker's account reaches A")
		}
	}
	e.do("GET", "/api/v1/monitors", s, nil, "Earshot-Project", e.projA.ID).expect(404, "NOT_FOUND")
	// Choosing a password on A's link does not replace the existing one,
	// and the page answers as for a new account.
	link := byA["invite_url"].(string)
	st, body := e.signUpWithLink(link, "lantern-river-pass")
	if st != 200 || !strings.Contains(body, "Log in to accept") {
		t.Fatalf("sign-up on A's link: %d", st)
	}
	e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": victim, "password": "lantern-river-pass"}).expect(401, "UNAUTHORIZED")
	// The link is bound to the invited email (issue 25, L3): another
	// account holding it is refused and the link stays pending. The real
	// owner of the email takes the account back through the admin's reset
	// (which ends the attacker's sessions), then accepts.
	e.mustUser("carol@example.com")
	cs := e.login("carol@example.com")
	e.do("POST", "/api/v1/invitations/accept", cs, map[string]any{"token": tokenOf(link)}).expect(403, "FORBIDDEN")
	if _, err := e.svc.SetPassword(context.Background(), victim, "own-lantern-pass-1"); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/v1/projects", s, nil).expect(401, "UNAUTHORIZED")
	vs := e.loginAs(victim, "own-lantern-pass-1")
	acc := e.do("POST", "/api/v1/invitations/accept", vs, map[string]any{"token": tokenOf(link)}).ok().data()
	if acc["project_id"] != e.projA.ID || acc["role"] != "editor" {
		t.Fatalf("accept %v", acc)
	}
	// The link works once; an API key cannot accept.
	e.do("POST", "/api/v1/invitations/accept", vs, map[string]any{"token": tokenOf(link)}).expect(409, "CONFLICT")
	e.do("POST", "/api/v1/invitations/accept", e.keyB, map[string]any{"token": tokenOf(link)}).expect(403, "FORBIDDEN")
	// Withdrawn links stop working.
	again := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "dave@example.com", "role": "viewer"}).ok().data()
	e.do("DELETE", "/api/v1/invitations/"+again["id"].(string), e.keyA, nil).ok()
	e.do("POST", "/api/v1/invitations/accept", vs, map[string]any{"token": tokenOf(again["invite_url"].(string))}).expect(409, "CONFLICT")
}

// ---- password change (issue 15, item 5) ----

func TestChangePasswordRevokesOtherSessions(t *testing.T) {
	e := newEnv(t)
	other := e.login("a@example.com")
	e.do("POST", "/api/v1/account/password", e.sessionA, map[string]any{"current_password": "wrong-password", "new_password": "brand-new-pass"}).
		expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/account/password", e.sessionA, map[string]any{"current_password": "correct-horse-42", "new_password": "short"}).
		expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/account/password", e.keyA, map[string]any{"current_password": "correct-horse-42", "new_password": "brand-new-pass"}).
		expect(403, "FORBIDDEN")
	out := e.do("POST", "/api/v1/account/password", e.sessionA, map[string]any{"current_password": "correct-horse-42", "new_password": "brand-new-pass"}).ok().data()
	if out["changed"] != true || out["sessions_revoked"] != float64(1) || !strings.Contains(out["message"].(string), "logged out") {
		t.Fatalf("change_password %v", out)
	}
	e.do("GET", "/api/v1/projects", other, nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/api/v1/projects", e.sessionA, nil).ok()
	e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com", "password": "correct-horse-42"}).expect(401, "UNAUTHORIZED")
	e.loginAs("a@example.com", "brand-new-pass")
}

// ---- 2. MCP batches ----

func mcpRaw(t *testing.T, e *env, token string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.http.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

func batch(n int, call string) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, i+1, call)
	}
	b.WriteString("]")
	return b.String()
}

func TestMCPBatchPaysOneTokenPerCall(t *testing.T) {
	e := newEnv(t, server.Options{RateLimit: 0.01, RateBurst: 12})
	if st, body := mcpRaw(t, e, e.keyA, batch(8, "get_usage")); st != 200 || strings.Count(body, `"jsonrpc"`) != 8 {
		t.Fatalf("first batch: %d %.300s", st, body)
	}
	// 4 tokens are left: a batch of 8 is refused whole.
	if st, body := mcpRaw(t, e, e.keyA, batch(8, "get_usage")); st != 429 || !strings.Contains(body, "RATE_LIMITED") {
		t.Fatalf("second batch: %d %.300s", st, body)
	}
	big := newEnv(t, server.Options{RateLimit: 1000, RateBurst: 1000})
	if st, body := mcpRaw(t, big, big.keyA, batch(21, "list_monitors")); st != 400 || !strings.Contains(body, "at most 20") {
		t.Fatalf("batch of 21: %d %.300s", st, body)
	}
	mons, _ := big.st.ListMonitors(context.Background(), big.projA.ID)
	if len(mons) != 0 {
		t.Fatal("a refused batch ran")
	}
}

// ---- 3 and 4. login ----

func TestLoginTakesAsLongForUnknownEmails(t *testing.T) {
	e := newEnv(t)
	// Interleaved, and the fastest of each kind: the least noisy measure
	// of what an answer costs on a busy machine.
	known, unknown := time.Hour, time.Hour
	for i := range 6 {
		for _, email := range []string{"a@example.com", "ghost@example.com"} {
			c := clientFrom(t, fmt.Sprintf("127.0.1.%d", i+10)) // below the limiter's thresholds
			start := time.Now()
			if st := postLogin(t, c, e, email, "not-the-password"); st != 401 {
				t.Fatalf("login %s: %d", email, st)
			}
			d := time.Since(start)
			if email == "a@example.com" {
				known = min(known, d)
			} else {
				unknown = min(unknown, d)
			}
		}
	}
	if unknown < known/2 {
		t.Errorf("unknown email answers in %v, known in %v: the timing tells which emails have accounts", unknown, known)
	}
}

// clientFrom is an HTTP client whose connections come from a loopback
// address of its own (the whole 127/8 is loopback on Linux).
func clientFrom(t *testing.T, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

func postLogin(t *testing.T, c *http.Client, e *env, email, password string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	resp, err := c.Post(e.http.URL+"/api/v1/auth/sessions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 429 && resp.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	return resp.StatusCode
}

func TestLoginLimiterDoesNotLockOutTheOwner(t *testing.T) {
	e := newEnv(t)
	attacker := clientFrom(t, "127.0.0.2")
	limited := false
	for range 12 {
		if postLogin(t, attacker, e, "a@example.com", "guess") == 429 {
			limited = true
		}
	}
	if !limited {
		t.Fatal("12 wrong passwords in a row were never slowed down")
	}
	// The owner, from another address, logs in.
	if st := postLogin(t, clientFrom(t, "127.0.0.3"), e, "a@example.com", "correct-horse-42"); st != 200 {
		t.Fatalf("the owner is locked out by the attack: %d", st)
	}
	// Spraying one password across many emails from one address is
	// limited (sent at once, as a sprayer would: each attempt is counted
	// when it arrives, not when its password check ends).
	sprayer := clientFrom(t, "127.0.0.4")
	var wg sync.WaitGroup
	var limitedN atomic.Int32
	for i := range 80 { // 30 pass the per-address burst; the rest stay limited even if a loaded machine spreads the arrivals over a minute
		wg.Add(1)
		go func() {
			defer wg.Done()
			if postLogin(t, sprayer, e, fmt.Sprintf("user%d@example.com", i), "Summer2026!") == 429 {
				limitedN.Add(1)
			}
		}()
	}
	wg.Wait()
	if limitedN.Load() < 5 {
		t.Fatalf("80 emails at once from one address: only %d limited", limitedN.Load())
	}
}

// ---- 5 and 6. SSRF guard ----

// newStrictEnv is a server that refuses private webhook and feed addresses
// (the production setting), with one project and key.
func newStrictEnv(t *testing.T) (*env, string) {
	t.Helper()
	st := storetest.Open(t)
	e := &env{t: t, st: st}
	e.svc = capability.New(st, capability.Config{BaseURL: "http://earshot.test", PlanQuotas: map[string]int{"trial": 1000}}, slog.New(slog.DiscardHandler))
	e.srv = server.New(e.svc, nil, server.Options{RateLimit: 10000, RateBurst: 10000})
	e.http = newHTTPTestServer(t, e.srv)
	e.userA = e.mustUser("a@example.com")
	e.projA = e.mustProject(e.userA, "Acme")
	return e, e.mustKey(e.projA, nil)
}

func TestSSRFGuardAllowlistsIPv6AndNamesTheRule(t *testing.T) {
	e, k := newStrictEnv(t)
	for _, host := range []string{"[::ffff:0:7f00:1]", "[::ffff:0:a00:5]", "[fd12::1]", "[64:ff9b:1::a00:1]", "[3fff::1]"} {
		r := e.do("POST", "/api/v1/webhooks", k, map[string]any{"url": "https://" + host + "/hook"})
		if r.status != 400 || r.errParam() != "url" {
			t.Errorf("webhook to %s: %d %s", host, r.status, r.raw)
		}
		r = e.do("POST", "/api/v1/monitors", k, map[string]any{"name": "feeds", "feed_urls": []string{"http://" + host + "/feed"}})
		if r.status != 400 {
			t.Errorf("feed on %s: %d %s", host, r.status, r.raw)
		}
	}
	r := e.do("POST", "/api/v1/webhooks", k, map[string]any{"url": "https://[::ffff:0:7f00:1]/hook"})
	if !strings.Contains(string(r.raw), "IPv4-translated") {
		t.Errorf("refusal does not name the rule: %s", r.raw)
	}
	// A name that resolves to an internal address: the rule, not the address.
	r = e.do("POST", "/api/v1/webhooks", k, map[string]any{"url": "https://localhost/hook"})
	if r.status != 400 {
		t.Fatalf("localhost webhook: %d %s", r.status, r.raw)
	}
	r = e.do("POST", "/api/v1/alerts", k, map[string]any{"name": "a", "channel": "slack", "target": "https://localhost/alert-hook"})
	for _, leak := range []string{"127.0.0.1", "::1"} {
		if strings.Contains(string(r.raw), leak) {
			t.Errorf("refusal reveals the resolved address %s: %s", leak, r.raw)
		}
	}
	if r.status != 400 || !strings.Contains(string(r.raw), "loopback") {
		t.Errorf("alert target on localhost: %d %s", r.status, r.raw)
	}
}

// ---- 8 and 9. strict bodies ----

func TestRESTRefusesAmbiguousJSON(t *testing.T) {
	e := newEnv(t)
	for name, body := range map[string]string{
		"lone high surrogate": `{"name":"x\ud800y","keywords":["a"]}`,
		"lone low surrogate":  `{"name":"\udc00","keywords":["a"]}`,
		"duplicate key":       `{"name":"a","name":"b","keywords":["a"]}`,
		"nested duplicate":    `{"name":"a","keywords":["a"],"filters":{"x":1,"x":2}}`,
		"invalid UTF-8":       "{\"name\":\"\xff\",\"keywords\":[\"a\"]}",
	} {
		r := e.do("POST", "/api/v1/monitors", e.keyA, body)
		if r.status != 400 || r.errCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	// A valid pair is one character, stored as such.
	r := e.do("POST", "/api/v1/monitors", e.keyA, `{"name":"rocket \ud83d\ude80","keywords":["a"]}`).ok()
	if r.data()["name"] != "rocket 🚀" {
		t.Errorf("pair stored as %q", r.data()["name"])
	}
	e.do("POST", "/api/v1/auth/sessions", "", `{"email":"a@example.com","email":"b@example.com","password":"correct-horse-42"}`).expect(400, "VALIDATION_ERROR")
}

func TestMCPRefusesAmbiguousJSON(t *testing.T) {
	e := newEnv(t)
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_keyword_group","arguments":` + args + `}}`
	}
	for name, body := range map[string]string{
		"invalid UTF-8":  call("{\"name\":\"\xff\xfe\"}"),
		"lone surrogate": call(`{"name":"\ud800"}`),
		"duplicate key":  call(`{"name":"a","name":"b"}`),
	} {
		st, raw := mcpRaw(t, e, e.keyA, body)
		// A JSON-RPC parse error, so an MCP client gets a protocol answer.
		var rpc struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if st != 400 || json.Unmarshal([]byte(raw), &rpc) != nil || rpc.JSONRPC != "2.0" || string(rpc.ID) != "null" ||
			rpc.Error.Code != -32700 || !strings.HasPrefix(rpc.Error.Message, "VALIDATION_ERROR: ") {
			t.Errorf("%s: %d %.300s", name, st, raw)
		}
	}
	groups, _ := e.st.ListKeywordGroups(context.Background(), e.projA.ID)
	if len(groups) != 0 {
		t.Errorf("refused calls created groups: %d", len(groups))
	}
}

func TestRESTRefusesNonJSONBodies(t *testing.T) {
	e := newEnv(t)
	body := `{"name":"x","keywords":["a"]}`
	for _, ct := range []string{"text/xml", "application/x-www-form-urlencoded", "text/plain", ""} {
		req, _ := http.NewRequest("POST", e.http.URL+"/api/v1/monitors", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.keyA)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 415 || !strings.Contains(string(raw), "UNSUPPORTED_MEDIA_TYPE") {
			t.Errorf("Content-Type %q: %d %s", ct, resp.StatusCode, raw)
		}
	}
	e.do("POST", "/api/v1/monitors", e.keyA, body, "Content-Type", "application/json; charset=utf-8").ok()
	req, _ := http.NewRequest("POST", e.http.URL+"/api/v1/auth/sessions", strings.NewReader(`{"email":"a@example.com","password":"correct-horse-42"}`))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 415 {
		t.Errorf("login with a form type: %d", resp.StatusCode)
	}
	// A body-less request needs no Content-Type.
	e.do("GET", "/api/v1/monitors", e.keyA, nil).ok()
}

// ---- 10. account operations for any logged-in user ----

func TestAccountOperationsForEveryRole(t *testing.T) {
	e := newEnv(t)
	for _, role := range []string{"viewer", "editor"} {
		s, _ := e.joinByInvite(e.keyA, role+"@example.com", role)
		// The session picked A (its only project) with the role's scopes.
		e.do("POST", "/api/v1/monitors", s, map[string]any{"name": "x", "keywords": []string{"x"}}).expect(map[string]int{"viewer": 403, "editor": 200}[role], "")
		if acc := e.do("PATCH", "/api/v1/account", s, map[string]any{"full_name": "Val " + role}).ok().data(); acc["full_name"] != "Val "+role {
			t.Errorf("%s update_account %v", role, acc)
		}
		p := e.do("POST", "/api/v1/projects", s, map[string]any{"name": "Own " + role}).ok().data()
		e.do("POST", "/api/v1/account/password", s, map[string]any{"current_password": "invitee-password-1", "new_password": "another-pass-1"}).ok()
		// The new project is theirs as owner.
		e.do("PATCH", "/api/v1/projects/"+p["id"].(string), s, map[string]any{"name": "Renamed"}).ok()
		// update_project stays forbidden in A.
		e.do("PATCH", "/api/v1/projects/"+e.projA.ID, s, map[string]any{"name": "Hacked"}).expect(403, "FORBIDDEN")
	}
}

// ---- 11. /metrics token and the cursor key ----

func TestMetricsToken(t *testing.T) {
	e := newEnv(t, server.Options{RateLimit: 1000, RateBurst: 1000, MetricsToken: "scrape-secret-1"})
	e.do("GET", "/metrics", "", nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/metrics", "wrong", nil).expect(401, "UNAUTHORIZED")
	if r := e.do("GET", "/metrics", "scrape-secret-1", nil); r.status != 200 || !strings.Contains(string(r.raw), "earshot_http_requests_total") {
		t.Fatalf("metrics with the token: %d %.200s", r.status, r.raw)
	}
	open := newEnv(t)
	if r := open.do("GET", "/metrics", "", nil); r.status != 200 {
		t.Fatalf("metrics without a configured token: %d", r.status)
	}
}

// forge seals a cursor with the key that used to be in the source.
func forge(pos any, binding string) string {
	body, _ := json.Marshal(pos)
	mac := hmac.New(sha256.New, []byte("earshot-cursor-v1"))
	mac.Write([]byte(binding))
	mac.Write([]byte{0})
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(append(mac.Sum(nil)[:12], body...))
}

func TestCursorKeyIsPerInstallation(t *testing.T) {
	e := newEnv(t)
	w := e.do("POST", "/api/v1/webhooks", e.keyA, map[string]any{"url": "https://hooks.example.com/x"}).ok().data()
	id := w["id"].(string)
	r := e.do("GET", "/api/v1/webhooks/"+id+"/deliveries?cursor="+forge(int64(1)<<40, "dlv:"+id+":"), e.keyA, nil)
	if r.status != 400 || r.errParam() != "cursor" {
		t.Fatalf("a cursor forged with the source's constant key: %d %s", r.status, r.raw)
	}
	// The key is kept in the database: a cursor survives a restart.
	mon := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "m", "keywords": []string{"acme"}}).ok().data()
	e.seedMentions(e.projA, []string{mon["id"].(string)}, 5, time.Now(), nil)
	page := e.do("GET", "/api/v1/mentions?limit=2", e.keyA, nil).ok().data()
	cur, _ := page["nextCursor"].(string)
	restarted := capability.New(e.st, e.svc.Config, slog.New(slog.DiscardHandler))
	srv2 := newHTTPTestServer(t, server.New(restarted, nil, server.Options{RateLimit: 1000, RateBurst: 1000}))
	req, _ := http.NewRequest("GET", srv2.URL+"/api/v1/mentions?limit=2&cursor="+url.QueryEscape(cur), nil)
	req.Header.Set("Authorization", "Bearer "+e.keyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cur == "" || resp.StatusCode != 200 {
		t.Fatalf("cursor %q after a restart: %d", cur, resp.StatusCode)
	}
}

func newHTTPTestServer(t *testing.T, h http.Handler) *httptest.Server {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// With SMTP configured the link is also emailed to the invited address,
// and still shown once to the inviter.
func TestInvitationEmail(t *testing.T) {
	e := newEnv(t)
	var to, body string
	e.svc.SendEmail = func(_ context.Context, addr, subject, text string) error {
		to, body = addr, text
		return nil
	}
	inv := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "mail@example.com", "role": "editor"}).ok().data()
	if inv["email_sent"] != true || to != "mail@example.com" || !strings.Contains(body, inv["invite_url"].(string)) || !strings.Contains(body, "Acme") {
		t.Fatalf("email to %q: %q (answer %v)", to, body, inv)
	}
	e.svc.SendEmail = func(context.Context, string, string, string) error { return fmt.Errorf("smtp down") }
	if inv := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "mail2@example.com", "role": "editor"}).ok().data(); inv["email_sent"] != false || inv["invite_url"] == nil {
		t.Fatalf("a failed email must still answer the link: %v", inv)
	}
}

// The invitation page for a logged-in person: one button joins, as the
// account they are logged in with; a second click finds the link used up.
func TestInvitationPageAcceptWhileLoggedIn(t *testing.T) {
	e := newEnv(t)
	link := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "b@example.com", "role": "viewer"}).ok().data()["invite_url"].(string)
	c := e.browser()
	u, _ := url.Parse(e.http.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "earshot_session", Value: e.sessionB, Path: "/"}})
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "Accept and join Acme") || !strings.Contains(string(page), "b@example.com") ||
		resp.Header.Get("Referrer-Policy") != "same-origin" {
		t.Fatalf("invitation page: %d %s", resp.StatusCode, page)
	}
	// Without the session's CSRF token nothing happens.
	resp, _ = c.PostForm(link, url.Values{"action": {"accept"}})
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("accept without CSRF: %d", resp.StatusCode)
	}
	m := csrfInput.FindSubmatch(page)
	resp, err = c.PostForm(link, url.Values{"_csrf": {string(m[1])}, "action": {"accept"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/" {
		t.Fatalf("accept: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if role, err := e.st.Membership(context.Background(), e.projA.ID, e.userB.ID); err != nil || role != "viewer" {
		t.Fatalf("B's membership in A: %q %v", role, err)
	}
	resp, _ = c.Get(link)
	resp.Body.Close()
	if resp.StatusCode != 410 {
		t.Errorf("a used link answers %d, want 410", resp.StatusCode)
	}
	resp, _ = c.Get(e.http.URL + "/invite/esi_not-a-real-token")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("an unknown link answers %d", resp.StatusCode)
	}
}
