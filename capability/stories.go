package capability

import (
	"context"
	"errors"

	"earshot/api"
	"earshot/store"
)

// Stories: mentions that share a link or carry near-duplicate text, across
// sources and monitors, grouped at ingest (store/story_index.go).

type ListStoriesIn struct {
	MinMentions *int   `json:"min_mentions,omitempty" in:"query" validate:"min=2,max=100000" default:"2" doc:"Only stories with at least this many mentions."`
	Since       string `json:"since,omitempty" in:"query" validate:"format=date-time" doc:"Only stories with a mention published at or after this ISO 8601 time."`
	Source      string `json:"source,omitempty" in:"query" validate:"enum=@sources" doc:"Only stories with a mention from this platform."`
	Status      string `json:"status,omitempty" in:"query" validate:"enum=@statuses" doc:"Only stories with a mention in this triage status (status=new: stories that still need triage)."`
	Cursor      string `json:"cursor,omitempty" in:"query" validate:"maxlen=500" doc:"The nextCursor of the previous page."`
	Limit       *int   `json:"limit,omitempty" in:"query" validate:"min=1,max=100" default:"50" doc:"Page size, 1-100."`
}

type ListStoriesOut struct {
	Stories    []*api.Story `json:"stories"`
	NextCursor *string      `json:"nextCursor"`
	HasMore    bool         `json:"hasMore"`
}

type UpdateStoryStatusIn struct {
	ID     string `json:"id" in:"path" validate:"required,format=uuid" doc:"Story id."`
	Status string `json:"status" validate:"required,enum=@statuses" doc:"The status every mention of the story gets: new, reviewed, done or ignored (ignored teaches the relevance model, as for one mention)."`
}

type UpdateStoryStatusOut struct {
	api.Story
	MentionsUpdated int `json:"mentions_updated" doc:"How many mentions changed status (those already in it are left untouched and fire no event)."`
}

func (s *Service) storyCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_stories", Title: "List stories", Group: "story", Method: "GET", Path: "/api/v1/stories",
			Scope: MentionsRead, Idempotent: true,
			Description: "Stories: mentions that share a link (the same article, however its URL is spelled) or carry near-duplicate text, across sources and monitors, " +
				"each with its title, mention count, counts per source and per status, and first/last publication. The most recently active first. " +
				"List a story's mentions with list_mentions?story_id=, or the inbox with each story once with list_mentions?collapse=story."},
			s.listStories),
		Define(Capability{Name: "get_story", Title: "Get a story", Group: "story", Method: "GET", Path: "/api/v1/stories/:id",
			Scope: MentionsRead, Idempotent: true, Description: "Get one story: title, shared link, mention count, counts per source and per triage status, first and last seen."},
			func(ctx context.Context, p *Principal, in *IDPath) (*api.Story, error) {
				return recorded[api.Story](s.Store.Story(ctx, p.ProjectID, in.ID))
			}),
		Define(Capability{Name: "update_story_status", Title: "Triage a story", Group: "story", Method: "PATCH", Path: "/api/v1/stories/:id",
			Scope: MentionsWrite, Write: true, Idempotent: true,
			Description: "Set the triage status of every mention of a story at once (e.g. done when the incident is handled, ignored when it is not about the brand). " +
				"Each mention whose status changes fires its own mention.updated; returns the story with mentions_updated."},
			func(ctx context.Context, p *Principal, in *UpdateStoryStatusIn) (*UpdateStoryStatusOut, error) {
				st, n, err := s.Store.UpdateStoryStatus(ctx, p.ProjectID, in.ID, in.Status)
				if err != nil {
					return nil, err
				}
				return &UpdateStoryStatusOut{Story: *st.Record(), MentionsUpdated: n}, nil
			}),
	}
}

func (s *Service) listStories(ctx context.Context, p *Principal, in *ListStoriesIn) (*ListStoriesOut, error) {
	f := store.StoryFilter{ProjectID: p.ProjectID, Source: in.Source, Status: in.Status, MinMentions: *in.MinMentions}
	if in.Since != "" {
		t, _ := ParseTimeParam(in.Since)
		f.Since = &t
	}
	limit := *in.Limit
	binding := "stories:" + p.ProjectID + ":" + in.Since + ":" + in.Source + ":" + in.Status + ":" + itoa(f.MinMentions)
	after, err := openAfter(s, in.Cursor, binding, func(p *store.StoryPosition) bool { return p.At != "" && p.ID != "" })
	if err != nil {
		return nil, err
	}
	items, err := s.Store.ListStories(ctx, f, after, limit+1)
	if err != nil {
		return nil, err
	}
	out := &ListStoriesOut{}
	if len(items) > limit {
		items = items[:limit]
		out.HasMore = true
		c := s.sealCursor(store.PositionOfStory(items[limit-1]), binding)
		out.NextCursor = &c
	}
	out.Stories = store.StoryRecords(items)
	return out, nil
}

// storyFilter applies list_mentions' story_id and collapse to f: a story
// of another project is a 404 on story_id, like a monitor_id.
func (s *Service) storyFilter(ctx context.Context, p *Principal, q MentionQuery, f *store.MentionFilter) error {
	if q.StoryID != "" {
		if _, err := s.Store.Story(ctx, p.ProjectID, q.StoryID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return notFoundParam("story", "story_id")
			}
			return err
		}
		f.StoryID = q.StoryID
	}
	if q.Collapse == "story" {
		if f.CollectedSince != nil {
			return Invalid("collapse", "collapse=story cannot be combined with collected_since, which lists every mention in collection order")
		}
		f.CollapseStories = true
	}
	return nil
}

// deref is a nullable string's value, "" for null (CSV cells).
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
