// Package ui is Earshot's dashboard and public pages: server-rendered
// html/template pages with a little progressive JavaScript, embedded in the
// binary. It is a binding over the capability service and holds no store.
// A page's reads and changes run catalogue capabilities through
// Service.Execute with the session's principal, as REST and MCP do, so
// validation and authorization are shared; logging in and out run the
// catalogue's session operations (create_session, delete_session). What
// happens before there is a principal to run as is an operation of the
// service: resuming the session cookie (ResumeSession), first-run setup
// (SetupOpen, Setup), an invitation link (PreviewInvitation,
// SignUpWithInvitation) and the public page (PublicPage). The templates
// show the records the service returns (package api, the capabilities'
// outputs, DashboardSession's Account and UserProject), never storage rows:
// the package does not import store (server/doors_test.go checks it).
package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Cookie names.
const (
	SessionCookie = "earshot_session"
	projectCookie = "earshot_project"
	flashCookie   = "earshot_flash"
	preCSRFCookie = "earshot_precsrf" // double-submit token for forms before login
	csrfField     = "_csrf"
	csrfHeader    = "X-CSRF-Token"
)

// UI serves the dashboard and the public pages.
type UI struct {
	svc    *capability.Service
	log    *slog.Logger
	secure bool   // cookies get Secure (the base URL is https)
	base   string // the base URL's path ("/earshot"; "" at the root), see base.go
	tpl    *templates
	cop    *http.CrossOriginProtection
	now    func() time.Time
	stash  stash // failed forms and shown-once results, for Post/Redirect/Get
	opts   Options
}

// New builds the UI over the capability service.
func New(svc *capability.Service, opts Options) *UI {
	u := &UI{svc: svc, log: svc.Log, secure: strings.HasPrefix(svc.Config.BaseURL, "https://"), base: basePath(svc.Config.BaseURL),
		cop: http.NewCrossOriginProtection(), now: func() time.Time { return time.Now().UTC() }, opts: opts}
	if u.log == nil {
		u.log = slog.Default()
	}
	u.tpl = mustTemplates()
	return u
}

// Mount registers the UI's routes on r. Routes are explicit (httprouter
// cannot mix a root catch-all with /api/v1).
func (u *UI) Mount(r *httprouter.Router) {
	// Every request of a logged-in session is charged to the session's
	// rate-limit bucket (limit.go): a page or call one token, one that
	// runs a heavy operation that operation's cost.
	one := func(httprouter.Params) int { return 1 }
	costly := func(path, capName string, h pageHandler) { r.GET(path, u.metered(u.routeCost(capName), u.authed(h))) }
	page := func(path string, h pageHandler) { r.GET(path, u.metered(one, u.authed(h))) }
	page("/", u.inbox)
	page("/inbox", u.inbox)
	page("/mentions/:id", u.mention)
	costly("/monitors", "get_mention_stats", u.monitors)
	page("/monitors/:id", u.monitorForm)
	costly("/groups", "get_share_of_voice", u.groups)
	page("/alerts", u.alerts)
	page("/webhooks", u.webhooks)
	page("/webhooks/:id", u.webhookDeliveries)
	page("/categories", u.categories)
	page("/members", u.members)
	page("/keys", u.keys)
	page("/account", u.account)
	page("/usage", u.usage)
	page("/settings", u.settings)
	costly("/wall", "preview_public_page", u.wallPreview)
	page("/projects/new", u.newProject)

	r.GET("/login", u.loginPage)
	r.POST("/login", u.loginSubmit)
	r.GET("/setup", u.setupPage)
	r.POST("/setup", u.setupSubmit)
	r.POST("/logout", u.metered(one, u.logout))
	r.POST("/switch", u.metered(one, u.switchProject))
	r.POST("/a/:cap", u.metered(u.actionCost, u.action))

	// Small JSON/fragment endpoints for the inbox's JavaScript.
	r.GET("/ui/mentions", u.metered(one, u.authedAPI(u.mentionRows)))
	r.GET("/ui/poll", u.metered(one, u.authedAPI(u.pollMentions)))
	r.GET("/ui/overview", u.metered(u.routeCost("get_mention_stats"), u.authedAPI(u.overviewFragment)))
	r.POST("/ui/status", u.metered(one, u.authedAPI(u.setStatus)))
	r.POST("/ui/preview", u.metered(u.routeCost("preview_monitor"), u.authedAPI(u.preview)))
	r.POST("/ui/density", u.metered(one, u.setDensity))
	r.GET("/export.csv", u.metered(u.routeCost("export_mentions"), u.exportCSV))

	r.GET("/p/:slug", u.publicPage)

	sub, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	r.GET("/static/*filepath", func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		// Files only: http.FileServer would list a directory's contents,
		// which tells a visitor nothing they need and maps the bundle.
		name := strings.TrimPrefix(path.Clean("/"+ps.ByName("filepath")), "/")
		if st, err := fs.Stat(sub, name); name == "" || err != nil || st.IsDir() {
			u.NotFound(w, req)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, req)
	})
}

