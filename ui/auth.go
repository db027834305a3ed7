package ui

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// Before a session exists, forms are protected by the cross-origin check
// plus a double-submit token (cookie == hidden field).
func (u *UI) preCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(preCSRFCookie); err == nil && len(c.Value) >= 20 {
		return c.Value
	}
	t := randString(24)
	u.setCookie(w, r, preCSRFCookie, t, 3600)
	return t
}

// preForm reads a pre-login form (login, setup) and checks its CSRF token;
// false when it has answered the request.
func (u *UI) preForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	r.ParseForm()
	if err := u.checkPreCSRF(r); err != nil {
		u.forbidden(w, err)
		return false
	}
	return true
}

func (u *UI) checkPreCSRF(r *http.Request) error {
	if err := u.cop.Check(r); err != nil {
		return err
	}
	c, err := r.Cookie(preCSRFCookie)
	got := r.PostFormValue(csrfField)
	if err != nil || got == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(got)) != 1 {
		return errors.New("missing or invalid CSRF token")
	}
	return nil
}

type authData struct {
	Title, CSRF, Next, Email, Error, Param string
	Form                                   url.Values
	Public                                 bool
	// Setup: the setup token the form carries, or NeedToken when the page
	// asks for it instead of showing the form.
	Token     string
	NeedToken bool
	// ResetByEmail: the login page offers "Forgot password?" (SMTP is set).
	ResetByEmail bool
}

func (d authData) FieldErr(name string) string {
	if d.Param == name {
		return d.Error
	}
	return ""
}

func (d authData) V(name string) string { return d.Form.Get(name) }

func (u *UI) loginPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if s, err := u.loadSession(r); err == nil && s != nil {
		u.redirect(w, r, "/")
		return
	}
	if open, err := u.svc.SetupOpen(r.Context()); err == nil && open {
		u.redirect(w, r, "/setup")
		return
	}
	u.renderBare(w, http.StatusOK, "login", authData{Title: "Log in", CSRF: u.preCSRF(w, r), Next: localPath(r.URL.Query().Get("next"), "/"),
		ResetByEmail: u.svc.PasswordResetByEmail()})
}

func (u *UI) loginSubmit(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !u.preForm(w, r) {
		return
	}
	email, pw := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("password")
	next := localPath(r.PostFormValue("next"), "/")
	d := authData{Title: "Log in", CSRF: u.preCSRF(w, r), Next: next, Email: email, ResetByEmail: u.svc.PasswordResetByEmail()}
	// The same create_session REST runs; the form's fields are its input.
	o := u.session(r, nil, capability.CreateSession, &capability.LoginIn{Email: email, Password: pw})
	if o.Err != nil {
		if o.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(o.RetryAfter))
		}
		d.Error = o.Err.Message
		u.renderBare(w, o.Err.Status, "login", d)
		return
	}
	res := o.Data.(*capability.LoginResult)
	u.setCookie(w, r, SessionCookie, res.Token, int(u.svc.Config.SessionTTL.Seconds()))
	u.setCookie(w, r, preCSRFCookie, "", -1)
	u.redirect(w, r, next)
}

func (u *UI) logout(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s, err := u.loadSession(r)
	if err != nil {
		u.redirect(w, r, "/login")
		return
	}
	if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
		u.forbidden(w, err)
		return
	}
	if o := u.session(r, s.d.UserPrincipal(), capability.DeleteSession, &capability.Empty{}); o.Err != nil {
		u.serverError(w, r, o.Err)
		return
	}
	u.setCookie(w, r, SessionCookie, "", -1)
	u.setCookie(w, r, projectCookie, "", -1)
	u.redirect(w, r, "/login")
}

// switchProject sets the current-project cookie after checking membership.
func (u *UI) switchProject(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s, err := u.loadSession(r)
	if err != nil {
		u.toLogin(w, r)
		return
	}
	if err := u.checkCSRF(r, csrfToken(s.token)); err != nil {
		u.forbidden(w, err)
		return
	}
	id := r.PostFormValue("project")
	if _, err := u.svc.ProjectPrincipal(r.Context(), s.d, id); err != nil {
		http.Error(w, "project not found", http.StatusNotFound)
		return
	}
	u.setCookie(w, r, projectCookie, id, 365*24*3600)
	u.redirect(w, r, "/")
}

