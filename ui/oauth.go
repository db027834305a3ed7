package ui

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// The OAuth consent page, /oauth/authorize: a remote MCP host sends the
// person here; logged in on the dashboard, they pick the project and the
// scopes the host gets, and approve or deny. The approval becomes an API
// key named "OAuth: <client>" on the keys page, where it is revoked.

// formActionHeader passes an extra CSP form-action source to write (the
// consent form's redirect goes to the client's address); never sent.
const formActionHeader = "X-Earshot-Form-Action"

type oauthParams struct {
	ClientID, RedirectURI, State, Scope, Challenge, Method, ResponseType, Resource string
}

func readOAuthParams(v url.Values) oauthParams {
	return oauthParams{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), State: v.Get("state"), Scope: v.Get("scope"),
		Challenge: v.Get("code_challenge"), Method: v.Get("code_challenge_method"), ResponseType: v.Get("response_type"), Resource: v.Get("resource")}
}

type consentScope struct {
	Name    string
	Checked bool
}

type consentData struct {
	Title, CSRF, Error string
	Client             *capability.OAuthClient
	RedirectHost       string
	P                  oauthParams
	Projects           []*capability.UserProject
	Current            string
	Scopes             []consentScope
	Email              string
	Public             bool // the bare layout's switch; false here
}

// MountOAuth registers the consent page on r.
func (u *UI) MountOAuth(r *httprouter.Router) {
	r.GET("/oauth/authorize", u.oauthAuthorize)
	r.POST("/oauth/authorize", u.oauthDecide)
}

// checkOAuth validates the request's client and redirect URI (a failure is
// shown here: never redirect to an address the client did not register),
// then the rest (a failure goes back to the client as error=).
func (u *UI) checkOAuth(w http.ResponseWriter, r *http.Request, p oauthParams) (*capability.OAuthClient, bool) {
	client, err := u.svc.OAuthClient(r.Context(), p.ClientID)
	if err != nil || !capability.RedirectAllowed(client, p.RedirectURI) {
		u.renderBare(w, http.StatusBadRequest, "error", map[string]any{"Title": "Authorization failed",
			"Message": "This authorization link is not valid: its client is unknown, or its redirect_uri is not one the client registered. Start again from the application."})
		return nil, false
	}
	fail := func(code, desc string) (*capability.OAuthClient, bool) {
		u.oauthRedirect(w, r, p, url.Values{"error": {code}, "error_description": {desc}})
		return nil, false
	}
	switch {
	case p.ResponseType != "code":
		return fail("unsupported_response_type", "response_type must be code")
	case p.Challenge == "" || p.Method != "S256":
		return fail("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
	}
	if _, err := capability.ParseOAuthScopes(p.Scope); err != nil {
		return fail("invalid_scope", err.Error())
	}
	if p.Resource != "" && !strings.HasPrefix(p.Resource, strings.TrimSuffix(u.svc.Config.BaseURL, "/")) {
		return fail("invalid_target", "resource must be this server's /mcp")
	}
	return client, true
}

func (u *UI) oauthRedirect(w http.ResponseWriter, r *http.Request, p oauthParams, q url.Values) {
	target, _ := url.Parse(p.RedirectURI)
	v := target.Query()
	for k, vs := range q {
		v[k] = vs
	}
	if p.State != "" {
		v.Set("state", p.State)
	}
	v.Set("iss", strings.TrimSuffix(u.svc.Config.BaseURL, "/")) // RFC 9207
	target.RawQuery = v.Encode()
	http.Redirect(w, r, target.String(), http.StatusSeeOther)
}

func (u *UI) oauthAuthorize(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	w.Header().Set("Cache-Control", "no-store")
	p := readOAuthParams(r.URL.Query())
	client, ok := u.checkOAuth(w, r, p)
	if !ok {
		return
	}
	s, err := u.loadSession(r)
	if err != nil {
		u.redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()))
		return
	}
	u.renderConsent(w, r, s, client, p, "", http.StatusOK)
}

func (u *UI) renderConsent(w http.ResponseWriter, r *http.Request, s *session, client *capability.OAuthClient, p oauthParams, msg string, status int) {
	requested, _ := capability.ParseOAuthScopes(p.Scope)
	d := consentData{Title: "Authorize " + client.Name, CSRF: csrfToken(s.token), Client: client, P: p, Projects: s.projs, Email: s.user.Email, Error: msg}
	if s.cur != nil {
		d.Current = s.cur.ID
	}
	for _, sc := range capability.AllScopes {
		d.Scopes = append(d.Scopes, consentScope{Name: sc, Checked: len(requested) == 0 && strings.HasSuffix(sc, ":read") || slices.Contains(requested, sc)})
	}
	if t, err := url.Parse(p.RedirectURI); err == nil {
		d.RedirectHost = t.Host
		if t.Host == "" {
			d.RedirectHost = t.Scheme + ":"
		}
		src := t.Scheme + ":"
		if t.Host != "" {
			src = t.Scheme + "://" + t.Host
		}
		w.Header().Set(formActionHeader, src)
	}
	u.renderBare(w, status, "oauth", d)
}

func (u *UI) oauthDecide(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	r.ParseForm()
	s, err := u.loadSession(r)
	if err != nil {
		u.toLogin(w, r)
		return
	}
	if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
		u.forbidden(w, err)
		return
	}
	p := readOAuthParams(r.PostForm)
	client, ok := u.checkOAuth(w, r, p)
	if !ok {
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		u.oauthRedirect(w, r, p, url.Values{"error": {"access_denied"}, "error_description": {"the person denied the request"}})
		return
	}
	scopes, _ := capability.ParseOAuthScopes(strings.Join(r.PostForm["grant"], " "))
	code, _, err := u.svc.ApproveOAuth(r.Context(), s.p, client, r.PostForm.Get("project_id"), scopes, p.RedirectURI, p.Challenge)
	if err != nil {
		e, known := capability.AsError(err, "project_id")
		if !known {
			u.serverError(w, r, err)
			return
		}
		u.renderConsent(w, r, s, client, p, e.Message, e.Status)
		return
	}
	u.oauthRedirect(w, r, p, url.Values{"code": {code}})
}
