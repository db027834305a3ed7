package capability

import (
	"context"
	"errors"
	"strings"
	"time"

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
		if projectHeader != "" && projectHeader != k.ProjectID {
			// A key is bound to its project; naming another one reaches nothing.
			return nil, NotFound("project")
		}
		s.touchKey(ctx, k.ID)
		return &Principal{Kind: KindKey, KeyID: k.ID, UserID: k.CreatedBy, ProjectID: k.ProjectID, Scopes: k.Scopes}, nil
	case strings.HasPrefix(token, "ess_"):
		sess, err := s.Store.SessionByToken(ctx, token)
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
	p := &Principal{Kind: KindSession, UserID: sess.UserID, SessionID: sess.ID, Scopes: []string{ProjectsRead, ProjectsWrite}}
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
		// The request is about this project: one the user is not a member
		// of is not found, whatever else the user belongs to (CONTRACT §2).
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
