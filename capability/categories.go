package capability

import (
	"context"

	"earshot/api"
	"earshot/store"
)

// Categories: the six classifier categories, which a project may relabel,
// describe or disable.

type CategoryPath struct {
	ID string `json:"id" in:"path" validate:"required,enum=@categories" doc:"The category value."`
}

type UpdateCategoryIn struct {
	ID          string  `json:"id" in:"path" validate:"required,enum=@categories" doc:"The category value."`
	Label       *string `json:"label,omitempty" validate:"minlen=1,maxlen=80" doc:"Display label."`
	Description *string `json:"description,omitempty" validate:"maxlen=500" doc:"What belongs in this category; the classifier's prompt uses it."`
	Enabled     *bool   `json:"enabled,omitempty" doc:"false stops new mentions being filed here (they become other)."`
}

type CategoriesOut struct {
	Categories []*api.Category `json:"categories"`
}

func (s *Service) categoryCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_categories", Title: "List categories", Group: "category", Method: "GET", Path: "/api/v1/categories",
			Scope: MentionsRead, Idempotent: true, Description: "List the six categories with the project's labels, descriptions and whether each is enabled."},
			func(ctx context.Context, p *Principal, _ *Empty) (*CategoriesOut, error) {
				cs, err := s.Store.ListCategories(ctx, p.ProjectID)
				return &CategoriesOut{Categories: store.CategoryRecords(cs)}, err
			}),
		Define(Capability{Name: "update_category", Title: "Update a category", Group: "category", Method: "PATCH", Path: "/api/v1/categories/:id",
			Scope: MentionsWrite, Write: true, Idempotent: true, Description: "Relabel, describe, enable or disable a category."},
			func(ctx context.Context, p *Principal, in *UpdateCategoryIn) (*api.Category, error) {
				if in.ID == "other" && in.Enabled != nil && !*in.Enabled {
					return nil, Invalid("enabled", "the other category cannot be disabled: it receives disabled categories' mentions")
				}
				return recorded[api.Category](s.Store.UpdateCategory(ctx, p.ProjectID, in.ID, in.Label, in.Description, in.Enabled))
			}),
		Define(Capability{Name: "delete_category", Title: "Disable a category", Group: "category", Method: "DELETE", Path: "/api/v1/categories/:id",
			Scope: MentionsWrite, Write: true, Destructive: true, Idempotent: true,
			Description: "Disable a category: existing mentions keep the value; new mentions are filed as other instead."},
			func(ctx context.Context, p *Principal, in *CategoryPath) (*api.Category, error) {
				if in.ID == "other" {
					return nil, Invalid("id", "the other category cannot be disabled")
				}
				off := false
				return recorded[api.Category](s.Store.UpdateCategory(ctx, p.ProjectID, in.ID, nil, nil, &off))
			}),
	}
}
