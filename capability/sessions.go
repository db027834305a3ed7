package capability

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"earshot/store"
)

// The session operations make or end the credential every other capability
// runs under. They are declared here like any capability (typed input and
// output, tags, one function), so REST, the dashboard and the OpenAPI
// document bind the same definition; they are not MCP tools (an agent
// already holds a credential) and not dashboard form actions.

// Names of the session operations (REST operationIds and meta.capability).
const (
	CreateSession = "create_session"
	DeleteSession = "delete_session"
)

// UserScopes is what a session holds outside any project: enough for the
// user's own account and project list (create_project, update_account).
var UserScopes = []string{ProjectsRead, ProjectsWrite}

// LoginIn is the body of create_session.
type LoginIn struct {
	Email string `json:"email" validate:"required" doc:"The dashboard user's email."`
	// format=password: white space is meaningful in a password (a blank
	// one is refused at login as a wrong password, not as a bad request).
	Password string `json:"password" validate:"required,minlen=1,format=password" doc:"The user's password."`
}

// MarshalJSON leaves the password out of anything that logs or hashes the
// input.
func (in LoginIn) MarshalJSON() ([]byte, error) { return []byte(`{}`), nil }

// LogoutOut is what delete_session returns.
type LogoutOut struct {
	Deleted bool `json:"deleted" doc:"Always true: the session has ended."`
}

func (s *Service) sessionCaps() []*Capability {
	return append([]*Capability{
		Define(Capability{Name: CreateSession, Title: "Log in (create a session)", Group: "session", Method: "POST", Path: "/api/v1/auth/sessions",
			SessionOp: true, Public: true, NoProject: true,
			Description: "Exchanges a dashboard user's email and password for a session token, a bearer credential for the API and MCP (choose the project with `Earshot-Project`). " +
				"Failed attempts are limited per (email, client address) with a growing wait, and per client address across emails; an unknown email takes as long as a wrong password."},
			s.createSession),
		Define(Capability{Name: DeleteSession, Title: "Log out (end this session)", Group: "session", Method: "DELETE", Path: "/api/v1/auth/sessions/current",
			SessionOp: true, SessionOnly: true, NoProject: true,
			Description: "Ends the session whose token authenticates the request. API keys get 403."},
			s.deleteSession),
	}, s.passwordResetCaps()...)
}

// SessionCapabilities returns the session operations (create_session,
// delete_session), bound by REST and the dashboard but kept out of
// Capabilities: they are not MCP tools, CLI calls or dashboard actions.
func (s *Service) SessionCapabilities() []*Capability { return s.sessions }