// ---- sessions and principals ----

// session is the logged-in user of a request.
type session struct {
	token string
	d     *capability.DashboardSession
	user  *capability.Account
	p     *capability.Principal // in the current project ("" when the user has none)
	projs []*capability.UserProject
	cur   *capability.UserProject
}

var errNoSession = errors.New("no session")

// loadSession resolves the session cookie and the current project (cookie,
// validated by membership; else the user's first project).
func (u *UI) loadSession(r *http.Request) (*session, error) {
	if s, ok := r.Context().Value(sessionCtxKey{}).(*session); ok {
		return s, nil // resolved by metered
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, errNoSession
	}
	want := ""
	if pc, err := r.Cookie(projectCookie); err == nil {
		want = pc.Value
	}
	d, err := u.svc.ResumeSession(r.Context(), c.Value, want)
	if errors.Is(err, capability.ErrNoSession) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, err
	}
	return &session{token: c.Value, d: d, user: d.User, p: d.Principal, projs: d.Projects, cur: d.Current}, nil
}

// csrfToken is an HMAC keyed by the session token: unforgeable without the
// (HttpOnly) cookie, stable across restarts, different per session.
func csrfToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("earshot-csrf-v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF refuses cross-origin requests (Sec-Fetch-Site / Origin) and a
// missing or wrong token.
func (u *UI) checkCSRF(r *http.Request, want string) error {
	if err := u.cop.Check(r); err != nil {
		return err
	}
	got := r.Header.Get(csrfHeader)
	if got == "" {
		got = r.PostFormValue(csrfField)
	}
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errors.New("missing or invalid CSRF token")
	}
	return nil
}

func (u *UI) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: u.base + "/", HttpOnly: true, Secure: u.secureRequest(r),
		SameSite: http.SameSiteLaxMode, MaxAge: maxAge})
}

func randString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ---- page plumbing ----

type pageHandler func(w http.ResponseWriter, r *http.Request, pg *page, ps httprouter.Params)

// page is what every dashboard template gets.
type page struct {
	Title    string
	Nav      string
	User     *capability.Account
	P        *capability.Principal
	Projects []*capability.UserProject
	Project  *capability.UserProject
	CSRF     string
	Flash    string
	Err      *capability.Error   // the failed action being re-rendered
	Errs     []*capability.Error // every field error of it, Err's first (see allErrors)
	ErrCap   string              // its capability
	ErrForm  string              // which form failed: its key (see Failed)
	Result   any                 // a successful action's output shown once (secrets)
	ResCap   string
	Form     url.Values // the submitted form, to refill the controls
	Path     string     // this page's path and query, for _back
	Data     any
	Now      time.Time
	Status   int
	Dropped  int       // posts the quota dropped this period: the banner
	start    time.Time // request start, for Server-Timing
	svc      *capability.Service
}

// navLink is an entry of the main navigation; Scope, when set, is what a
// role needs to open the page (a link that only leads to a 403 is left out).
type navLink struct{ Key, Href, Label, Scope string }

var navLinks = []navLink{
	{"inbox", "/", "Inbox", ""}, {"monitors", "/monitors", "Monitors", ""}, {"groups", "/groups", "Share of voice", ""},
	{"alerts", "/alerts", "Alerts", ""}, {"webhooks", "/webhooks", "Webhooks", capability.WebhooksWrite},
	{"categories", "/categories", "Categories", ""}, {"members", "/members", "Members", ""}, {"keys", "/keys", "API keys", ""},
	{"usage", "/usage", "Usage", ""}, {"settings", "/settings", "Settings", ""}, {"account", "/account", "Account", ""},
}

