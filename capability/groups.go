package capability

import (
	"context"

	"earshot/api"
	"earshot/store"
)

// Keyword groups: named sets of keywords that share-of-voice counts and
// mention filters use.

type CreateGroupIn struct {
	Name  string `json:"name" validate:"required,maxlen=80" doc:"Group name, e.g. the brand or a competitor."`
	IsOwn bool   `json:"is_own,omitempty" doc:"true counts this group as the own brand in share of voice."`
}

type UpdateGroupIn struct {
	ID    string  `json:"id" in:"path" validate:"required,format=uuid" doc:"Keyword group id."`
	Name  *string `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	IsOwn *bool   `json:"is_own,omitempty" doc:"Whether this group is the own brand."`
}

type GroupsOut struct {
	KeywordGroups []*api.KeywordGroup `json:"keyword_groups"`
}

func (s *Service) groupCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_keyword_groups", Title: "List keyword groups", Group: "keyword group", Method: "GET", Path: "/api/v1/keyword-groups",
			Scope: MonitorsRead, Idempotent: true, Description: "List keyword groups (own brand and competitors), oldest first."},
			func(ctx context.Context, p *Principal, _ *Empty) (*GroupsOut, error) {
				gs, err := s.Store.ListKeywordGroups(ctx, p.ProjectID)
				return &GroupsOut{KeywordGroups: store.KeywordGroupRecords(gs)}, err
			}),
		Define(Capability{Name: "create_keyword_group", Title: "Create a keyword group", Group: "keyword group", Method: "POST", Path: "/api/v1/keyword-groups",
			Scope: MonitorsWrite, Write: true, Description: "Create a labelled group of keywords; is_own=true marks the own brand for share of voice. File monitors under it with group_id."},
			func(ctx context.Context, p *Principal, in *CreateGroupIn) (*api.KeywordGroup, error) {
				return recorded[api.KeywordGroup](s.Store.CreateKeywordGroup(ctx, p.ProjectID, in.Name, in.IsOwn))
			}),
		Define(Capability{Name: "update_keyword_group", Title: "Update a keyword group", Group: "keyword group", Method: "PATCH", Path: "/api/v1/keyword-groups/:id",
			Scope: MonitorsWrite, Write: true, Idempotent: true, Description: "Rename a keyword group or change whether it is the own brand."},
			func(ctx context.Context, p *Principal, in *UpdateGroupIn) (*api.KeywordGroup, error) {
				return recorded[api.KeywordGroup](s.Store.UpdateKeywordGroup(ctx, p.ProjectID, in.ID, in.Name, in.IsOwn))
			}),
		Define(Capability{Name: "delete_keyword_group", Title: "Delete a keyword group", Group: "keyword group", Method: "DELETE", Path: "/api/v1/keyword-groups/:id",
			Scope: MonitorsWrite, Write: true, Destructive: true, Idempotent: true, Description: "Delete a keyword group; its monitors become ungrouped and mentions stay."},
			func(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
				if err := s.Store.DeleteKeywordGroup(ctx, p.ProjectID, in.ID); err != nil {
					return nil, err
				}
				return &DeletedOut{Deleted: true, ID: in.ID}, nil
			}),
	}
}
