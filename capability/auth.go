package capability

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"

	"earshot/api"
	"earshot/store"
)

// Authenticate resolves a bearer token (API key or session token) into a
// principal. projectHeader is the Earshot-Project header; projectHint is a
// project id the request is about (used when the header is absent).
func (s *Service) Authenticate(ctx context.Context, token, projectHeader, projectHint string) (*Principal, error) {
	projectHeader, projectHint = CanonicalID(projectHeader), CanonicalID(projectHint)
	switch {
	case strings.HasPrefix(token, "esk_"):
		if !WellFormedKey(token) {
			return nil, Unauthorized("malformed API key")
		}
		k, err := s.Store.APIKeyByHash(ctx, HashKey(token))
		if errors.Is(err, store.ErrNotFound) {
			return nil, Unauthorized("unknown or revoked API key")
		}
		if err != nil {
			return nil, err
		}
		return s.keyPrincipal(ctx, k, projectHeader)
	case strings.HasPrefix(token, OAuthAccessPrefix):
		return s.authenticateOAuth(ctx, token, projectHeader)
	case strings.HasPrefix(token, "ess_"):
		sess, err := s.liveSession(ctx, token)
		if errors.Is(err, store.ErrNotFound) {
			return nil, Unauthorized("unknown or expired session")
		}
		if err != nil {
			return nil, err
		}
		return s.SessionPrincipal(ctx, sess, projectHeader, projectHint)
	}
	return nil, Unauthorized("unknown credential")
}

// SessionPrincipal builds the principal of a session in the chosen project:
// the Earshot-Project header, else the project the request is about (when
// the user belongs to it), else the user's only project.
func (s *Service) SessionPrincipal(ctx context.Context, sess *store.Session, projectHeader, projectHint string) (*Principal, error) {
	p := userPrincipal(sess)
	choose := func(id string) (bool, error) {
		role, err := s.Store.Membership(ctx, id, sess.UserID)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		p.ProjectID, p.Role, p.Scopes = id, role, RoleScopes[role]
		return true, nil
	}
	if projectHeader != "" {
		ok, err := choose(projectHeader)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, NotFound("project")
		}
		return p, nil
	}
	if projectHint != "" {
		// The request is about this project: one the user is not a member of is
		// not found, whatever else the user belongs to
		// (docs/decisions.md#credentials).
		ok, err := choose(projectHint)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, NotFound("project")
		}
		return p, nil
	}
	ps, err := s.Store.ProjectsForUser(ctx, sess.UserID)
	if err != nil {
		return nil, err
	}
	if len(ps) == 1 {
		if _, err := choose(ps[0].ID); err != nil {
			return nil, err
		}
	}
	// Several projects and none chosen: only project-less operations pass.
	return p, nil
}

// DefaultSessionIdle is how long an unused session lives (ASVS V3.3: an
// idle timeout besides the absolute 30 days); EARSHOT_SESSION_IDLE changes it.
const DefaultSessionIdle = 12 * time.Hour

// liveSession finds the session of token, unexpired and used within the
// idle limit, and records this use.
func (s *Service) liveSession(ctx context.Context, token string) (*store.Session, error) {
	var idleSince time.Time
	if s.Config.SessionIdle > 0 {
		idleSince = time.Now().Add(-s.Config.SessionIdle)
	}
	sess, err := s.Store.SessionByToken(ctx, token, idleSince)
	if err != nil {
		return nil, err
	}
	s.touchSession(ctx, sess.ID)
	return sess, nil
}

// touchSession records a session's use at most once a minute per process
// (the idle limit is hours; reads need not queue on the writer).
func (s *Service) touchSession(ctx context.Context, id string) {
	now := time.Now()
	if last, ok := s.sessTouched.Load(id); ok && now.Sub(last.(time.Time)) < time.Minute {
		return
	}
	s.sessTouched.Store(id, now)
	if err := s.Store.TouchSession(context.WithoutCancel(ctx), id, now.UTC()); err != nil {
		s.Log.Warn("recording session use", "session_id", id, "err", err)
	}
}

