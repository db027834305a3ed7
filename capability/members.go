package capability

import (
	"context"
	"errors"

	"earshot/store"
)

type MembersOut struct {
	Members []*store.Member `json:"members"`
}

type InviteMemberIn struct {
	Email    string `json:"email" validate:"required,maxlen=254,format=email" doc:"The person's email address."`
	Role     string `json:"role" validate:"required,enum=editor|viewer" doc:"editor (everything but project settings) or viewer (read only)."`
	FullName string `json:"full_name,omitempty" validate:"maxlen=120" doc:"Display name for a new account."`
}

type InviteMemberOut struct {
	UserID  string `json:"user_id"`
	Email   string `json:"email"`
	Role    string `json:"role"`
	Created bool   `json:"created"`
	// TemporaryPassword is set only when the invite created the account:
	// give it to the person; they log in with it.
	TemporaryPassword *string `json:"temporary_password" doc:"The new account's password, shown once (null when the account existed). null in an idempotent replay: the secret is shown once and not stored."`
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
	return []*Capability{
		Define(Capability{Name: "list_members", Title: "List members", Group: "member", Method: "GET", Path: "/api/v1/members",
			Scope: ProjectsRead, Idempotent: true, Description: "List the project's members with their roles (owner, editor, viewer)."},
			s.listMembers),
		Define(Capability{Name: "invite_member", Title: "Invite a member", Group: "member", Method: "POST", Path: "/api/v1/members",
			Scope: ProjectsWrite, Write: true, Secrets: []string{"temporary_password"},
			Description: "Add a person to the project by email with a role. If no account exists for the email, one is created and a temporary password is returned once."},
			s.inviteMember),
		Define(Capability{Name: "update_project_member", Title: "Change a member's role", Group: "member", Method: "PATCH", Path: "/api/v1/members/:id",
			Scope: ProjectsWrite, Write: true, Idempotent: true, Description: "Change a member's role to editor or viewer. The owner's role cannot change."},
			s.updateMember),
		Define(Capability{Name: "remove_project_member", Title: "Remove a member", Group: "member", Method: "DELETE", Path: "/api/v1/members/:id",
			Scope: ProjectsWrite, Write: true, Destructive: true, Idempotent: true, Description: "Remove a member from the project. The owner cannot be removed."},
			s.removeMember),
	}
}

func (s *Service) listMembers(ctx context.Context, p *Principal, _ *Empty) (*MembersOut, error) {
	ms, err := s.Store.ListMembers(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	return &MembersOut{Members: ms}, nil
}

func (s *Service) inviteMember(ctx context.Context, p *Principal, in *InviteMemberIn) (*InviteMemberOut, error) {
	out := &InviteMemberOut{Email: in.Email, Role: in.Role}
	u, err := s.Store.UserByEmail(ctx, in.Email)
	if errors.Is(err, store.ErrNotFound) {
		pw := randToken(12)
		u, err = s.CreateUser(ctx, in.Email, pw, in.FullName)
		if err != nil {
			return nil, err
		}
		out.Created = true
		out.TemporaryPassword = &pw
	} else if err != nil {
		return nil, err
	}
	m, err := s.Store.AddMember(ctx, p.ProjectID, u.ID, in.Role)
	if err != nil {
		return nil, err
	}
	out.UserID, out.Email, out.Role = m.UserID, m.Email, m.Role
	return out, nil
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
