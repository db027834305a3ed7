package capability

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"earshot/store"
)

// ---- inputs and outputs ----

type Empty struct{}

type IDPath struct {
	ID string `json:"id" in:"path" validate:"required,format=uuid" doc:"The resource id."`
}

type ProjectSummary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Plan string `json:"plan"`
	Slug string `json:"slug"`
	Role string `json:"role,omitempty"`
}

type ListProjectsOut struct {
	Projects []ProjectSummary `json:"projects"`
}

type CreateProjectIn struct {
	Name    string  `json:"name" validate:"required,maxlen=80" doc:"Project name, at most 80 characters."`
	Website *string `json:"website,omitempty" validate:"nullable,format=uri,maxlen=2048" doc:"The brand's website (absolute http(s) URL), or null."`
}

type CreateProjectOut struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
	Plan string `json:"plan"`
}

type ProjectOut struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	Slug          string  `json:"slug"`
	Plan          string  `json:"plan"`
	MentionQuota  int     `json:"mention_quota"`
	Website       *string `json:"website"`
	Description   string  `json:"description"`
	PublicEnabled bool    `json:"public_enabled"`
	PublicURL     *string `json:"public_url"`
	Archived      bool    `json:"archived"`
	CreatedAt     string  `json:"created_at"`
}

