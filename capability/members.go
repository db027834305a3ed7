package capability

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"earshot/api"
	"earshot/store"
)

type MembersOut struct {
	Members []*api.Member `json:"members"`
}

type InviteMemberIn struct {
	Email string `json:"email" validate:"required,maxlen=254,format=email" doc:"The person's email address: where the invitation is sent when SMTP is configured, and the login of the account they create with it."`
	Role  string `json:"role" validate:"required,enum=editor|viewer" doc:"editor (everything but project settings) or viewer (read only)."`
}

// InvitationOut is a pending invitation. It never says whether an account
// exists for the email, nor names one.
type InvitationOut struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	Status    string `json:"status" doc:"pending (accepted, withdrawn and expired invitations leave the list)."`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

type InviteMemberOut struct {
	InvitationOut
	InviteURL *string `json:"invite_url" doc:"The one-time link the invited person opens to join: they choose their own password (new account) or accept while logged in. Give it to them only; it works once and expires. null in an idempotent replay: the secret is shown once and not stored."`
	EmailSent bool    `json:"email_sent" doc:"true when the link was also emailed to the address (SMTP configured)."`
}

type InvitationsOut struct {
	Invitations []InvitationOut `json:"invitations"`
}

type AcceptInvitationIn struct {
	Token string `json:"token" validate:"required,maxlen=200" doc:"The token of the invitation link (the last path segment of invite_url)."`
}

type AcceptInvitationOut struct {
	ProjectID   string `json:"project_id"`
	ProjectName string `json:"project_name"`
	Role        string `json:"role" doc:"The caller's role in the project now."`
}

type MemberRoleIn struct {
	ID   string `json:"id" in:"path" validate:"required,format=uuid" doc:"The member's user id."`
	Role string `json:"role" validate:"required,enum=editor|viewer" doc:"New role."`
}

type MemberRoleOut struct {
	UserID string `json:"user_id"`
	Role   string `json:"role"`
}

type RemovedMemberOut struct {
	Deleted bool   `json:"deleted"`
	UserID  string `json:"user_id"`
}

func (s *Service) memberCaps() []*Capability {
	return append(s.accountCaps(),
		Define(Capability{Name: "list_members", Title: "List members", Group: "member", Method: "GET", Path: "/api/v1/members",
			Scope: ProjectsRead, Idempotent: true, Description: "List the project's members with their roles (owner, editor, viewer)."},
			s.listMembers),
		Define(Capability{Name: "invite_member", Title: "Invite a member", Group: "member", Method: "POST", Path: "/api/v1/members",
			Scope: ProjectsWrite, Write: true, Secrets: []string{"invite_url"},
			Description: "Invite a person by email with a role. This creates a pending invitation and a one-time link (invite_url, shown once, valid 7 days; also emailed when SMTP is configured). " +
				"The person opens the link and either chooses their own password (new account) or accepts while logged in (existing account): nobody joins a project without accepting, and no password is ever handed to someone else. " +
				"The answer is the same whether or not the email has an account. Inviting the same email again replaces the earlier link."},
			s.inviteMember),
		Define(Capability{Name: "list_invitations", Title: "List pending invitations", Group: "member", Method: "GET", Path: "/api/v1/invitations",
			Scope: ProjectsRead, Idempotent: true, Description: "List the project's pending invitations (not yet accepted, withdrawn or expired)."},
			s.listInvitations),
		Define(Capability{Name: "revoke_invitation", Title: "Withdraw an invitation", Group: "member", Method: "DELETE", Path: "/api/v1/invitations/:id",
			Scope: ProjectsWrite, Write: true, Destructive: true, Description: "Withdraw a pending invitation: its link stops working."},
			s.revokeInvitation),
		Define(Capability{Name: "accept_invitation", Title: "Accept an invitation", Group: "member", Method: "POST", Path: "/api/v1/invitations/accept",
			Scope: ProjectsRead, Write: true, SessionOnly: true, NoProject: true,
			Description: "Join the project of an invitation link as the logged-in user, with the invited role. Only the account of the invited email can accept (403 for any other); the link works once."},
			s.acceptInvitation),
		Define(Capability{Name: "update_project_member", Title: "Change a member's role", Group: "member", Method: "PATCH", Path: "/api/v1/members/:id",
			Scope: ProjectsWrite, Write: true, Idempotent: true, Description: "Change a member's role to editor or viewer. The owner's role cannot change."},
			s.updateMember),
		Define(Capability{Name: "remove_project_member", Title: "Remove a member", Group: "member", Method: "DELETE", Path: "/api/v1/members/:id",
			Scope: ProjectsWrite, Write: true, Destructive: true, Idempotent: true, Description: "Remove a member from the project. The owner cannot be removed."},
			s.removeMember),
	)
}

