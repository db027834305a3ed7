package capability

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"earshot/store"
)

// OAuth 2.1 for remote MCP hosts (the MCP authorization spec): clients
// register themselves, a person approves a client for one project and a
// set of scopes on the dashboard's consent page, and the client trades the
// code (with its PKCE verifier) for a short-lived access token and a
// refresh token. The approval is an API key named after the client, so it
// is listed, and revoked, on the keys page like any other; its tokens
// authenticate as that key.

const (
	OAuthAccessPrefix  = "eso_"
	OAuthRefreshPrefix = "esr_"
	OAuthAccessTTL     = time.Hour
	OAuthRefreshTTL    = 30 * 24 * time.Hour
	oauthCodeTTL       = 10 * time.Minute
	oauthKeyNamePrefix = "OAuth: "
	maxRedirectURIs    = 10
	maxRedirectURILen  = 2000
)

// OAuthClient is a registered client (the dashboard's consent page shows it).
type OAuthClient = store.OAuthClient

// OAuthError is an RFC 6749 error answer (error, error_description).
type OAuthError struct {
	Code        string
	Description string
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthErr(code, desc string) error { return &OAuthError{Code: code, Description: desc} }

// OAuthTokens answer a token request.
type OAuthTokens struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    int
	Scopes       []string
}

// RegisterOAuthClient registers a public client (RFC 7591): a name and
// its redirect URIs, each https, an http loopback address (a native app's
// local listener) or a private-use scheme (com.example.app:/cb).
func (s *Service) RegisterOAuthClient(ctx context.Context, name string, redirectURIs []string) (*store.OAuthClient, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "MCP client"
	}
	if len([]rune(name)) > 100 {
		return nil, oauthErr("invalid_client_metadata", "client_name must be at most 100 characters")
	}
	if len(redirectURIs) == 0 || len(redirectURIs) > maxRedirectURIs {
		return nil, oauthErr("invalid_redirect_uri", fmt.Sprintf("redirect_uris must list 1 to %d URIs (got %d)", maxRedirectURIs, len(redirectURIs)))
	}
	for _, u := range redirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return nil, oauthErr("invalid_redirect_uri", err.Error())
		}
	}
	return s.Store.CreateOAuthClient(ctx, name, redirectURIs)
}

