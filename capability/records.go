package capability

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"earshot/deliver"
	"earshot/store"
)

func (s *Service) now() time.Time { return time.Now().UTC() }

// ---- keyword groups ----

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
	KeywordGroups []*store.KeywordGroup `json:"keyword_groups"`
}

func (s *Service) groupCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_keyword_groups", Title: "List keyword groups", Group: "keyword group", Method: "GET", Path: "/api/v1/keyword-groups",
			Scope: MonitorsRead, Idempotent: true, Description: "List keyword groups (own brand and competitors), oldest first."},
			func(ctx context.Context, p *Principal, _ *Empty) (*GroupsOut, error) {
				gs, err := s.Store.ListKeywordGroups(ctx, p.ProjectID)
				return &GroupsOut{KeywordGroups: gs}, err
			}),
		Define(Capability{Name: "create_keyword_group", Title: "Create a keyword group", Group: "keyword group", Method: "POST", Path: "/api/v1/keyword-groups",
			Scope: MonitorsWrite, Write: true, Description: "Create a labelled group of keywords; is_own=true marks the own brand for share of voice. File monitors under it with group_id."},
			func(ctx context.Context, p *Principal, in *CreateGroupIn) (*store.KeywordGroup, error) {
				return s.Store.CreateKeywordGroup(ctx, p.ProjectID, in.Name, in.IsOwn)
			}),
		Define(Capability{Name: "update_keyword_group", Title: "Update a keyword group", Group: "keyword group", Method: "PATCH", Path: "/api/v1/keyword-groups/:id",
			Scope: MonitorsWrite, Write: true, Idempotent: true, Description: "Rename a keyword group or change whether it is the own brand."},
			func(ctx context.Context, p *Principal, in *UpdateGroupIn) (*store.KeywordGroup, error) {
				return s.Store.UpdateKeywordGroup(ctx, p.ProjectID, in.ID, in.Name, in.IsOwn)
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

// ---- saved views ----

// ViewFilters is a saved filter: the same keys as the list_mentions query.
type ViewFilters struct {
	MonitorID    string `json:"monitor_id,omitempty" validate:"format=uuid"`
	Source       string `json:"source,omitempty" validate:"enum=@sources"`
	Category     string `json:"category,omitempty" validate:"enum=@categories"`
	Sentiment    string `json:"sentiment,omitempty" validate:"enum=@sentiments"`
	Status       string `json:"status,omitempty" validate:"enum=@statuses"`
	MinUrgency   *int   `json:"min_urgency,omitempty" validate:"min=0,max=100"`
	MaxUrgency   *int   `json:"max_urgency,omitempty" validate:"min=0,max=100"`
	AuthorHandle string `json:"author_handle,omitempty" validate:"maxlen=200"`
	Search       string `json:"search,omitempty" validate:"maxlen=200"`
	DatePreset   string `json:"date_preset,omitempty" validate:"enum=@date_presets"`
	Since        string `json:"since,omitempty" validate:"format=date-time"`
	Until        string `json:"until,omitempty" validate:"format=date-time"`
}

type CreateViewIn struct {
	Name    string       `json:"name" validate:"required,maxlen=80" doc:"View name."`
	Filters *ViewFilters `json:"filters,omitempty" doc:"Filters with the same keys as the list_mentions query."`
}

type UpdateViewIn struct {
	ID      string       `json:"id" in:"path" validate:"required,format=uuid" doc:"View id."`
	Name    *string      `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	Filters *ViewFilters `json:"filters,omitempty" doc:"Replaces the filters."`
}

type ViewsOut struct {
	Views []*ViewWithCount `json:"views"`
}

// checkFilters applies to saved filters the rules list_mentions applies to
// its query: the monitor must be one of the project's (a deleted one
// counts; another project's answers exactly like a random id) and the
// ranges must not be empty.
func (s *Service) checkFilters(ctx context.Context, p *Principal, f *ViewFilters) error {
	if f == nil {
		return nil
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
	return s.checkMonitorRef(ctx, p, f.MonitorID, "filters.monitor_id")
}

func filtersJSON(f *ViewFilters) json.RawMessage {
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
			func(ctx context.Context, p *Principal, in *CreateViewIn) (*store.View, error) {
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				return s.Store.CreateView(ctx, p.ProjectID, in.Name, filtersJSON(in.Filters))
			}),
		Define(Capability{Name: "update_mention_view", Title: "Update a view", Group: "view", Method: "PATCH", Path: "/api/v1/views/:id",
			Scope: MentionsWrite, Write: true, Idempotent: true, Description: "Rename a saved view or replace its filters."},
			func(ctx context.Context, p *Principal, in *UpdateViewIn) (*store.View, error) {
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				var f json.RawMessage
				if in.Filters != nil {
					f = filtersJSON(in.Filters)
				}
				return s.Store.UpdateView(ctx, p.ProjectID, in.ID, in.Name, f)
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

// ---- categories ----

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
	Categories []*store.Category `json:"categories"`
}

func (s *Service) categoryCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_categories", Title: "List categories", Group: "category", Method: "GET", Path: "/api/v1/categories",
			Scope: MentionsRead, Idempotent: true, Description: "List the six categories with the project's labels, descriptions and whether each is enabled."},
			func(ctx context.Context, p *Principal, _ *Empty) (*CategoriesOut, error) {
				cs, err := s.Store.ListCategories(ctx, p.ProjectID)
				return &CategoriesOut{Categories: cs}, err
			}),
		Define(Capability{Name: "update_category", Title: "Update a category", Group: "category", Method: "PATCH", Path: "/api/v1/categories/:id",
			Scope: MentionsWrite, Write: true, Idempotent: true, Description: "Relabel, describe, enable or disable a category."},
			func(ctx context.Context, p *Principal, in *UpdateCategoryIn) (*store.Category, error) {
				if in.ID == "other" && in.Enabled != nil && !*in.Enabled {
					return nil, Invalid("enabled", "the other category cannot be disabled: it receives disabled categories' mentions")
				}
				return s.Store.UpdateCategory(ctx, p.ProjectID, in.ID, in.Label, in.Description, in.Enabled)
			}),
		Define(Capability{Name: "delete_category", Title: "Disable a category", Group: "category", Method: "DELETE", Path: "/api/v1/categories/:id",
			Scope: MentionsWrite, Write: true, Destructive: true, Idempotent: true,
			Description: "Disable a category: existing mentions keep the value; new mentions are filed as other instead."},
			func(ctx context.Context, p *Principal, in *CategoryPath) (*store.Category, error) {
				if in.ID == "other" {
					return nil, Invalid("id", "the other category cannot be disabled")
				}
				off := false
				return s.Store.UpdateCategory(ctx, p.ProjectID, in.ID, nil, nil, &off)
			}),
	}
}

// ---- alerts ----

type CreateAlertIn struct {
	Name       string       `json:"name" validate:"required,maxlen=80" doc:"Alert name."`
	Channel    string       `json:"channel" validate:"required,enum=email|webhook|slack" doc:"email, webhook (signed like webhooks) or slack (an incoming-webhook URL)."`
	Target     string       `json:"target" validate:"required,maxlen=2048" doc:"An email address, or the https URL to post to."`
	MinUrgency *int         `json:"min_urgency,omitempty" validate:"min=0,max=100" default:"70" doc:"Notify only mentions with urgency at least this."`
	Filters    *ViewFilters `json:"filters,omitempty" doc:"Filters like a saved view; only matching mentions notify."`
	Active     *bool        `json:"active,omitempty" default:"true" doc:"false creates it paused."`
	Digest     string       `json:"digest,omitempty" validate:"enum=instant|hourly|daily" default:"instant" doc:"instant sends each mention; hourly and daily send one digest."`
	Trigger    string       `json:"trigger,omitempty" validate:"enum=mention|spike" default:"mention" doc:"mention: each new relevant mention that matches (min_urgency, filters); spike: each detected spike (filters.monitor_id limits it to that monitor's, filters.sentiment=negative to negative spikes; min_urgency is not used)."`
}

type UpdateAlertIn struct {
	ID         string       `json:"id" in:"path" validate:"required,format=uuid" doc:"Alert id."`
	Name       *string      `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	Active     *bool        `json:"active,omitempty" doc:"Pause or resume."`
	MinUrgency *int         `json:"min_urgency,omitempty" validate:"min=0,max=100" doc:"Urgency threshold."`
	Channel    *string      `json:"channel,omitempty" validate:"enum=email|webhook|slack" doc:"New channel (send target too)."`
	Target     *string      `json:"target,omitempty" validate:"maxlen=2048" doc:"New target."`
	Filters    *ViewFilters `json:"filters,omitempty" doc:"Replaces the filters."`
	Digest     *string      `json:"digest,omitempty" validate:"enum=instant|hourly|daily" doc:"instant, hourly or daily."`
	Trigger    *string      `json:"trigger,omitempty" validate:"enum=mention|spike" doc:"mention or spike."`
}

type AlertOut struct {
	*store.Alert
	Secret *string `json:"secret,omitempty" doc:"Webhook channel only: the signing secret, shown once. null in an idempotent replay: the secret is shown once and not stored."`
}

type AlertsOut struct {
	Alerts []*store.Alert `json:"alerts"`
}

func (s *Service) checkTarget(channel, target string) error {
	switch channel {
	case "email":
		if err := checkFormat("email", target); err != nil {
			return Invalid("target", "target must be an email address for the email channel")
		}
	default:
		if err := s.checkWebhookURL("target", target); err != nil {
			return err
		}
	}
	return nil
}

// checkWebhookURL applies the SSRF guard of CONTRACT §8 to a webhook or
// alert target (the delivery client checks the resolved IP again). The
// message is the guard's reason, never a resolver's or Go's error text.
func (s *Service) checkWebhookURL(param, raw string) error {
	if err := deliver.ValidateURL(raw, s.Config.AllowPrivateWebhooks); err != nil {
		return refusedURL(param, err, "webhook URL", "webhooks must reach a public address")
	}
	return nil
}

// refusedURL is the 400 for a URL deliver's guard refused: the guard's
// reason, and for a refused address what is allowed instead. what names
// the URL when the error carries no reason.
func refusedURL(param string, err error, what, publicOnly string) error {
	var ue *deliver.URLError
	if !errors.As(err, &ue) {
		return Invalid(param, "%s is not an allowed %s", param, what)
	}
	if errors.Is(err, deliver.ErrForbiddenAddress) {
		return Invalid(param, "%s: %s; %s", param, ue.Reason, publicOnly)
	}
	return Invalid(param, "%s: %s", param, ue.Reason)
}

func (s *Service) alertCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_alerts", Title: "List alerts", Group: "alert", Method: "GET", Path: "/api/v1/alerts",
			Scope: MentionsRead, Idempotent: true, Description: "List alert rules, oldest first."},
			func(ctx context.Context, p *Principal, _ *Empty) (*AlertsOut, error) {
				as, err := s.Store.ListAlerts(ctx, p.ProjectID, false)
				return &AlertsOut{Alerts: as}, err
			}),
		Define(Capability{Name: "create_alert", Title: "Create an alert", Group: "alert", Method: "POST", Path: "/api/v1/alerts",
			Scope: AlertsWrite, Write: true, Secrets: []string{"secret"},
			Description: "Push new relevant mentions that match filters and reach min_urgency to email, a signed webhook or Slack, instantly or as an hourly/daily digest."},
			func(ctx context.Context, p *Principal, in *CreateAlertIn) (*AlertOut, error) {
				if err := s.checkTarget(in.Channel, in.Target); err != nil {
					return nil, err
				}
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				a := &store.Alert{ProjectID: p.ProjectID, Name: in.Name, Active: *in.Active, MinUrgency: *in.MinUrgency, Channel: in.Channel, Target: in.Target,
					Filters: filtersJSON(in.Filters), Digest: in.Digest, Trigger: in.Trigger}
				if err := checkSpikeFilters(a.Trigger, in.Filters); err != nil {
					return nil, err
				}
				out := &AlertOut{Alert: a}
				if a.Channel == "webhook" {
					a.Secret = deliver.NewSecret()
					out.Secret = &a.Secret
				}
				if err := s.Store.CreateAlert(ctx, a); err != nil {
					return nil, err
				}
				return out, nil
			}),
		Define(Capability{Name: "update_alert", Title: "Update an alert", Group: "alert", Method: "PATCH", Path: "/api/v1/alerts/:id",
			Scope: AlertsWrite, Write: true, Idempotent: true, Description: "Change an alert; only the fields sent change."},
			func(ctx context.Context, p *Principal, in *UpdateAlertIn) (*AlertOut, error) {
				a, err := s.Store.Alert(ctx, p.ProjectID, in.ID)
				if err != nil {
					return nil, err
				}
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				if in.Name != nil {
					a.Name = *in.Name
				}
				if in.Active != nil {
					a.Active = *in.Active
				}
				if in.MinUrgency != nil {
					a.MinUrgency = *in.MinUrgency
				}
				if in.Channel != nil {
					a.Channel = *in.Channel
				}
				if in.Target != nil {
					a.Target = *in.Target
				}
				if in.Filters != nil {
					a.Filters = filtersJSON(in.Filters)
				}
				if in.Digest != nil {
					a.Digest = *in.Digest
				}
				if in.Trigger != nil {
					a.Trigger = *in.Trigger
				}
				if in.Trigger != nil || in.Filters != nil {
					var f ViewFilters
					if err := json.Unmarshal(a.Filters, &f); err != nil {
						return nil, err
					}
					if err := checkSpikeFilters(a.Trigger, &f); err != nil {
						return nil, err
					}
				}
				if in.Channel != nil || in.Target != nil {
					if err := s.checkTarget(a.Channel, a.Target); err != nil {
						return nil, err
					}
				}
				if err := s.Store.SaveAlert(ctx, a); err != nil {
					return nil, err
				}
				return &AlertOut{Alert: a}, nil
			}),
		Define(Capability{Name: "delete_alert", Title: "Delete an alert", Group: "alert", Method: "DELETE", Path: "/api/v1/alerts/:id",
			Scope: AlertsWrite, Write: true, Destructive: true, Idempotent: true, Description: "Delete an alert; its notifications stop immediately. Mentions are unaffected."},
			func(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
				if err := s.Store.DeleteAlert(ctx, p.ProjectID, in.ID); err != nil {
					return nil, err
				}
				return &DeletedOut{Deleted: true, ID: in.ID}, nil
			}),
	}
}