type UpdateProjectIn struct {
	ID          string     `json:"id" in:"path" validate:"required,format=uuid" doc:"Project id."`
	Name        *string    `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	Website     NullString `json:"website,omitzero" validate:"format=uri,maxlen=2048" doc:"New website URL, or null to clear it."`
	Description *string    `json:"description,omitempty" validate:"maxlen=2000" doc:"What the brand is; also helps the classifier judge relevance."`
}

type DeleteProjectIn struct {
	ID               string `json:"id" in:"path" validate:"required,format=uuid" doc:"Project id."`
	ConfirmationName string `json:"confirmation_name" validate:"required" doc:"The project's exact current name, typed by the user."`
	ConfirmDeletion  bool   `json:"confirm_deletion" validate:"required" doc:"Must be true."`
}

type DeleteProjectOut struct {
	Archived bool   `json:"archived"`
	ID       string `json:"id"`
}

type SetPublicIn struct {
	ID      string `json:"id" in:"path" validate:"required,format=uuid" doc:"Project id."`
	Enabled bool   `json:"enabled" validate:"required" doc:"true publishes the public mentions page; false takes it down (the slug is kept)."`
}

type SetPublicOut struct {
	PublicEnabled bool    `json:"public_enabled"`
	URL           *string `json:"url"`
}

type UpdateAccountIn struct {
	FullName *string `json:"full_name,omitempty" validate:"maxlen=120" doc:"Display name."`
	TimeZone *string `json:"time_zone,omitempty" validate:"maxlen=64" doc:"IANA time zone (Europe/Paris, America/New_York) the dashboard shows times in; empty for UTC. The API always answers in UTC."`
}

type AccountOut struct {
	ID       string `json:"id"`
	FullName string `json:"full_name"`
	Email    string `json:"email"`
	TimeZone string `json:"time_zone" doc:"The dashboard's time zone (IANA name); empty for UTC."`
}

type IDName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type DeletedOut struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
}

func (s *Service) projectCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_projects", Title: "List projects", Group: "project", Method: "GET", Path: "/api/v1/projects",
			Scope: ProjectsRead, NoProject: true, Idempotent: true,
			Description: "List the projects this credential can reach. An API key sees exactly its own project; a session sees every project of its user."},
			s.listProjects),
		Define(Capability{Name: "create_project", Title: "Create a project", Group: "project", Method: "POST", Path: "/api/v1/projects",
			Scope: ProjectsWrite, Write: true, SessionOnly: true, NoProject: true,
			Description: "Create a new project (workspace) owned by the logged-in user, on the unlimited plan (an operator who sells plans changes it with earshot project set-plan). Only session credentials may call it; API keys cannot."},
			s.createProject),
		Define(Capability{Name: "get_project", Title: "Get a project", Group: "project", Method: "GET", Path: "/api/v1/projects/:id",
			Scope: ProjectsRead, Idempotent: true,
			Description: "Get a project's settings, plan and monthly mention quota."},
			s.getProject),
		Define(Capability{Name: "update_project", Title: "Update a project", Group: "project", Method: "PATCH", Path: "/api/v1/projects/:id",
			Scope: ProjectsWrite, Write: true, Idempotent: true,
			Description: "Change a project's name, website or description. Only the fields sent change."},
			s.updateProject),
		Define(Capability{Name: "delete_project", Title: "Delete (archive) a project", Group: "project", Method: "DELETE", Path: "/api/v1/projects/:id",
			Scope: ProjectsWrite, Write: true, Destructive: true, Idempotent: true,
			Description: "Archive a project: every monitor is paused and the project becomes read-only; mentions and consumed usage stay. " +
				"Needs confirmation_name equal to the project's exact current name and confirm_deletion true. " +
				"AGENTS: never call this on your own initiative and never infer consent from knowing the name — first explain these consequences to the user and wait for their explicit consent."},
			s.deleteProject),
		Define(Capability{Name: "set_public_dashboard", Title: "Publish or unpublish the public page", Group: "project", Method: "PATCH", Path: "/api/v1/projects/:id/public",
			Scope: ProjectsWrite, Write: true, Idempotent: true,
			Description: "Turn the project's public, read-only mentions page on or off. When on, url is the page's address; when off, url is null and the slug is kept so the old link can be turned back on."},
			s.setPublic),
		Define(Capability{Name: "update_account", Title: "Update the account", Group: "account", Method: "PATCH", Path: "/api/v1/account",
			Scope: ProjectsWrite, Write: true, Idempotent: true, NoProject: true, SessionOnly: true,
			Description: "Change the display name or the dashboard's time zone of the logged-in user. Sessions only: an API key belongs to a project, not to the person who created it, so it cannot change that person's account."},
			s.updateAccount),
	}
}

func (s *Service) projectFor(ctx context.Context, p *Principal, id string) (*store.Project, error) {
	if id != p.ProjectID && p.Kind != KindSystem {
		// A credential reaches only its current project; others look absent.
		return nil, NotFound("project")
	}
	proj, err := s.Store.Project(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("project")
	}
	return proj, err
}

func (s *Service) listProjects(ctx context.Context, p *Principal, _ *Empty) (*ListProjectsOut, error) {
	out := &ListProjectsOut{Projects: []ProjectSummary{}}
	if p.Kind == KindSession {
		ps, err := s.Store.ProjectsForUser(ctx, p.UserID)
		if err != nil {
			return nil, err
		}
		for _, pr := range ps {
			out.Projects = append(out.Projects, ProjectSummary{ID: pr.ID, Name: pr.Name, Plan: pr.Plan, Slug: pr.Slug, Role: pr.Role})
		}
		return out, nil
	}
	pr, err := s.Store.Project(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	out.Projects = append(out.Projects, ProjectSummary{ID: pr.ID, Name: pr.Name, Plan: pr.Plan, Slug: pr.Slug})
	return out, nil
}

func (s *Service) createProject(ctx context.Context, p *Principal, in *CreateProjectIn) (*CreateProjectOut, error) {
	pr, err := s.Store.CreateProject(ctx, p.UserID, in.Name, in.Website)
	if err != nil {
		return nil, err
	}
	return &CreateProjectOut{ID: pr.ID, Name: pr.Name, Slug: pr.Slug, Plan: pr.Plan}, nil
}

// Quota returns the monthly mention quota of a plan (0 = unlimited).
func (s *Service) Quota(plan string) int {
	if q, ok := s.Config.PlanQuotas[plan]; ok {
		return q
	}
	return s.Config.PlanQuotas["trial"]
}

func (s *Service) projectOut(pr *store.Project) *ProjectOut {
	out := &ProjectOut{ID: pr.ID, Name: pr.Name, Slug: pr.Slug, Plan: pr.Plan, MentionQuota: s.Quota(pr.Plan), Website: pr.Website,
		Description: pr.Description, PublicEnabled: pr.PublicEnabled, Archived: pr.Archived(), CreatedAt: pr.CreatedAt}
	if pr.PublicEnabled {
		u := s.PublicURL(pr.Slug)
		out.PublicURL = &u
	}
	return out
}

// PublicURL is the public page of a slug.
func (s *Service) PublicURL(slug string) string { return s.Config.BaseURL + "/p/" + slug }

func (s *Service) getProject(ctx context.Context, p *Principal, in *IDPath) (*ProjectOut, error) {
	pr, err := s.projectFor(ctx, p, in.ID)
	if err != nil {
		return nil, err
	}
	return s.projectOut(pr), nil
}

func (s *Service) updateProject(ctx context.Context, p *Principal, in *UpdateProjectIn) (*ProjectOut, error) {
	if _, err := s.projectFor(ctx, p, in.ID); err != nil {
		return nil, err
	}
	patch := store.ProjectPatch{Name: in.Name, Description: in.Description}
	if in.Website.Set {
		w := in.Website.Ptr()
		patch.Website = &w
	}
	pr, err := s.Store.UpdateProject(ctx, in.ID, patch)
	if err != nil {
		return nil, err
	}
	return s.projectOut(pr), nil
}

func (s *Service) deleteProject(ctx context.Context, p *Principal, in *DeleteProjectIn) (*DeleteProjectOut, error) {
	pr, err := s.projectFor(ctx, p, in.ID)
	if err != nil {
		return nil, err
	}
	if !in.ConfirmDeletion {
		return nil, Invalid("confirm_deletion", "confirm_deletion must be true")
	}
	if in.ConfirmationName != pr.Name {
		return nil, Invalid("confirmation_name", "confirmation_name must equal the project's current name exactly")
	}
	if err := s.Store.ArchiveProject(ctx, pr.ID); err != nil {
		return nil, err
	}
	return &DeleteProjectOut{Archived: true, ID: pr.ID}, nil
}

func (s *Service) setPublic(ctx context.Context, p *Principal, in *SetPublicIn) (*SetPublicOut, error) {
	pr, err := s.projectFor(ctx, p, in.ID)
	if err != nil {
		return nil, err
	}
	if err := s.Store.SetPublic(ctx, pr.ID, in.Enabled); err != nil {
		return nil, err
	}
	out := &SetPublicOut{PublicEnabled: in.Enabled}
	if in.Enabled {
		u := s.PublicURL(pr.Slug)
		out.URL = &u
	}
	return out, nil
}

func (s *Service) updateAccount(ctx context.Context, p *Principal, in *UpdateAccountIn) (*AccountOut, error) {
	if p.UserID == "" {
		return nil, NotFound("account")
	}
	if in.TimeZone != nil {
		zone, err := CheckTimeZone(*in.TimeZone)
		if err != nil {
			return nil, err
		}
		if err := s.Store.SetUserTimeZone(ctx, p.UserID, zone); err != nil {
			return nil, err
		}
	}
	var u *store.User
	var err error
	if in.FullName != nil {
		u, err = s.Store.UpdateUserName(ctx, p.UserID, *in.FullName)
	} else {
		u, err = s.Store.UserByIDWriter(ctx, p.UserID)
	}
	if err != nil {
		return nil, err
	}
	return &AccountOut{ID: u.ID, FullName: u.FullName, Email: u.Email, TimeZone: u.TimeZone}, nil
}

func randToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