func (s *Service) listMembers(ctx context.Context, p *Principal, _ *Empty) (*MembersOut, error) {
	ms, err := s.Store.ListMembers(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	return &MembersOut{Members: store.MemberRecords(ms)}, nil
}

// invitationTTL is how long an invitation link works.
const invitationTTL = 7 * 24 * time.Hour

func invitationOut(i *store.Invitation) InvitationOut {
	return InvitationOut{ID: i.ID, Email: i.Email, Role: i.Role, Status: i.Status(), CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt}
}

// InviteURL is the page where an invitation token is accepted.
func (s *Service) InviteURL(token string) string {
	return strings.TrimRight(s.Config.BaseURL, "/") + "/invite/" + token
}

func (s *Service) inviteMember(ctx context.Context, p *Principal, in *InviteMemberIn) (*InviteMemberOut, error) {
	// Members are visible to the project anyway, so saying one already is
	// tells nothing new; whether an account exists elsewhere is never said.
	ms, err := s.Store.ListMembers(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if strings.EqualFold(m.Email, in.Email) {
			e := Conflict(in.Email + " is already a member of this project (change the role with update_project_member)")
			e.Param = "email"
			return nil, e
		}
	}
	token := "esi_" + randToken(32)
	inv, err := s.Store.CreateInvitation(ctx, p.ProjectID, in.Email, in.Role, p.UserID, token, invitationTTL)
	if err != nil {
		return nil, err
	}
	link := s.InviteURL(token)
	out := &InviteMemberOut{InvitationOut: invitationOut(inv), InviteURL: &link}
	if s.SendEmail != nil {
		proj, err := s.Store.Project(ctx, p.ProjectID)
		if err != nil {
			return nil, err
		}
		body := fmt.Sprintf("You are invited to join the Earshot project %q as %s.\n\nOpen this link to accept (it works once and expires on %s):\n\n%s\n\nIf you did not expect this invitation, ignore this email.\n",
			proj.Name, in.Role, inv.ExpiresAt, link)
		if err := s.SendEmail(ctx, in.Email, "Invitation to "+proj.Name+" on Earshot", body); err != nil {
			s.Log.Warn("invitation email not sent", "invitation_id", inv.ID, "err", err)
		} else {
			out.EmailSent = true
		}
	}
	return out, nil
}

func (s *Service) listInvitations(ctx context.Context, p *Principal, _ *Empty) (*InvitationsOut, error) {
	invs, err := s.Store.ListInvitations(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	out := &InvitationsOut{Invitations: []InvitationOut{}}
	for _, i := range invs {
		out.Invitations = append(out.Invitations, invitationOut(i))
	}
	return out, nil
}

func (s *Service) revokeInvitation(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
	if err := s.Store.RevokeInvitation(ctx, p.ProjectID, in.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, NotFound("invitation")
		}
		return nil, err
	}
	return &DeletedOut{Deleted: true, ID: in.ID}, nil
}

func invitationGone() *Error {
	e := Conflict("this invitation link was already used, withdrawn or has expired; ask the project's owner for a new one")
	e.Param = "token"
	return e
}

// wrongInvitee refuses an invitation link used by another account than
// the invited email's: the link is a bearer token that can travel
// (forwarded, logged, shoulder-surfed), so holding it is not being the
// person invited.
func wrongInvitee(invited, caller string) *Error {
	e := Forbidden(fmt.Sprintf("this invitation is for %s, and you are logged in as %s: only %s can accept it (log in as that account), or ask the project's owner to invite %s", invited, caller, invited, caller))
	e.Param = "token"
	return e
}

func (s *Service) acceptInvitation(ctx context.Context, p *Principal, in *AcceptInvitationIn) (*AcceptInvitationOut, error) {
	u, err := s.Store.UserByID(ctx, p.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("account")
	}
	if err != nil {
		return nil, err
	}
	pending, err := s.Store.InvitationByToken(ctx, in.Token)
	if err == nil && pending.Status() == "pending" && !strings.EqualFold(pending.Email, u.Email) {
		return nil, wrongInvitee(pending.Email, u.Email)
	}
	inv, m, err := s.Store.AcceptInvitation(ctx, in.Token, p.UserID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		e := NotFound("invitation")
		e.Param = "token"
		return nil, e
	case errors.Is(err, store.ErrGone):
		return nil, invitationGone()
	case err != nil:
		return nil, err
	}
	proj, err := s.Store.Project(ctx, inv.ProjectID)
	if err != nil {
		return nil, err
	}
	return &AcceptInvitationOut{ProjectID: proj.ID, ProjectName: proj.Name, Role: m.Role}, nil
}

// InvitationPreview is what the invitation page shows before acceptance.
type InvitationPreview struct {
	ProjectName string
	Email       string
	Role        string
	ExpiresAt   string
}

// PreviewInvitation describes a pending invitation by its link token;
// NOT_FOUND for an unknown token, CONFLICT for one no longer pending.
func (s *Service) PreviewInvitation(ctx context.Context, token string) (*InvitationPreview, error) {
	inv, err := s.Store.InvitationByToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("invitation")
	}
	if err != nil {
		return nil, err
	}
	if inv.Status() != "pending" {
		return nil, invitationGone()
	}
	proj, err := s.Store.Project(ctx, inv.ProjectID)
	if err != nil {
		return nil, err
	}
	return &InvitationPreview{ProjectName: proj.Name, Email: inv.Email, Role: inv.Role, ExpiresAt: inv.ExpiresAt}, nil
}

