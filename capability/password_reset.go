package capability

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"earshot/store"
)

// Password reset by email (issue 26), offered only when SMTP is configured
// (Service.SendEmail); without it the operator resets a password with
// `earshot user set-password`. The token is 128+ random bits, kept as
// its SHA-256 only, works once and expires after PasswordResetTTL. Like
// create_session, both operations are session operations: public REST
// and dashboard forms, not MCP tools.

// PasswordResetTTL is how long a reset link works.
const PasswordResetTTL = time.Hour

// passwordResetsPerHour caps the reset emails one account gets an hour,
// so the form cannot be used to flood someone's inbox.
const passwordResetsPerHour = 3

const (
	RequestPasswordReset = "request_password_reset"
	ResetPassword        = "reset_password"
)

type RequestPasswordResetIn struct {
	Email string `json:"email" validate:"required,maxlen=254" doc:"The account's email address."`
}

type RequestPasswordResetOut struct {
	Requested bool   `json:"requested" doc:"Always true: the answer is the same whether or not an account uses the address."`
	Message   string `json:"message"`
}

type ResetPasswordIn struct {
	Token       string `json:"token" validate:"required,maxlen=200" doc:"The token of the emailed link."`
	NewPassword string `json:"new_password" validate:"required,maxlen=200" doc:"The new password: at least 8 characters, at most 72 bytes."`
}

// MarshalJSON leaves the token and the password out of what is kept of
// the request.
func (in ResetPasswordIn) MarshalJSON() ([]byte, error) { return []byte(`{}`), nil }

type ResetPasswordOut struct {
	Changed bool   `json:"changed"`
	Message string `json:"message"`
}

// resetRequestedMessage is the one answer to a reset request.
const resetRequestedMessage = "If an account uses this address, a link to choose a new password is on its way. It works once, for one hour."

func (s *Service) passwordResetCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: RequestPasswordReset, Title: "Request a password reset email", Group: "session", Method: "POST", Path: "/api/v1/auth/password-resets",
			SessionOp: true, Public: true, NoProject: true,
			Description: "Emails a single-use link (valid one hour) to choose a new password, when SMTP is configured (409 otherwise: an operator resets passwords with earshot user set-password). " +
				"The answer never says whether an account uses the address."},
			s.requestPasswordReset),
		Define(Capability{Name: ResetPassword, Title: "Reset a password", Group: "session", Method: "POST", Path: "/api/v1/auth/password-resets/confirm",
			SessionOp: true, Public: true, NoProject: true,
			Description: "Sets a new password with the token of an emailed reset link. The token works once; every session of the account is logged out."},
			s.resetPassword),
	}
}

// PasswordResetByEmail reports whether password reset by email is offered.
func (s *Service) PasswordResetByEmail() bool { return s.SendEmail != nil }

// ResetURL is the dashboard page a reset email links to.
func (s *Service) ResetURL(token string) string {
	return strings.TrimRight(s.Config.BaseURL, "/") + "/reset-password/" + token
}

func (s *Service) requestPasswordReset(ctx context.Context, _ *Principal, in *RequestPasswordResetIn) (*RequestPasswordResetOut, error) {
	if s.SendEmail == nil {
		return nil, Conflict("password reset by email needs SMTP (EARSHOT_SMTP_URL); ask the operator to run earshot user set-password")
	}
	out := &RequestPasswordResetOut{Requested: true, Message: resetRequestedMessage}
	u, err := s.Store.UserByEmail(ctx, strings.TrimSpace(in.Email))
	if errors.Is(err, store.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	n, err := s.Store.RecentPasswordResets(ctx, u.ID, time.Now().Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	if n >= passwordResetsPerHour {
		s.Log.Warn("password reset not sent: hourly cap reached", "user_id", u.ID)
		return out, nil
	}
	token, err := s.Store.CreatePasswordReset(ctx, u.ID, PasswordResetTTL)
	if err != nil {
		return nil, err
	}
	// Sent after answering (sendLater): an SMTP round trip would otherwise
	// tell, by the time the answer takes, that the address has an account.
	body := fmt.Sprintf("Someone (hopefully you) asked to reset the password of the Earshot account %s.\n\nOpen this link to choose a new password (it works once, for one hour):\n\n%s\n\nIf you did not ask, ignore this email: the password stays as it is.\n",
		u.Email, s.ResetURL(token))
	s.sendLater(ctx, u.Email, "Reset your Earshot password", body, "user_id", u.ID)
	return out, nil
}

func (s *Service) resetPassword(ctx context.Context, _ *Principal, in *ResetPasswordIn) (*ResetPasswordOut, error) {
	if err := checkPassword("new_password", in.NewPassword); err != nil {
		return nil, err
	}
	h, err := hashPassword(in.NewPassword)
	if err != nil {
		return nil, err
	}
	_, revoked, err := s.Store.UsePasswordReset(ctx, in.Token, h)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, Invalid("token", "this reset link is unknown, used or expired; ask for a new one")
		}
		return nil, err
	}
	msg := "Password changed. Every session of the account was logged out; log in with the new password."
	if n := len(revoked); n > 0 {
		msg += fmt.Sprintf(" %d API key(s) made from its sessions were revoked.", n)
	}
	return &ResetPasswordOut{Changed: true, Message: msg}, nil
}

// CheckResetToken reports whether a reset token still works (the reset
// page asks before showing its form).
func (s *Service) CheckResetToken(ctx context.Context, token string) bool {
	_, err := s.Store.PasswordResetUser(ctx, token)
	return err == nil
}