// touchKey records a key's last use at most once a minute per process, so
// reads never queue on the single writer just to bump a timestamp.
func (s *Service) touchKey(ctx context.Context, id string) {
	now := time.Now()
	if last, ok := s.keyTouched.Load(id); ok && now.Sub(last.(time.Time)) < time.Minute {
		return
	}
	s.keyTouched.Store(id, now)
	if err := s.Store.TouchAPIKey(context.WithoutCancel(ctx), id); err != nil {
		s.Log.Warn("recording key use", "key_id", id, "err", err)
	}
}

// ---- users, passwords and sessions (create_session and delete_session,
// in sessions.go, are the operations bindings call) ----

func hashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	return string(h), err
}

// CreateUser creates a dashboard user with a bcrypt password hash.
func (s *Service) CreateUser(ctx context.Context, email, password, fullName string) (*store.User, error) {
	if err := checkFormat("email", email); err != nil {
		return nil, Invalid("email", "email %s", err)
	}
	if err := checkPassword("password", password, email); err != nil {
		return nil, err
	}
	h, err := hashPassword(password)
	if err != nil {
		return nil, err
	}
	u, err := s.Store.CreateUser(ctx, email, h, fullName)
	if errors.Is(err, store.ErrConflict) {
		return nil, Conflict("a user with this email exists")
	}
	return u, err
}

// SetPassword replaces a user's password, ends all their sessions and
// revokes the API keys their sessions minted: the admin's reset on the box
// (earshot user set-password), used when an account may be in someone
// else's hands.
func (s *Service) SetPassword(ctx context.Context, email, password string) (*CredentialsReset, error) {
	if err := checkPassword("password", password, email); err != nil {
		return nil, err
	}
	u, err := s.Store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("user")
	}
	if err != nil {
		return nil, err
	}
	h, err := hashPassword(password)
	if err != nil {
		return nil, err
	}
	n, keys, err := s.Store.ResetCredentials(ctx, u.ID, h, "")
	if err != nil {
		return nil, err
	}
	return &CredentialsReset{SessionsRevoked: n, KeysRevoked: store.APIKeyRecords(keys)}, nil
}

// CredentialsReset is what a password change or reset ended.
type CredentialsReset struct {
	SessionsRevoked int           `json:"sessions_revoked" doc:"How many other sessions of the account were logged out."`
	KeysRevoked     []*api.APIKey `json:"keys_revoked" doc:"The API keys this account's sessions had created (in any project), now revoked: a session someone else held could have made them. Keys made on the server with earshot key create stay. Create new keys where they are needed."`
}

// LoginResult is what POST /api/v1/auth/sessions returns.
type LoginResult struct {
	Token     string `json:"token" doc:"Session token (ess_…), shown once: send it as Authorization: Bearer."`
	ExpiresAt string `json:"expires_at" doc:"When the session ends (RFC 3339, UTC)."`
	UserID    string `json:"user_id" doc:"The logged-in user's id."`
}

// dummyHash is compared against for an unknown email, at the cost real
// hashes have, so the answer takes as long whether the account exists or
// not (a cheaper dummy made unknown emails answer ~20 times faster).
var dummyHash = sync.OnceValue(func() []byte {
	h, err := bcrypt.GenerateFromPassword([]byte("earshot-dummy-password"), bcrypt.DefaultCost)
	if err != nil {
		panic(fmt.Sprintf("bcrypt: %v", err))
	}
	return h
})

// Login checks a password and opens a session. client is the caller's
// network address (the login limiter's key with the email); "" when unknown.
func (s *Service) Login(ctx context.Context, email, password, client string) (*LoginResult, error) {
	key := strings.ToLower(strings.TrimSpace(email))
	if wait := s.logins.admit(key, client, time.Now()); wait > 0 {
		return nil, loginLimited(wait)
	}
	u, err := s.Store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		s.logins.record(key, client, false, time.Now())
		return nil, Unauthorized("wrong email or password")
	}
	if err != nil {
		return nil, err
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		s.logins.record(key, client, false, time.Now())
		return nil, Unauthorized("wrong email or password")
	}
	s.logins.record(key, client, true, time.Now())
	return s.StartSession(ctx, u.ID)
}

