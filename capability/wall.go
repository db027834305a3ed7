package capability

import (
	"context"
	"errors"

	"earshot/api"
	"earshot/store"
)

// wallSize is how many mentions the public page shows.
const wallSize = 200

type PublicPageOut struct {
	Enabled bool           `json:"enabled" doc:"Whether the public page is published."`
	URL     *string        `json:"url" doc:"The page's address; null while it is off."`
	Items   []*api.Mention `json:"items" doc:"What the page shows (or would show, when off), in its order: featured first, then testimonials, each newest first."`
}

func (s *Service) wallCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "preview_public_page", Title: "Preview the public page", Group: "mention", Method: "GET", Path: "/api/v1/public-page",
			Scope: MentionsRead, Idempotent: true,
			Description: "The mentions the project's public page shows, in its order, as full records (ids and public_visibility included), also while the page is off: " +
				"featured mentions first, then the last 90 days' relevant mentions of the brand that are neither negative nor misinformation nor hidden, testimonials first. " +
				"Curate it with update_mention_status (public_visibility)."},
			s.previewPublicPage),
	}
}

// publicWall is the public page's mentions (store.PublicMentions), for the
// page itself and the dashboard's preview.
func (s *Service) publicWall(ctx context.Context, projectID string) ([]*store.Mention, error) {
	return s.Store.PublicMentions(ctx, projectID, wallSize)
}

func (s *Service) previewPublicPage(ctx context.Context, p *Principal, _ *Empty) (*PublicPageOut, error) {
	pr, err := s.Store.Project(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	items, err := s.publicWall(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	out := &PublicPageOut{Enabled: pr.PublicEnabled && !pr.Archived(), Items: store.MentionRecords(items)}
	if out.Enabled {
		u := s.PublicURL(pr.Slug)
		out.URL = &u
	}
	return out, nil
}

// PublicPage is what /p/{slug} shows: the project's public face and its wall.
type PublicPage struct {
	Name, Description string
	Website           *string
	Items             []*api.Mention // publicWall's order
}

// PublicPage is the public page of the project with this slug, for anyone:
// not found when there is no such project, its page is off or it is
// archived.
func (s *Service) PublicPage(ctx context.Context, slug string) (*PublicPage, error) {
	pr, err := s.Store.ProjectBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("page")
	}
	if err != nil {
		return nil, err
	}
	if !pr.PublicEnabled || pr.Archived() {
		return nil, NotFound("page")
	}
	items, err := s.publicWall(ctx, pr.ID)
	if err != nil {
		return nil, err
	}
	recs := store.MentionRecords(items)
	for _, r := range recs {
		// Assignment and tags are the team's internal work, never public.
		r.Assignee, r.Tags = nil, []string{}
	}
	return &PublicPage{Name: pr.Name, Description: pr.Description, Website: pr.Website, Items: recs}, nil
}