// ---- usage ----

type UsageOut struct {
	Plan                 string     `json:"plan"`
	QuotaPeriod          string     `json:"quota_period"`
	MentionsIncluded     int        `json:"mentions_included"`
	MentionsUsed         int        `json:"mentions_used"`
	MentionsRemaining    int        `json:"mentions_remaining"`
	Unlimited            bool       `json:"unlimited"`
	MentionsDropped      int        `json:"mentions_dropped"`
	PeriodStart          string     `json:"period_start"`
	ProviderCostUSD      float64    `json:"provider_cost_usd"`
	CostPerNewMentionUSD float64    `json:"cost_per_new_mention_usd"`
	Days                 []UsageDay `json:"days" doc:"Mentions stored and posts dropped per UTC day over the last 30 days, today last (a trend across the month boundary)."`
}

func (s *Service) usageCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "get_usage", Title: "Get usage", Group: "usage", Method: "GET", Path: "/api/v1/usage",
			Scope: UsageRead, Idempotent: true,
			Description: "Quota consumption this month and the measured classifier cost. Check it before creating monitors when near the quota."},
			s.getUsage),
	}
}

func (s *Service) getUsage(ctx context.Context, p *Principal, _ *Empty) (*UsageOut, error) {
	pr, err := s.Store.Project(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	u, err := s.Store.Usage(ctx, p.ProjectID, store.PeriodStart(s.now()))
	if err != nil {
		return nil, err
	}
	q := s.Quota(pr.Plan)
	out := &UsageOut{Plan: pr.Plan, QuotaPeriod: "monthly", MentionsIncluded: q, MentionsUsed: u.MentionsUsed, Unlimited: q == 0,
		MentionsDropped: u.Dropped, PeriodStart: u.PeriodStart, ProviderCostUSD: round6(u.ProviderCostUSD)}
	if q > 0 {
		out.MentionsRemaining = max(0, q-u.MentionsUsed)
	}
	if u.MentionsUsed > 0 {
		out.CostPerNewMentionUSD = round6(u.ProviderCostUSD / float64(u.MentionsUsed))
	}
	if out.Days, err = s.usageDays(ctx, p.ProjectID); err != nil {
		return nil, err
	}
	return out, nil
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