// SessionCapability returns one session operation by name.
func (s *Service) SessionCapability(name string) (*Capability, bool) {
	for _, c := range s.sessions {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

func (s *Service) createSession(ctx context.Context, _ *Principal, in *LoginIn) (*LoginResult, error) {
	return s.Login(ctx, in.Email, in.Password, clientFrom(ctx))
}

func (s *Service) deleteSession(ctx context.Context, p *Principal, _ *Empty) (*LogoutOut, error) {
	if p.Kind != KindSession || p.SessionID == "" {
		return nil, Forbidden("only a session can log out")
	}
	if err := s.Store.DeleteSession(ctx, p.SessionID); err != nil {
		return nil, err
	}
	return &LogoutOut{Deleted: true}, nil
}

type clientKey struct{}

// WithClient records the network address a request came from (see
// ClientAddr), the login limiter's key, for create_session.
func WithClient(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientKey{}, addr)
}

func clientFrom(ctx context.Context) string {
	addr, _ := ctx.Value(clientKey{}).(string)
	return addr
}

// userPrincipal is a session without a project, for project-less
// capabilities: what REST gives a session that names no project.
func userPrincipal(sess *store.Session) *Principal {
	return &Principal{Kind: KindSession, UserID: sess.UserID, SessionID: sess.ID, Scopes: slices.Clone(UserScopes)}
}

// ---- the dashboard's session: resumed from its cookie ----

// DashboardSession is a logged-in dashboard user: the user, their
// projects, the current one and the principal the pages run as. It carries
// the dashboard's own records, not storage rows, so the dashboard needs no
// store types.
type DashboardSession struct {
	sess     *store.Session
	User     *Account
	Projects []*UserProject
	Current  *UserProject // nil when the user belongs to no project
	// Principal acts in Current, or is the user's project-less principal.
	Principal *Principal
}

// Account is the logged-in user as the dashboard shows them.
type Account struct {
	ID       string
	Email    string
	FullName string
	TimeZone string // IANA name; "" is UTC
}

// UserProject is one of the user's projects, for the project switcher.
type UserProject struct {
	ID       string
	Name     string
	Role     string
	Archived bool
}

// UserPrincipal is the session's principal outside any project (for
// create_project, accept_invitation, delete_session).
func (d *DashboardSession) UserPrincipal() *Principal { return userPrincipal(d.sess) }

// ProjectPrincipal is the session's principal in projectID; NotFound when
// the user is not a member.
func (s *Service) ProjectPrincipal(ctx context.Context, d *DashboardSession, projectID string) (*Principal, error) {
	if projectID == "" {
		return nil, NotFound("project")
	}
	return s.SessionPrincipal(ctx, d.sess, projectID, "")
}

// ErrNoSession is ResumeSession's answer for an unknown or expired token.
var ErrNoSession = errors.New("no session")

// ResumeSession resolves a dashboard session token. want is the project the
// user last chose (a cookie); one they no longer belong to, or none, falls
// back to their first project. Membership is checked again by
// SessionPrincipal, as for REST.
func (s *Service) ResumeSession(ctx context.Context, token, want string) (*DashboardSession, error) {
	sess, err := s.liveSession(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	user, err := s.Store.UserByID(ctx, sess.UserID)
	if err != nil {
		return nil, err
	}
	projs, err := s.Store.ProjectsForUser(ctx, sess.UserID)
	if err != nil {
		return nil, err
	}
	d := &DashboardSession{sess: sess, User: &Account{ID: user.ID, Email: user.Email, FullName: user.FullName, TimeZone: user.TimeZone}}
	for _, pr := range projs {
		up := &UserProject{ID: pr.ID, Name: pr.Name, Role: pr.Role, Archived: pr.Archived()}
		d.Projects = append(d.Projects, up)
		if pr.ID == want {
			d.Current = up
		}
	}
	if d.Current == nil && len(d.Projects) > 0 {
		d.Current = d.Projects[0]
	}
	if d.Current == nil {
		d.Principal = userPrincipal(sess)
		return d, nil
	}
	d.Principal, err = s.SessionPrincipal(ctx, sess, d.Current.ID, "")
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ---- first run ----

// SetupOpen reports whether the first-run setup is open: no user exists.
func (s *Service) SetupOpen(ctx context.Context) (bool, error) {
	n, err := s.Store.CountUsers(ctx)
	return n == 0, err
}

// setupTokenSecret names the installation secret the setup token is: in
// the database, so on PostgreSQL every process prints and accepts the same
// one, and a restart does not change it.
const setupTokenSecret = "setup_token"

// SetupToken is the one-time token the first-run setup asks for (128
// random bits, hex): serve prints it in its log while no user exists, so
// whoever reaches /setup first over the network cannot take the
// installation, only whoever can read the server's log.
func (s *Service) SetupToken(ctx context.Context) (string, error) {
	b, err := s.Store.InstallationSecret(ctx, setupTokenSecret, 16)
	if err != nil {
		return "", fmt.Errorf("setup token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// CheckSetupToken reports whether token is the setup token (compared in
// constant time).
func (s *Service) CheckSetupToken(ctx context.Context, token string) (bool, error) {
	want, err := s.SetupToken(ctx)
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(strings.ToLower(strings.TrimSpace(token)))) == 1, nil
}

// ErrSetupToken answers a setup without the right token.
func ErrSetupToken() *Error {
	e := Forbidden("the setup token is missing or wrong: earshot serve prints the setup link, with its token, in its log while no user exists")
	e.Param = "token"
	return e
}

// SetupIn is the first-run form: the owner's account and a first project.
type SetupIn struct {
	Email, Password, FullName string
	Token                     string           // the setup token serve printed
	Project                   *CreateProjectIn // decoded by the binding, as create_project's input
}

// SetupOut is the owner's session and the first project's id ("" when the
// project could not be created: the owner can create one from the
// dashboard).
type SetupOut struct {
	Session   *LoginResult
	ProjectID string
}

// Setup creates the first user, opens their session and creates their
// first project with create_project. It answers 409 once a user exists.
func (s *Service) Setup(ctx context.Context, in SetupIn) (*SetupOut, error) {
	open, err := s.SetupOpen(ctx)
	if err != nil {
		return nil, err
	}
	if !open {
		return nil, Conflict("setup is over: a user exists; log in")
	}
	if ok, err := s.CheckSetupToken(ctx, in.Token); err != nil {
		return nil, err
	} else if !ok {
		return nil, ErrSetupToken()
	}
	u, err := s.CreateUser(ctx, in.Email, in.Password, in.FullName)
	if err != nil {
		return nil, err
	}
	res, err := s.StartSession(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	out := &SetupOut{Session: res}
	sess, err := s.Store.SessionByToken(ctx, res.Token, time.Time{})
	if err != nil {
		return nil, err
	}
	o := s.Execute(ctx, s.byName["create_project"], userPrincipal(sess), in.Project, "")
	if o.Err != nil {
		if o.Cause != nil {
			s.Log.Error("setup: first project", "err", o.Cause)
		}
		return out, nil
	}
	if p, ok := o.Data.(*CreateProjectOut); ok {
		out.ProjectID = p.ID
	}
	return out, nil
}