// StartSession opens a session for a user whose identity is already
// established (right after the first-run setup created them).
func (s *Service) StartSession(ctx context.Context, userID string) (*LoginResult, error) {
	tok := "ess_" + randToken(32)
	sess, err := s.Store.CreateSession(ctx, userID, tok, s.Config.SessionTTL)
	if err != nil {
		return nil, err
	}
	return &LoginResult{Token: tok, ExpiresAt: store.FormatTime(sess.ExpiresAt), UserID: userID}, nil
}

// ClientAddr is the network address a request came from, the login
// limiter's key. The HTTP server has already put the client's address in
// RemoteAddr: the connection's, or, from a trusted proxy only
// (EARSHOT_TRUSTED_PROXIES), the one its X-Forwarded-For or Forwarded
// names; any client could write those headers.
//
// An IPv6 client is its /64: a host is routinely given a whole /64 and
// may use any address of it, so keying the full address gave one client
// 2^64 fresh login budgets. An IPv4-mapped address is its IPv4 address.
func ClientAddr(remoteAddr string) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}

// LimitedError is a 429 with the wait a client should honour (Retry-After).
type LimitedError struct {
	Err        *Error
	RetryAfter time.Duration
}

func (e *LimitedError) Error() string { return e.Err.Error() }

// Unwrap lets AsError find the API error.
func (e *LimitedError) Unwrap() error { return e.Err }

// RetryAfterSeconds is the wait rounded up to whole seconds (at least 1).
func (e *LimitedError) RetryAfterSeconds() int {
	return max(1, int((e.RetryAfter+time.Second-1)/time.Second))
}

func loginLimited(wait time.Duration) error {
	e := &LimitedError{RetryAfter: wait}
	e.Err = &Error{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED",
		Message: fmt.Sprintf("too many failed logins; retry in %d seconds", e.RetryAfterSeconds())}
	return e
}

// loginGuard slows password guessing without locking the real user out:
//
//   - per (email, client address): five failures are free, then each one
//     doubles the wait before the next try (1 s, 2 s, 4 s … at most 15
//     minutes); a success clears it. The same email from another address
//     is not affected, so an attacker cannot lock the owner out.
//   - per client address, across emails: a bucket of 30 attempts refilled
//     at one every 2 seconds, so spraying one password over many emails is
//     as slow as guessing one.
//
// The zero value is ready to use.
type loginGuard struct {
	mu     sync.Mutex
	pairs  map[string]*loginFailures
	addrs  map[string]*rate.Limiter
	lastGC time.Time
}

type loginFailures struct {
	n    int
	last time.Time
}

const (
	loginFreeFailures = 5
	loginMaxWait      = 15 * time.Minute
	loginAddrBurst    = 30
	loginAddrEvery    = 2 * time.Second
	loginForgetAfter  = time.Hour
)

func (f *loginFailures) until() time.Time {
	if f.n < loginFreeFailures {
		return time.Time{}
	}
	wait := loginMaxWait
	if shift := f.n - loginFreeFailures; shift < 20 {
		wait = min(time.Second<<shift, loginMaxWait)
	}
	return f.last.Add(wait)
}

func (g *loginGuard) init(now time.Time) {
	if g.pairs == nil {
		g.pairs, g.addrs, g.lastGC = map[string]*loginFailures{}, map[string]*rate.Limiter{}, now
	}
	if now.Sub(g.lastGC) > time.Minute {
		for k, f := range g.pairs {
			if now.Sub(f.last) > loginForgetAfter {
				delete(g.pairs, k)
			}
		}
		for k, l := range g.addrs {
			if l.TokensAt(now) >= loginAddrBurst {
				delete(g.addrs, k)
			}
		}
		g.lastGC = now
	}
}

func (g *loginGuard) addr(client string) *rate.Limiter {
	l, ok := g.addrs[client]
	if !ok {
		l = rate.NewLimiter(rate.Every(loginAddrEvery), loginAddrBurst)
		g.addrs[client] = l
	}
	return l
}