func checkRedirectURI(raw string) error {
	if len(raw) > maxRedirectURILen {
		// Not echoed: the error would be as long as the URI.
		return fmt.Errorf("a redirect URI must be at most %d bytes (one is %d)", maxRedirectURILen, len(raw))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return errors.New("redirect URI " + raw + " is not an absolute URI")
	}
	if u.Fragment != "" {
		return errors.New("redirect URI " + raw + " must not have a fragment")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return errors.New("redirect URI " + raw + ": http is allowed only to a loopback address (127.0.0.1, [::1] or localhost)")
	case "javascript", "data", "file", "vbscript":
		return errors.New("redirect URI " + raw + " has a refused scheme")
	}
	if !strings.Contains(u.Scheme, ".") {
		return errors.New("redirect URI " + raw + ": a private-use scheme must be a reversed domain name (com.example.app:/callback)")
	}
	return nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// OAuthClient returns a registered client; a missing one is invalid_client.
func (s *Service) OAuthClient(ctx context.Context, id string) (*store.OAuthClient, error) {
	c, err := s.Store.OAuthClientByID(ctx, CanonicalID(id))
	if errors.Is(err, store.ErrNotFound) || id == "" {
		return nil, oauthErr("invalid_client", "unknown client_id: register the client first")
	}
	return c, err
}

// RedirectAllowed reports whether uri is one of c's redirect URIs; a
// loopback one matches on any port (RFC 8252 §7.3: a native app's
// listener port is chosen at run time).
func RedirectAllowed(c *store.OAuthClient, uri string) bool {
	if slices.Contains(c.RedirectURIs, uri) {
		return true
	}
	got, err := url.Parse(uri)
	if err != nil || got.Scheme != "http" || !isLoopbackHost(got.Hostname()) {
		return false
	}
	for _, r := range c.RedirectURIs {
		want, err := url.Parse(r)
		if err == nil && want.Scheme == "http" && want.Hostname() == got.Hostname() && want.Path == got.Path && want.RawQuery == got.RawQuery {
			return true
		}
	}
	return false
}

// ParseOAuthScopes reads a space-separated scope list; empty means the
// approver's role's scopes. An unknown scope is invalid_scope.
func ParseOAuthScopes(s string) ([]string, error) {
	var out []string
	for _, sc := range strings.Fields(s) {
		if !slices.Contains(AllScopes, sc) {
			return nil, oauthErr("invalid_scope", "unknown scope "+sc+"; Earshot's scopes are "+strings.Join(AllScopes, " "))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// ApproveOAuth records a person's approval (p is their session, in any
// project) of client for projectID with scopes (cut to what their role
// there may grant) and returns the one-time code.
func (s *Service) ApproveOAuth(ctx context.Context, p *Principal, client *store.OAuthClient, projectID string, scopes []string, redirectURI, challenge string) (string, []string, error) {
	if p == nil || p.Kind != KindSession {
		return "", nil, Forbidden("approving an OAuth client needs a dashboard session")
	}
	role, err := s.Store.Membership(ctx, projectID, p.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, NotFound("project")
	}
	if err != nil {
		return "", nil, err
	}
	var granted []string
	for _, sc := range scopes {
		if slices.Contains(RoleScopes[role], sc) {
			granted = append(granted, sc)
		}
	}
	if len(granted) == 0 {
		return "", nil, Invalid("scope", "choose at least one scope your role in this project can grant")
	}
	code := randomToken("esc_")
	err = s.Store.CreateOAuthCode(ctx, code, &store.OAuthCode{ClientID: client.ID, UserID: p.UserID, ProjectID: projectID, Scopes: granted,
		RedirectURI: redirectURI, Challenge: challenge}, oauthCodeTTL)
	return code, granted, err
}

// ExchangeOAuthCode trades a code and its PKCE verifier for tokens: the
// grant's API key is made now, so an approval nobody exchanged leaves no key.
func (s *Service) ExchangeOAuthCode(ctx context.Context, clientID, code, redirectURI, verifier string) (*OAuthTokens, error) {
	client, err := s.OAuthClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	c, err := s.Store.TakeOAuthCode(ctx, code)
	if errors.Is(err, store.ErrNotFound) {
		return nil, oauthErr("invalid_grant", "the code is unknown, used or expired")
	}
	if err != nil {
		return nil, err
	}
	if c.ClientID != client.ID || c.RedirectURI != redirectURI {
		return nil, oauthErr("invalid_grant", "the code was issued to another client or redirect_uri")
	}
	if !pkceMatches(c.Challenge, verifier) {
		return nil, oauthErr("invalid_grant", "code_verifier does not match the code_challenge")
	}
	// A grant is approved by a session, so its creator's password change
	// revokes it like any key a session made (issue 25, L2).
	k, err := s.issueKey(ctx, c.ProjectID, c.UserID, oauthKeyNamePrefix+client.Name, c.Scopes, true)
	if err != nil {
		return nil, err
	}
	return s.issueOAuthTokens(ctx, k.ID, client.ID, c.Scopes)
}

// RefreshOAuth rotates a refresh token: the old one stops working.
func (s *Service) RefreshOAuth(ctx context.Context, clientID, refresh string) (*OAuthTokens, error) {
	client, err := s.OAuthClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	k, owner, err := s.Store.OAuthTokenKey(ctx, refresh, "refresh")
	if errors.Is(err, store.ErrNotFound) {
		return nil, oauthErr("invalid_grant", "the refresh token is unknown, expired or revoked")
	}
	if err != nil {
		return nil, err
	}
	if owner != client.ID {
		return nil, oauthErr("invalid_grant", "the refresh token was issued to another client")
	}
	if ok, err := s.Store.DeleteOAuthToken(ctx, refresh); err != nil || !ok {
		return nil, oauthErr("invalid_grant", "the refresh token was already used")
	}
	if err := s.Store.PurgeOAuthTokens(ctx, k.ID); err != nil {
		return nil, err
	}
	return s.issueOAuthTokens(ctx, k.ID, client.ID, k.Scopes)
}

// RevokeOAuthToken ends one token (RFC 7009); an unknown token is no error.
func (s *Service) RevokeOAuthToken(ctx context.Context, token string) error {
	_, err := s.Store.DeleteOAuthToken(ctx, token)
	return err
}

func (s *Service) issueOAuthTokens(ctx context.Context, keyID, clientID string, scopes []string) (*OAuthTokens, error) {
	t := &OAuthTokens{AccessToken: randomToken(OAuthAccessPrefix), RefreshToken: randomToken(OAuthRefreshPrefix), ExpiresIn: int(OAuthAccessTTL / time.Second), Scopes: scopes}
	if err := s.Store.CreateOAuthToken(ctx, t.AccessToken, "access", keyID, clientID, OAuthAccessTTL); err != nil {
		return nil, err
	}
	if err := s.Store.CreateOAuthToken(ctx, t.RefreshToken, "refresh", keyID, clientID, OAuthRefreshTTL); err != nil {
		return nil, err
	}
	return t, nil
}

// authenticateOAuth is Authenticate for an access token.
func (s *Service) authenticateOAuth(ctx context.Context, token, projectHeader string) (*Principal, error) {
	k, _, err := s.Store.OAuthTokenKey(ctx, token, "access")
	if errors.Is(err, store.ErrNotFound) {
		return nil, Unauthorized("unknown, expired or revoked access token: refresh it, or authorize again")
	}
	if err != nil {
		return nil, err
	}
	return s.keyPrincipal(ctx, k, projectHeader)
}

// keyPrincipal is the principal of a live key (an API key, or the key an
// OAuth token stands for).
func (s *Service) keyPrincipal(ctx context.Context, k *store.APIKey, projectHeader string) (*Principal, error) {
	if projectHeader != "" && projectHeader != k.ProjectID {
		// A key is bound to its project; naming another one reaches nothing.
		return nil, NotFound("project")
	}
	s.touchKey(ctx, k.ID)
	return &Principal{Kind: KindKey, KeyID: k.ID, UserID: k.CreatedBy, ProjectID: k.ProjectID, Scopes: k.Scopes}, nil
}

// pkceMatches checks an S256 challenge (RFC 7636; OAuth 2.1 allows no other).
func pkceMatches(challenge, verifier string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

func randomToken(prefix string) string {
	b := make([]byte, 32)
	rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}
