package ui_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDashboardLoginIsTheCatalogueLogin: the login form runs the same
// create_session as REST, so both share the login limiter: guesses on the
// form limit the API for that (email, address), with Retry-After on both.
func TestDashboardLoginIsTheCatalogueLogin(t *testing.T) {
	e := newEnv(t)
	e.seed(1)
	c := e.client()
	c.get("/login")
	limited := false
	// After 5 free failures the wait doubles from 1 s; on a loaded machine
	// a bcrypt check under -race can outlast the first waits, so guess
	// until the wait is longer than a guess (at most 2^19 s: always).
	for i := 0; i < 25 && !limited; i++ {
		st, body, h := c.post("/login", url.Values{"email": {"owner@example.com"}, "password": {"wrong-password"}}, true)
		switch st {
		case http.StatusUnauthorized:
			must(t, body, "wrong email or password")
		case http.StatusTooManyRequests:
			if h.Get("Retry-After") == "" {
				t.Error("the form's 429 has no Retry-After")
			}
			limited = true
		default:
			t.Fatalf("guess %d: %d", i, st)
		}
	}
	if !limited {
		t.Fatal("the login form is not limited")
	}
	resp, err := http.Post(e.http.URL+"/api/v1/auth/sessions", "application/json", strings.NewReader(`{"email":"owner@example.com","password":"correct-horse-42"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Meta struct{ Capability string } `json:"meta"`
	}
	json.NewDecoder(resp.Body).Decode(&env)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || env.Meta.Capability != "create_session" {
		t.Errorf("REST login after the form's guesses: %d, Retry-After %q, capability %q", resp.StatusCode, resp.Header.Get("Retry-After"), env.Meta.Capability)
	}
}

// TestDashboardLogoutEndsTheAPISession: the dashboard's logout runs
// delete_session: the token stops working for the API too.
func TestDashboardLogoutEndsTheAPISession(t *testing.T) {
	e, c := ownerClient(t, 1)
	u, _ := url.Parse(e.http.URL)
	var token string
	for _, ck := range c.c.Jar.Cookies(u) {
		if ck.Name == "earshot_session" {
			token = ck.Value
		}
	}
	api := func() int {
		req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/projects", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if token == "" || api() != http.StatusOK {
		t.Fatalf("the dashboard's session does not work for the API (token %q)", token)
	}
	c.get("/")
	if st, _, h := c.post("/logout", url.Values{}, true); st != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Fatalf("logout: %d %q", st, h.Get("Location"))
	}
	if st := api(); st != http.StatusUnauthorized {
		t.Errorf("the API still takes the logged-out token: %d", st)
	}
}
