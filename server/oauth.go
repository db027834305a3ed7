package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// The OAuth 2.1 faces of remote MCP (the MCP authorization spec): the
// protected resource's metadata (RFC 9728), the authorization server's
// (RFC 8414), dynamic client registration (RFC 7591), the token endpoint
// (authorization code with PKCE S256, refresh with rotation) and
// revocation (RFC 7009). The consent page is the dashboard's (package ui,
// /oauth/authorize). API keys keep working beside it.

const maxOAuthBody = 64 << 10

// Registration needs no credential (RFC 7591; MCP hosts register
// themselves), so it has its own limit per client address (an IPv6 client
// is its /64, capability.ClientAddr; behind EARSHOT_TRUSTED_PROXIES the
// address the proxy names): a bucket of 20 refilled at 20 an hour, the
// limit the MCP SDK's own authorization server sets. A host registers once
// per installation; clients nobody approves are deleted after a day
// (store.PurgeOAuth), so one address can keep at most ~500 around.
const (
	registrationBurst   = 20
	registrationsPerSec = 20.0 / 3600
)

func (s *Server) mountOAuth() {
	s.registrations = newLimiter(registrationsPerSec, registrationBurst)
	s.Router.GET("/.well-known/oauth-protected-resource", s.protectedResourceMetadata)
	s.Router.GET("/.well-known/oauth-protected-resource/*resource", s.protectedResourceMetadata)
	s.Router.GET("/.well-known/oauth-authorization-server", s.authorizationServerMetadata)
	s.Router.POST("/oauth/register", s.oauthRegister)
	s.Router.POST("/oauth/token", s.oauthToken)
	s.Router.POST("/oauth/revoke", s.oauthRevoke)
}

func (s *Server) baseURL() string { return strings.TrimSuffix(s.svc.Config.BaseURL, "/") }

// resourceMetadataURL is what a 401 points a client at.
func (s *Server) resourceMetadataURL() string {
	return s.baseURL() + "/.well-known/oauth-protected-resource"
}

func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	s.writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 s.baseURL() + "/mcp",
		"authorization_servers":    []string{s.baseURL()},
		"scopes_supported":         capability.AllScopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "Earshot MCP server",
		"resource_documentation":   s.svc.DocsURL(""),
	})
}

func (s *Server) authorizationServerMetadata(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	b := s.baseURL()
	w.Header().Set("Cache-Control", "public, max-age=3600")
	s.writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                     b,
		"authorization_endpoint":                     b + "/oauth/authorize",
		"token_endpoint":                             b + "/oauth/token",
		"registration_endpoint":                      b + "/oauth/register",
		"revocation_endpoint":                        b + "/oauth/revoke",
		"response_types_supported":                   []string{"code"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      []string{"none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                           capability.AllScopes,
	})
}

// oauthFail answers an RFC 6749 error (400, or 401 for invalid_client).
func (s *Server) oauthFail(w http.ResponseWriter, err error) {
	var oe *capability.OAuthError
	if !errors.As(err, &oe) {
		s.log.Error("oauth", "err", err)
		w.Header().Set("Cache-Control", "no-store")
		s.writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "server_error", "error_description": "an internal error occurred; it has been logged"})
		return
	}
	status := http.StatusBadRequest
	if oe.Code == "invalid_client" {
		status = http.StatusUnauthorized
	}
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, status, map[string]any{"error": oe.Code, "error_description": oe.Description})
}

func (s *Server) oauthRegister(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	addr := "oauth-register:" + capability.ClientAddr(r.RemoteAddr)
	if !s.registrations.allowN(addr, 1) {
		// RFC 7591's error shape; too_many_requests is the code the MCP
		// SDK's clients read as a rate limit.
		wait := max(s.registrations.retryAfterN(addr, 1), time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
		w.Header().Set("Cache-Control", "no-store")
		s.writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "too_many_requests",
			"error_description": "too many client registrations from this address; retry after the Retry-After seconds (a host registers once, then keeps its client_id)"})
		return
	}
	var in struct {
		ClientName              string   `json:"client_name"`
		RedirectURIs            []string `json:"redirect_uris"`
		GrantTypes              []string `json:"grant_types"`
		ResponseTypes           []string `json:"response_types"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		Scope                   string   `json:"scope"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxOAuthBody))
	if err := dec.Decode(&in); err != nil {
		desc := "the body must be a JSON object of client metadata"
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			desc = "the client metadata must be at most 64 KiB"
		}
		s.oauthFail(w, &capability.OAuthError{Code: "invalid_client_metadata", Description: desc})
		return
	}
	if m := in.TokenEndpointAuthMethod; m != "" && m != "none" {
		s.oauthFail(w, &capability.OAuthError{Code: "invalid_client_metadata", Description: "only public clients (token_endpoint_auth_method none, with PKCE) are supported"})
		return
	}
	for _, g := range in.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			s.oauthFail(w, &capability.OAuthError{Code: "invalid_client_metadata", Description: "grant type " + g + " is not supported; use authorization_code and refresh_token"})
			return
		}
	}
	c, err := s.svc.RegisterOAuthClient(r.Context(), in.ClientName, in.RedirectURIs)
	if err != nil {
		s.oauthFail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"client_id_issued_at":        time.Now().Unix(),
	})
}

func (s *Server) oauthToken(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOAuthBody)
	if err := r.ParseForm(); err != nil {
		s.oauthFail(w, &capability.OAuthError{Code: "invalid_request", Description: "the body must be application/x-www-form-urlencoded"})
		return
	}
	f := r.PostForm
	var (
		t   *capability.OAuthTokens
		err error
	)
	switch f.Get("grant_type") {
	case "authorization_code":
		t, err = s.svc.ExchangeOAuthCode(r.Context(), f.Get("client_id"), f.Get("code"), f.Get("redirect_uri"), f.Get("code_verifier"))
	case "refresh_token":
		t, err = s.svc.RefreshOAuth(r.Context(), f.Get("client_id"), f.Get("refresh_token"))
	case "":
		err = &capability.OAuthError{Code: "invalid_request", Description: "grant_type is required"}
	default:
		err = &capability.OAuthError{Code: "unsupported_grant_type", Description: "use authorization_code or refresh_token"}
	}
	if err != nil {
		s.oauthFail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	s.writeJSON(w, http.StatusOK, map[string]any{
		"access_token":  t.AccessToken,
		"token_type":    "Bearer",
		"expires_in":    t.ExpiresIn,
		"refresh_token": t.RefreshToken,
		"scope":         strings.Join(t.Scopes, " "),
	})
}

func (s *Server) oauthRevoke(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOAuthBody)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		s.oauthFail(w, &capability.OAuthError{Code: "invalid_request", Description: "token is required (application/x-www-form-urlencoded)"})
		return
	}
	if err := s.svc.RevokeOAuthToken(r.Context(), r.PostForm.Get("token")); err != nil {
		s.oauthFail(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}
