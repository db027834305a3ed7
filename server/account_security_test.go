package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Issue 25 (accounts): what an outside attack found about passwords,
// sessions, keys and invitations, each through HTTP.

// L2: a key minted by a session someone else held must not outlive the
// password change that ends that session. The change revokes every key
// the account's sessions made (listed in the answer), in every project;
// a key made on the box (earshot key create) stays.
func TestChangePasswordRevokesKeysMintedBySessions(t *testing.T) {
	e := newEnv(t)
	stolen := e.login("a@example.com")
	minted := e.do("POST", "/api/v1/keys", stolen, map[string]any{"name": "from a stolen session"}).ok().data()
	mintedKey := minted["key"].(string)
	mintedB := e.do("POST", "/api/v1/keys", e.sessionB, map[string]any{"name": "B's own"}).ok().data()["key"].(string)
	e.do("GET", "/api/v1/monitors", mintedKey, nil).ok()

	out := e.do("POST", "/api/v1/account/password", e.sessionA,
		map[string]any{"current_password": "correct-horse-42", "new_password": "brand-new-pass-7"}).ok().data()
	keys, _ := out["keys_revoked"].([]any)
	if len(keys) != 1 || keys[0].(map[string]any)["id"] != minted["id"] || keys[0].(map[string]any)["revoked_at"] == nil {
		t.Fatalf("keys_revoked %v", out["keys_revoked"])
	}
	if msg, _ := out["message"].(string); !strings.Contains(msg, "1 API key") || out["sessions_revoked"] != float64(1) {
		t.Fatalf("answer %v", out)
	}
	e.do("GET", "/api/v1/monitors", mintedKey, nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/api/v1/monitors", stolen, nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/api/v1/monitors", e.keyA, nil).ok()     // made on the box: stays
	e.do("GET", "/api/v1/monitors", mintedB, nil).ok()    // another user's key: stays
	e.do("GET", "/api/v1/monitors", e.sessionA, nil).ok() // the calling session stays
	// The list of the project's keys shows it revoked.
	for _, k := range e.do("GET", "/api/v1/keys", e.sessionA, nil).ok().data()["keys"].([]any) {
		if k := k.(map[string]any); k["id"] == minted["id"] && k["revoked_at"] == nil {
			t.Fatalf("the key is listed as live: %v", k)
		}
	}
}

// L2, the admin's reset: the same revocation (the CLI prints the list; see
// TestUserSetPasswordRevokesSessionKeys in internal/cli).
func TestSetPasswordRevokesKeysMintedBySessions(t *testing.T) {
	e := newEnv(t)
	minted := e.do("POST", "/api/v1/keys", e.sessionA, map[string]any{"name": "integration"}).ok().data()["key"].(string)
	res, err := e.svc.SetPassword(context.Background(), "a@example.com", "reset-by-admin-9")
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionsRevoked != 1 || len(res.KeysRevoked) != 1 {
		t.Fatalf("reset %+v", res)
	}
	e.do("GET", "/api/v1/monitors", minted, nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/api/v1/monitors", e.sessionA, nil).expect(401, "UNAUTHORIZED")
	e.do("GET", "/api/v1/monitors", e.keyA, nil).ok()
}

// L3: an invitation link is accepted only by the invited email's account.
// Another logged-in account holding the link gets a clear 403 and the
// link stays usable; the invited account joins.
func TestInvitationOnlyForTheInvitedEmail(t *testing.T) {
	e := newEnv(t)
	link := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "Bob@Example.com", "role": "editor"}).ok().data()["invite_url"].(string)
	e.mustUser("mallory@example.com")
	mallory := e.login("mallory@example.com")
	r := e.do("POST", "/api/v1/invitations/accept", mallory, map[string]any{"token": tokenOf(link)}).expect(403, "FORBIDDEN")
	if r.errParam() != "token" || !strings.Contains(string(r.raw), "this invitation is for Bob@Example.com") || !strings.Contains(string(r.raw), "mallory@example.com") {
		t.Fatalf("refusal %s", r.raw)
	}
	if role, err := e.st.Membership(context.Background(), e.projA.ID, e.userID("mallory@example.com")); err == nil {
		t.Fatalf("mallory joined as %s", role)
	}
	// The dashboard's invitation page says so instead of offering the button.
	c := e.browser()
	u, _ := url.Parse(e.http.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "earshot_session", Value: mallory, Path: "/"}})
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(page), "Accept and join") || !strings.Contains(string(page), "Only Bob@Example.com can accept it") {
		t.Fatalf("invitation page for another account: %s", page)
	}
	// The invited email's account (case aside) joins with the same link.
	e.mustUser("bob@example.com")
	bob := e.login("bob@example.com")
	acc := e.do("POST", "/api/v1/invitations/accept", bob, map[string]any{"token": tokenOf(link)}).ok().data()
	if acc["project_id"] != e.projA.ID || acc["role"] != "editor" {
		t.Fatalf("accept %v", acc)
	}
}