// NavLinks is the main navigation for this principal.
func (p *page) NavLinks() []navLink {
	var out []navLink
	for _, l := range navLinks {
		if l.Scope == "" || p.Can(l.Scope) {
			out = append(out, l)
		}
	}
	return out
}

// Can reports whether the current principal holds scope.
func (p *page) Can(scope string) bool { return p.P != nil && p.P.Has(scope) }

// FieldErr is the message of the failed action's error that names field.
func (p *page) FieldErr(field string) string {
	if e := p.fieldErr(field); e != nil {
		return e.Message
	}
	return ""
}

func (p *page) fieldErr(field string) *capability.Error {
	for _, e := range p.Errs {
		if e.Param == "" {
			continue
		}
		if e.Param == field || strings.HasPrefix(e.Param, field+"[") || strings.HasPrefix(e.Param, field+".") {
			return e
		}
	}
	return nil
}

// A form key names one form on a page: the capability's name for a page's
// only form of it (the create forms), "capability:id" for one item's edit
// form among many (sent as the hidden _form field). The helpers below take
// a key, so a failed edit re-renders that item's form open, with its typed
// values and its errors, and leaves the others as stored.

// Failed reports whether the form key is the one that failed.
func (p *page) Failed(key string) bool { return p.Err != nil && p.ErrForm == key }

// FormErr is the messages of the failed form key's errors that no shown
// field takes ("" as the key: any failed form).
func (p *page) FormErr(key string, fields ...string) string {
	if p.Err == nil || (key != "" && p.ErrForm != key) {
		return ""
	}
	taken := map[*capability.Error]bool{}
	for _, f := range fields {
		if e := p.fieldErr(f); e != nil {
			taken[e] = true
		}
	}
	var msgs []string
	for _, e := range p.Errs {
		if !taken[e] {
			msgs = append(msgs, e.Message)
		}
	}
	return strings.Join(msgs, " ")
}

// ErrFor is FieldErr limited to one form key.
func (p *page) ErrFor(key, field string) string {
	if p.ErrForm != key {
		return ""
	}
	return p.FieldErr(field)
}

// V refills a control: the submitted value of the failed form key, else def.
func (p *page) V(key, field string, def any) any {
	if p.Failed(key) {
		if vs, ok := p.Form[field]; ok {
			return strings.Join(vs, "\n")
		}
	}
	return def
}

// Default is the catalogue's default of a capability's field, for a form
// control's initial value: the form offers what the API would do when the
// field is left out, and never a copy of it.
func (p *page) Default(capName, field string) any {
	if p.svc != nil {
		if c, ok := p.svc.Capability(capName); ok {
			if v, ok := c.Default(field); ok {
				return v
			}
		}
	}
	return ""
}

// fieldState is one control's error: its message and the control's id.
// The error paragraph gets the id "{id}-err" and the control names it in
// aria-describedby, so a screen reader reads the error with the field.
type fieldState struct{ ID, Msg string }

func fieldErr(id, msg string) fieldState { return fieldState{ID: id, Msg: msg} }

// Attrs marks the control invalid when it has an error.
func (f fieldState) Attrs() template.HTMLAttr {
	if f.Msg == "" {
		return ""
	}
	return template.HTMLAttr(` aria-invalid="true" aria-describedby="` + template.HTMLEscapeString(f.ID) + `-err"`)
}

// actionState is what a form's POST leaves for the page it redirects to (prg.go).
type actionState struct {
	err    *capability.Error
	errs   []*capability.Error // every field's error, err's first
	cap    string
	key    string // the failed form's key (see Failed), from formKey
	form   url.Values
	result any
}