// SignUpWithInvitation creates the invited email's account with the
// password its holder chose, when the email has none. When it has one,
// nothing changes: the existing password stays (no pre-hijacking), and the
// answer is the same, so the link cannot be used to learn whether an
// account exists. Either way the person then logs in and accepts.
func (s *Service) SignUpWithInvitation(ctx context.Context, token, password, fullName string) error {
	if utf8.RuneCountInString(fullName) > 120 {
		return Invalid("full_name", "full_name must be at most 120 characters")
	}
	inv, err := s.Store.InvitationByToken(ctx, token)
	if errors.Is(err, store.ErrNotFound) {
		return NotFound("invitation")
	}
	if err != nil {
		return err
	}
	if inv.Status() != "pending" {
		return invitationGone()
	}
	if err := checkPassword("password", password, inv.Email); err != nil {
		return err
	}
	h, err := hashPassword(password) // also when the account exists: equal time
	if err != nil {
		return err
	}
	_, err = s.Store.CreateUser(ctx, inv.Email, h, fullName)
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}

func (s *Service) updateMember(ctx context.Context, p *Principal, in *MemberRoleIn) (*MemberRoleOut, error) {
	if err := s.Store.UpdateMember(ctx, p.ProjectID, in.ID, in.Role); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, NotFound("member")
		}
		return nil, err
	}
	return &MemberRoleOut{UserID: in.ID, Role: in.Role}, nil
}

func (s *Service) removeMember(ctx context.Context, p *Principal, in *IDPath) (*RemovedMemberOut, error) {
	if err := s.Store.RemoveMember(ctx, p.ProjectID, in.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, NotFound("member")
		}
		return nil, err
	}
	return &RemovedMemberOut{Deleted: true, UserID: in.ID}, nil
}