// setupPage is the first-run page: it creates the owner and a first
// project, and only exists while there is no user at all.
//
// It asks for the one-time setup token serve prints in its log (the link
// there carries it as ?token=): the first visitor of a fresh installation
// reachable from a network is not necessarily its operator.
func (u *UI) setupPage(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if u.setupDone(w, r) {
		return
	}
	d := authData{Title: "Welcome to Earshot", CSRF: u.preCSRF(w, r)}
	token, given := r.URL.Query().Get("token"), r.URL.Query().Has("token")
	ok, err := u.svc.CheckSetupToken(r.Context(), token)
	if err != nil {
		u.serverError(w, r, err)
		return
	}
	if !ok {
		d.NeedToken = true
		status := http.StatusOK
		if given {
			d.Error, status = capability.ErrSetupToken().Message, http.StatusForbidden
		}
		u.renderBare(w, status, "setup", d)
		return
	}
	d.Token = token
	u.renderBare(w, http.StatusOK, "setup", d)
}

// setupDone answers the request when setup is over (a user exists: to the
// login page) or cannot be told (500); false when setup is still open.
func (u *UI) setupDone(w http.ResponseWriter, r *http.Request) bool {
	open, err := u.svc.SetupOpen(r.Context())
	if err != nil {
		u.serverError(w, r, err)
		return true
	}
	if !open {
		u.redirect(w, r, "/login")
		return true
	}
	return false
}

func (u *UI) setupSubmit(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !u.preForm(w, r) {
		return
	}
	if u.setupDone(w, r) {
		return
	}
	ctx := r.Context()
	d := authData{Title: "Welcome to Earshot", CSRF: u.preCSRF(w, r), Form: r.PostForm, Token: r.PostFormValue("token")}
	fail := func(e *capability.Error) {
		d.Error, d.Param = e.Message, e.Param
		u.renderBare(w, e.Status, "setup", d)
	}
	// The token first: without it the form's fields are not even checked.
	if ok, err := u.svc.CheckSetupToken(ctx, d.Token); err != nil {
		u.serverError(w, r, err)
		return
	} else if !ok {
		d.NeedToken, d.Token, d.Form = true, "", nil
		fail(capability.ErrSetupToken())
		return
	}
	email, pw := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("password")
	projName := strings.TrimSpace(r.PostFormValue("project_name"))
	if projName == "" {
		fail(capability.Invalid("project_name", "name your first project (your brand)"))
		return
	}
	// Validate the project input before creating the user.
	projIn, e := u.decode("create_project", url.Values{"name": {projName}, "website": {r.PostFormValue("website")}}, false)
	if e != nil {
		if e.Param == "name" {
			e.Param = "project_name"
		}
		fail(e)
		return
	}
	out, err := u.svc.Setup(ctx, capability.SetupIn{Email: email, Password: pw, FullName: strings.TrimSpace(r.PostFormValue("full_name")),
		Token: d.Token, Project: projIn.(*capability.CreateProjectIn)})
	if err != nil {
		e, known := capability.AsError(err, "user")
		if !known {
			u.log.Error("setup", "err", err)
		}
		fail(e)
		return
	}
	u.setCookie(w, r, SessionCookie, out.Session.Token, int(u.svc.Config.SessionTTL.Seconds()))
	if out.ProjectID != "" {
		u.setCookie(w, r, projectCookie, out.ProjectID, 365*24*3600)
	}
	u.setCookie(w, r, flashCookie, url.QueryEscape("Welcome! Create a monitor to start collecting mentions."), 60)
	u.redirect(w, r, "/monitors/new")
}

// session runs a session operation (create_session, delete_session) of the
// catalogue, as REST does, with the request's client address for the login
// limiter.
func (u *UI) session(r *http.Request, p *capability.Principal, name string, in any) capability.Outcome {
	c, ok := u.svc.SessionCapability(name)
	if !ok {
		return capability.Outcome{Status: http.StatusInternalServerError, Err: capability.Internal()}
	}
	ctx := capability.WithClient(r.Context(), capability.ClientAddr(r.RemoteAddr))
	o := u.svc.Execute(ctx, c, p, in, "")
	if o.Cause != nil {
		u.log.Error("ui session", "capability", name, "err", o.Cause)
	}
	return o
}

// newProject shows the create-project form (also the landing page of a user
// without any project).
func (u *UI) newProject(w http.ResponseWriter, r *http.Request, pg *page, _ httprouter.Params) {
	pg.Title, pg.Nav = "New project", "settings"
	u.render(w, pg, "project_new")
}