func (u *UI) authed(h pageHandler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		start := time.Now()
		s, err := u.loadSession(r)
		if errors.Is(err, errNoSession) {
			u.toLogin(w, r)
			return
		}
		if err != nil {
			u.serverError(w, r, err)
			return
		}
		pg := u.newPage(w, r, s)
		pg.start = start
		if s.cur == nil && r.URL.Path != "/projects/new" && r.URL.Path != "/account" {
			u.redirect(w, r, "/projects/new")
			return
		}
		h(w, r, pg, ps)
	}
}

func (u *UI) newPage(w http.ResponseWriter, r *http.Request, s *session) *page {
	pg := &page{User: s.user, P: s.p, Projects: s.projs, Project: s.cur, CSRF: csrfToken(s.token), Path: r.URL.RequestURI(), Now: u.now(), Status: http.StatusOK, svc: u.svc}
	if s.cur != nil {
		n, err := u.svc.DroppedThisPeriod(r.Context(), s.cur.ID)
		if err != nil {
			u.log.Warn("ui: reading the period's dropped posts", "project_id", s.cur.ID, "err", err)
		}
		pg.Dropped = n
	}
	if c, err := r.Cookie(flashCookie); err == nil {
		if v, err := url.QueryUnescape(c.Value); err == nil {
			pg.Flash = v
		}
		u.setCookie(w, r, flashCookie, "", -1)
	}
	if st := u.takeStash(w, r, s); st != nil {
		pg.Form = st.form
		if st.err == nil {
			pg.Result, pg.ResCap = st.result, st.cap
		} else {
			pg.Err, pg.ErrCap, pg.ErrForm = st.err, st.cap, st.key
			pg.Errs = st.errs
			if len(pg.Errs) == 0 {
				pg.Errs = []*capability.Error{st.err}
			}
		}
	}
	return pg
}

func (u *UI) toLogin(w http.ResponseWriter, r *http.Request) {
	if open, err := u.svc.SetupOpen(r.Context()); err == nil && open {
		u.redirect(w, r, "/setup")
		return
	}
	next := ""
	if r.URL.Path != "/" {
		next = "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	u.redirect(w, r, "/login"+next)
}

func (u *UI) serverError(w http.ResponseWriter, r *http.Request, err error) {
	u.log.Error("ui", "path", r.URL.Path, "err", err)
	u.renderBare(w, http.StatusInternalServerError, "error", map[string]any{"Title": "Something went wrong", "Message": "An internal error occurred; it has been logged."})
}

// exec runs a capability for the page's principal.
func (u *UI) exec(ctx context.Context, p *capability.Principal, name string, in any) capability.Outcome {
	c, ok := u.svc.Capability(name)
	if !ok {
		return capability.Outcome{Status: 500, Err: capability.Internal()}
	}
	o := u.svc.Execute(ctx, c, p, in, "")
	if o.Cause != nil {
		u.log.Error("ui capability", "capability", name, "err", o.Cause)
	}
	return o
}

// localPath accepts only a same-origin path and returns it normalised,
// else def. What a browser would read as another host must never pass:
// "//evil", "/\\evil" (browsers treat a backslash as a slash), a scheme,
// and what only becomes one of those after decoding or cleaning
// ("/a/../%5Cevil" is "/\\evil" once the query is decoded and
// http.Redirect has cleaned it; "/%2F%2Fevil"). So the path is decoded,
// refused if it holds a backslash or a control character (browsers drop
// tabs and newlines from URLs), cleaned with path.Clean, and the result
// re-encoded: what redirects is what was checked.
func localPath(s, def string) string {
	if s == "" || !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || strings.ContainsAny(s, "\\") || hasControl(s) {
		return def
	}
	pu, err := url.Parse(s)
	if err != nil || pu.Scheme != "" || pu.Host != "" || pu.User != nil || pu.Opaque != "" {
		return def
	}
	if strings.ContainsAny(pu.Path, "\\") || hasControl(pu.Path) || !strings.HasPrefix(pu.Path, "/") {
		return def
	}
	clean := path.Clean(pu.Path)
	if strings.HasSuffix(pu.Path, "/") && clean != "/" {
		clean += "/"
	}
	if strings.HasPrefix(clean, "//") {
		return def
	}
	out := (&url.URL{Path: clean, RawQuery: pu.RawQuery}).String()
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") {
		return def
	}
	return out
}

// hasControl reports whether s holds an ASCII control character.
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}
