package capability

import (
	"context"
	"encoding/json"
	"errors"

	"earshot/api"
	"earshot/store"
)

// Saved views: named mention filters (MentionFilters, the store's one
// filter, the same keys as the list_mentions query). Alerts reuse them.

type CreateViewIn struct {
	Name    string          `json:"name" validate:"required,maxlen=80" doc:"View name."`
	Filters *MentionFilters `json:"filters,omitempty" doc:"Filters with the same keys as the list_mentions query."`
}

type UpdateViewIn struct {
	ID      string          `json:"id" in:"path" validate:"required,format=uuid" doc:"View id."`
	Name    *string         `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	Filters *MentionFilters `json:"filters,omitempty" doc:"Replaces the filters."`
}

type ViewsOut struct {
	Views []*ViewWithCount `json:"views"`
}

// checkFilters applies to saved filters the rules list_mentions applies to
// its query: the monitor and the story must be the project's (a deleted
// monitor counts; another project's answers exactly like a random id) and
// the ranges must not be empty.
func (s *Service) checkFilters(ctx context.Context, p *Principal, f *MentionFilters) error {
	if f == nil {
		return nil
	}
	if err := checkSearch(f.Search, "filters.search"); err != nil {
		return err
	}
	if f.MinUrgency != nil && f.MaxUrgency != nil && *f.MinUrgency > *f.MaxUrgency {
		return Invalid("filters.max_urgency", "filters.max_urgency must be at least filters.min_urgency")
	}
	if f.Since != "" && f.Until != "" {
		since, _ := ParseTimeParam(f.Since)
		until, _ := ParseTimeParam(f.Until)
		if !since.Before(until) {
			return Invalid("filters.until", "filters.until must be after filters.since")
		}
	}
	if err := checkTeamFilters(f); err != nil {
		return err
	}
	if f.StoryID != "" {
		if _, err := s.Store.Story(ctx, p.ProjectID, f.StoryID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return notFoundParam("story", "filters.story_id")
			}
			return err
		}
	}
	return s.checkMonitorRef(ctx, p, f.MonitorID, "filters.monitor_id")
}

func filtersJSON(f *MentionFilters) json.RawMessage {
	if f == nil {
		return json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(f)
	return b
}

func (s *Service) viewCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_views", Title: "List saved views", Group: "view", Method: "GET", Path: "/api/v1/views",
			Scope: MentionsRead, Idempotent: true, Description: "List saved mention views (named filters), oldest first, each with how many mentions match it now (up to 1000; count_capped beyond)."},
			func(ctx context.Context, p *Principal, _ *Empty) (*ViewsOut, error) {
				vs, err := s.Store.ListViews(ctx, p.ProjectID)
				if err != nil {
					return nil, err
				}
				return &ViewsOut{Views: s.withCounts(ctx, p, vs)}, nil
			}),
		Define(Capability{Name: "create_mention_view", Title: "Save a view", Group: "view", Method: "POST", Path: "/api/v1/views",
			Scope: MentionsWrite, Write: true, Description: "Save a named mentions filter (same keys as the list_mentions query) for quick reuse."},
			func(ctx context.Context, p *Principal, in *CreateViewIn) (*api.View, error) {
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				return recorded[api.View](s.Store.CreateView(ctx, p.ProjectID, in.Name, filtersJSON(in.Filters)))
			}),
		Define(Capability{Name: "update_mention_view", Title: "Update a view", Group: "view", Method: "PATCH", Path: "/api/v1/views/:id",
			Scope: MentionsWrite, Write: true, Idempotent: true, Description: "Rename a saved view or replace its filters."},
			func(ctx context.Context, p *Principal, in *UpdateViewIn) (*api.View, error) {
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				var f json.RawMessage
				if in.Filters != nil {
					f = filtersJSON(in.Filters)
				}
				return recorded[api.View](s.Store.UpdateView(ctx, p.ProjectID, in.ID, in.Name, f))
			}),
		Define(Capability{Name: "delete_mention_view", Title: "Delete a view", Group: "view", Method: "DELETE", Path: "/api/v1/views/:id",
			Scope: MentionsWrite, Write: true, Destructive: true, Idempotent: true, Description: "Delete a saved view; mentions are unaffected."},
			func(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
				if err := s.Store.DeleteView(ctx, p.ProjectID, in.ID); err != nil {
					return nil, err
				}
				return &DeletedOut{Deleted: true, ID: in.ID}, nil
			}),
	}
}