// admit returns 0 when an attempt may be checked now, else how long to
// wait. An admitted attempt counts as a failure until record says it
// succeeded, so guesses sent all at once are limited like guesses in a row.
func (g *loginGuard) admit(email, client string, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.init(now)
	key := email + "\x00" + client
	f, ok := g.pairs[key]
	if ok {
		if wait := f.until().Sub(now); wait > 0 {
			return wait
		}
	}
	l := g.addr(client)
	if r := l.ReserveN(now, 1); r.DelayFrom(now) > 0 {
		wait := r.DelayFrom(now)
		r.CancelAt(now)
		return wait
	}
	if !ok {
		f = &loginFailures{}
		g.pairs[key] = f
	}
	f.n++
	f.last = now
	return 0
}

// record settles an admitted attempt: a success clears the failures of
// (email, client). (The address bucket keeps the token: it limits attempts,
// so a shared address with many real logins gets 30 at once, then one
// every 2 seconds.)
func (g *loginGuard) record(email, client string, ok bool, now time.Time) {
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pairs, email+"\x00"+client)
}

// ---- the account's own operations ----

type ChangePasswordIn struct {
	CurrentPassword string `json:"current_password" validate:"required,maxlen=200" doc:"The account's current password."`
	NewPassword     string `json:"new_password" validate:"required,maxlen=200" doc:"The new password: at least 12 characters (not counting spaces at either end or repeated spaces), at most 72 bytes, not a common password nor built on the account's email."`
}

// MarshalJSON leaves the passwords out of what is kept of the request
// (the idempotency record's request hash): a stored hash of a password is
// not what an idempotency key should cost.
func (in ChangePasswordIn) MarshalJSON() ([]byte, error) { return []byte(`{}`), nil }

type ChangePasswordOut struct {
	Changed bool `json:"changed"`
	CredentialsReset
	Message string `json:"message"`
}

func (s *Service) accountCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "change_password", Title: "Change the password", Group: "account", Method: "POST", Path: "/api/v1/account/password",
			Scope: ProjectsRead, Write: true, SessionOnly: true, NoProject: true,
			Description: "Change the logged-in user's password, given the current one. Every other session of the account is logged out (the calling session stays) and every API key the account's sessions created, in any project, is revoked and listed in keys_revoked; keys made on the server with earshot key create stay."},
			s.changePassword),
	}
}

func (s *Service) changePassword(ctx context.Context, p *Principal, in *ChangePasswordIn) (*ChangePasswordOut, error) {
	u, err := s.Store.UserByID(ctx, p.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("account")
	}
	if err != nil {
		return nil, err
	}
	// A stolen session must not make guessing the current password cheap:
	// the login limiter counts these attempts per (account, session).
	key := strings.ToLower(u.Email)
	client := "session:" + p.SessionID
	if wait := s.logins.admit(key, client, time.Now()); wait > 0 {
		return nil, loginLimited(wait)
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(in.CurrentPassword)) != nil {
		s.logins.record(key, client, false, time.Now())
		return nil, Invalid("current_password", "current_password is not this account's password")
	}
	s.logins.record(key, client, true, time.Now())
	if err := checkPassword("new_password", in.NewPassword, u.Email); err != nil {
		return nil, err
	}
	if in.NewPassword == in.CurrentPassword {
		return nil, Invalid("new_password", "new_password must differ from the current password")
	}
	h, err := hashPassword(in.NewPassword)
	if err != nil {
		return nil, err
	}
	n, keys, err := s.Store.ResetCredentials(ctx, u.ID, h, p.SessionID)
	if err != nil {
		return nil, err
	}
	return &ChangePasswordOut{Changed: true, CredentialsReset: CredentialsReset{SessionsRevoked: n, KeysRevoked: store.APIKeyRecords(keys)},
		Message: changedMessage(n, len(keys))}, nil
}

// changedMessage says what a password change ended, for people.
func changedMessage(sessions, keys int) string {
	msg := "Password changed. This session stays logged in; "
	switch sessions {
	case 0:
		msg += "no other session was open"
	case 1:
		msg += "1 other session was logged out"
	default:
		msg += fmt.Sprintf("%d other sessions were logged out", sessions)
	}
	switch keys {
	case 0:
		msg += "; no API key was revoked."
	case 1:
		msg += "; 1 API key made from a session was revoked (create a new one where it was used)."
	default:
		msg += fmt.Sprintf("; %d API keys made from sessions were revoked (create new ones where they were used).", keys)
	}
	return msg
}