// userID is the user id of an email (for membership checks).
func (e *env) userID(email string) string {
	e.t.Helper()
	u, err := e.st.UserByEmail(context.Background(), email)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

// Password rules (ASVS): wherever a password is set over HTTP, a short,
// padded or common one is a 400 naming the field; older passwords still
// log in.
func TestPasswordRulesOverHTTP(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ pw, want string }{
		{"password    ", "at least 12 characters"},
		{"    password    ", "at least 12 characters"},
		{"password1234", "most common"},
		{"Sunshine-2024!", "most common"},
		{"a@example.com-1", "email"},
		{"aaaaaaaaaaaaaaaa", "repeated"},
	} {
		r := e.do("POST", "/api/v1/account/password", e.sessionA, map[string]any{"current_password": "correct-horse-42", "new_password": c.pw}).
			expect(400, "VALIDATION_ERROR")
		if r.errParam() != "new_password" || !strings.Contains(string(r.raw), c.want) {
			t.Errorf("%q: %s", c.pw, r.raw)
		}
	}
	// Surrounding spaces are kept, not trimmed: the password is what was typed.
	e.do("POST", "/api/v1/account/password", e.sessionA, map[string]any{"current_password": "correct-horse-42", "new_password": " river-lantern-9 "}).ok()
	e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com", "password": "river-lantern-9"}).expect(401, "UNAUTHORIZED")
	e.loginAs("a@example.com", " river-lantern-9 ")
	// An existing password below today's rules still logs in (rules apply
	// when a password is set).
	if _, err := e.st.CreateUser(context.Background(), "old@example.com", bcryptOf(t, "oldpass1"), ""); err != nil {
		t.Fatal(err)
	}
	e.loginAs("old@example.com", "oldpass1")
	// The invitation sign-up page refuses a weak password with the field named.
	link := e.do("POST", "/api/v1/members", e.keyA, map[string]any{"email": "new@example.com", "role": "viewer"}).ok().data()["invite_url"].(string)
	st, body := e.signUpWithLink(link, "password    ")
	if st != 400 || !strings.Contains(body, "at least 12 characters") {
		t.Fatalf("sign-up with a padded password: %d", st)
	}
}

// The idle timeout: a session unused for longer than the limit (12 h by
// default) is over, though its 30 days are not; a used one is not.
// The store's last-seen time is back-dated instead of waiting.
func TestSessionIdleTimeout(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	idle := e.login("a@example.com")
	e.do("GET", "/api/v1/monitors", idle, nil).ok()
	sessID := e.sessionIDOf(idle)
	if err := e.st.SetSessionLastSeen(ctx, sessID, time.Now().Add(-11*time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/v1/monitors", idle, nil).ok() // used within 12 h: alive, and the use is recorded
	if err := e.st.SetSessionLastSeen(ctx, sessID, time.Now().Add(-13*time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/v1/monitors", idle, nil).expect(401, "UNAUTHORIZED")
	// The dashboard treats it as logged out too.
	c := e.browser()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	u, _ := url.Parse(e.http.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "earshot_session", Value: idle, Path: "/"}})
	resp, err := c.Get(e.http.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("dashboard with an idle session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	e.do("GET", "/api/v1/monitors", e.sessionA, nil).ok()
}

// sessionIDOf finds a session's id by asking who it is, then the store.
func (e *env) sessionIDOf(token string) string {
	e.t.Helper()
	s, err := e.st.SessionByToken(context.Background(), token, time.Time{})
	if err != nil {
		e.t.Fatal(err)
	}
	return s.ID
}

// A key with projects:write acts in its project; it cannot change the
// account of the person who created it (their display name), which only
// that person's session can.
func TestKeyCannotUpdateItsCreatorsAccount(t *testing.T) {
	e := newEnv(t)
	e.do("PATCH", "/api/v1/account", e.keyA, map[string]any{"full_name": "Pwned"}).expect(403, "FORBIDDEN")
	if u, _ := e.st.UserByID(context.Background(), e.userA.ID); u.FullName == "Pwned" {
		t.Fatal("the key renamed its creator")
	}
	if got := e.do("PATCH", "/api/v1/account", e.sessionA, map[string]any{"full_name": "Ada"}).ok().data(); got["full_name"] != "Ada" {
		t.Fatalf("update_account %v", got)
	}
}

func bcryptOf(t *testing.T, pw string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// L2 for OAuth: a grant a session approved (an MCP host's key and tokens)
// is revoked by its approver's password change, like a key the session made.
func TestChangePasswordRevokesOAuthGrants(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	client, err := e.svc.RegisterOAuthClient(ctx, "Some host", []string{"http://127.0.0.1:9/cb"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.svc.Authenticate(ctx, e.sessionA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	verifier, challenge := pkcePair()
	code, _, err := e.svc.ApproveOAuth(ctx, p, client, e.projA.ID, []string{"mentions:read"}, "http://127.0.0.1:9/cb", challenge)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := e.svc.ExchangeOAuthCode(ctx, client.ID, code, "http://127.0.0.1:9/cb", verifier)
	if err != nil {
		t.Fatal(err)
	}
	e.do("GET", "/api/v1/mentions", toks.AccessToken, nil).ok()
	out := e.do("POST", "/api/v1/account/password", e.sessionA,
		map[string]any{"current_password": "correct-horse-42", "new_password": "brand-new-pass-7"}).ok().data()
	if keys, _ := out["keys_revoked"].([]any); len(keys) != 1 || !strings.Contains(keys[0].(map[string]any)["name"].(string), "Some host") {
		t.Fatalf("keys_revoked %v", out["keys_revoked"])
	}
	e.do("GET", "/api/v1/mentions", toks.AccessToken, nil).expect(401, "UNAUTHORIZED")
	if _, err := e.svc.RefreshOAuth(ctx, client.ID, toks.RefreshToken); err == nil {
		t.Fatal("the refresh token still works")
	}
}
