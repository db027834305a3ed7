package capability

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"earshot/api"
	"earshot/collect/wire"
	"earshot/netguard"
	"earshot/store"
	"earshot/vocab"
)

type CreateMonitorIn struct {
	Name                string   `json:"name" validate:"required,maxlen=80" doc:"Monitor name."`
	Keywords            []string `json:"keywords,omitempty" validate:"maxitems=20,minlen=1,maxlen=200" doc:"Literal keywords, matched case-insensitively on word boundaries. List every spelling people use (name, domain, @handle). Optional when watch_accounts, feed_urls or review_urls give something to watch."`
	ExcludeKeywords     []string `json:"exclude_keywords,omitempty" validate:"maxitems=20,minlen=1,maxlen=200" doc:"A post containing any of these is dropped."`
	QueryMode           string   `json:"query_mode,omitempty" validate:"enum=@query_modes" default:"any" doc:"any: one keyword occurs; all: every keyword occurs; phrase: the keywords in order form one phrase."`
	WatchAccounts       []string `json:"watch_accounts,omitempty" validate:"maxitems=50,minlen=1,maxlen=200" doc:"Handles whose posts are taken regardless of keywords (Bluesky: handle or DID; Mastodon: @user@instance; LinkedIn: organization ids or URNs)."`
	FeedURLs            []string `json:"feed_urls,omitempty" validate:"maxitems=50,format=uri,maxlen=2048" doc:"RSS or Atom feeds read by the news source."`
	ReviewURLs          []string `json:"review_urls,omitempty" validate:"maxitems=50,format=uri,maxlen=2048" doc:"Review pages (schema.org Review markup, App Store app pages, Trustpilot) read by the reviews source. Google Play pages are refused: Play has no public reviews API."`
	Sources             []string `json:"sources,omitempty" validate:"enum=@sources" doc:"Platforms to watch; all when omitted."`
	BackfillHours       *int     `json:"backfill_hours,omitempty" validate:"enum=24|72|168|720|1440|2160|4320" default:"24" doc:"How far back the first scan looks."`
	ScanIntervalMinutes *int     `json:"scan_interval_minutes,omitempty" validate:"min=5,max=1440" default:"15" doc:"Minutes between scans."`
	GroupName           string   `json:"group_name,omitempty" validate:"enum=my_brand|competitors|custom" doc:"my_brand, competitors or custom."`
	GroupID             *string  `json:"group_id,omitempty" validate:"format=uuid" doc:"Keyword group to file this monitor's keywords under (share of voice)."`
}

type UpdateMonitorIn struct {
	ID                  string     `json:"id" in:"path" validate:"required,format=uuid" doc:"Monitor id."`
	Name                *string    `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	Keywords            *[]string  `json:"keywords,omitempty" validate:"maxitems=20,minlen=1,maxlen=200" doc:"Replaces the keyword list."`
	ExcludeKeywords     *[]string  `json:"exclude_keywords,omitempty" validate:"maxitems=20,minlen=1,maxlen=200" doc:"Replaces the exclude list."`
	QueryMode           *string    `json:"query_mode,omitempty" validate:"enum=@query_modes" doc:"any, all or phrase."`
	WatchAccounts       *[]string  `json:"watch_accounts,omitempty" validate:"maxitems=50,minlen=1,maxlen=200" doc:"Replaces the watched accounts."`
	FeedURLs            *[]string  `json:"feed_urls,omitempty" validate:"maxitems=50,format=uri,maxlen=2048" doc:"Replaces the feeds."`
	ReviewURLs          *[]string  `json:"review_urls,omitempty" validate:"maxitems=50,format=uri,maxlen=2048" doc:"Replaces the review pages."`
	Sources             *[]string  `json:"sources,omitempty" validate:"enum=@sources" doc:"Replaces the sources."`
	Active              *bool      `json:"active,omitempty" doc:"false pauses collection and keeps history; true resumes it (402 when the quota is used up)."`
	BackfillHours       *int       `json:"backfill_hours,omitempty" validate:"enum=24|72|168|720|1440|2160|4320" doc:"Backfill window of a first scan."`
	ScanIntervalMinutes *int       `json:"scan_interval_minutes,omitempty" validate:"min=5,max=1440" doc:"Minutes between scans."`
	GroupName           *string    `json:"group_name,omitempty" validate:"enum=my_brand|competitors|custom" doc:"my_brand, competitors or custom."`
	GroupID             NullString `json:"group_id,omitzero" validate:"format=uuid" doc:"Keyword group, or null to ungroup."`
}

type MonitorsOut struct {
	Monitors []*api.Monitor `json:"monitors"`
}

type UpdateKeywordIn struct {
	ID       string   `json:"id" in:"path" validate:"required,format=uuid" doc:"The monitor id."`
	Keywords []string `json:"keywords" validate:"required,maxitems=20,minlen=1,maxlen=200" doc:"The new keyword list; replaces the old one (this does not rename a keyword)."`
}

type UpdateKeywordOut struct {
	ID       string   `json:"id"`
	Keywords []string `json:"keywords"`
	Active   bool     `json:"active"`
}

type DeleteKeywordIn struct {
	ID string `json:"id" in:"path" validate:"required,maxlen=200" doc:"The keyword itself (URL-encoded), compared case-insensitively."`
}

type DeleteKeywordOut struct {
	Deleted    bool     `json:"deleted"`
	Keyword    string   `json:"keyword"`
	MonitorIDs []string `json:"monitor_ids"`
	Stopped    []string `json:"stopped_monitor_ids"`
}

func (s *Service) monitorCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_monitors", Title: "List monitors", Group: "monitor", Method: "GET", Path: "/api/v1/monitors",
			Scope: MonitorsRead, Idempotent: true,
			Description: "List the project's monitors, oldest first, with each source's health (ok, degraded, not_configured, rate_limited, cap_reached, failing, stale, quota_reached) and what its last scan read, stored and skipped."},
			s.listMonitors),
		Define(Capability{Name: "create_monitor", Title: "Create a monitor", Group: "monitor", Method: "POST", Path: "/api/v1/monitors",
			Scope: MonitorsWrite, Write: true,
			Description: "Start watching keywords (and optionally accounts, feeds, review pages) across sources. The first scan starts immediately in the background. Check get_usage first when near the quota: a used-up quota answers 402."},
			s.createMonitor),
		Define(Capability{Name: "get_monitor", Title: "Get a monitor", Group: "monitor", Method: "GET", Path: "/api/v1/monitors/:id",
			Scope: MonitorsRead, Idempotent: true, Description: "Get one monitor with its per-source health."},
			s.getMonitor),
		Define(Capability{Name: "update_monitor", Title: "Update a monitor", Group: "monitor", Method: "PATCH", Path: "/api/v1/monitors/:id",
			Scope: MonitorsWrite, Write: true, Idempotent: true,
			Description: "Change a monitor; only the fields sent change. Send active:false to pause collection without losing history (prefer this over delete_monitor if the monitor may be wanted back)."},
			s.updateMonitor),
		Define(Capability{Name: "delete_monitor", Title: "Delete a monitor", Group: "monitor", Method: "DELETE", Path: "/api/v1/monitors/:id",
			Scope: MonitorsWrite, Write: true, Destructive: true, Idempotent: true,
			Description: "Stop a monitor permanently: it leaves list_monitors, its mentions stay and the monitor_id filter still finds them."},
			s.deleteMonitor),
		Define(Capability{Name: "update_keyword", Title: "Replace a monitor's keywords", Group: "monitor", Method: "PATCH", Path: "/api/v1/keywords/:id",
			Scope: MonitorsWrite, Write: true, Idempotent: true,
			Description: "Replace the whole keyword list of the monitor whose id is given. A monitor left with nothing to watch is paused."},
			s.updateKeyword),
		Define(Capability{Name: "delete_keyword", Title: "Delete a keyword everywhere", Group: "keyword", Method: "DELETE", Path: "/api/v1/keywords/:id",
			Scope: MonitorsWrite, Write: true, Destructive: true, Idempotent: true,
			Description: "Remove a keyword (the path holds the keyword text) from every monitor of the project. A monitor left with nothing to watch is soft-stopped (active false); collected mentions keep their monitor_id."},
			s.deleteKeyword),
	}
}

func (s *Service) listMonitors(ctx context.Context, p *Principal, _ *Empty) (*MonitorsOut, error) {
	ms, err := s.Store.ListMonitors(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	return &MonitorsOut{Monitors: store.MonitorRecords(ms)}, nil
}

func (s *Service) getMonitor(ctx context.Context, p *Principal, in *IDPath) (*api.Monitor, error) {
	return s.monitorRecord(ctx, p.ProjectID, in.ID)
}

// monitorRecord reads a monitor as create, get and update_monitor answer it.
func (s *Service) monitorRecord(ctx context.Context, projectID, id string) (*api.Monitor, error) {
	m, err := s.Store.Monitor(ctx, projectID, id)
	return m.Record(), err
}

// quotaLeft returns an error when the project's quota is used up.
func (s *Service) checkQuota(ctx context.Context, projectID string) error {
	pr, err := s.Store.Project(ctx, projectID)
	if err != nil {
		return err
	}
	q := s.Quota(pr.Plan)
	if q == 0 {
		return nil
	}
	u, err := s.Store.Usage(ctx, projectID, store.PeriodStart(s.now()))
	if err != nil {
		return err
	}
	if u.MentionsUsed >= q {
		return UsageLimit(fmt.Sprintf("the %s plan's %d mentions for this month are used up; change the plan or wait for the next period", pr.Plan, q))
	}
	return nil
}

func (s *Service) resolveGroup(ctx context.Context, projectID string, id *string) (*store.KeywordGroup, error) {
	if id == nil {
		return nil, nil
	}
	g, err := s.Store.KeywordGroup(ctx, projectID, *id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, NotFound("keyword group")
	}
	return g, err
}

// checkFetchURLs refuses feed and review URLs that name a refused address (the
// URL guard of docs/decisions.md#webhooks, applied to what collectors fetch for
// the user), so the user hears it at once instead of from a failing source.
func (s *Service) checkFetchURLs(p *Principal, field string, urls []string) error {
	if field == "review_urls" {
		for i, raw := range urls {
			if wire.IsGooglePlayURL(raw) {
				return Invalid(fmt.Sprintf("%s[%d]", field, i), "%s", wire.GooglePlayUnsupported)
			}
		}
	}
	if p.Kind == KindSystem {
		return nil // the demo's own seeding points at its local replay server
	}
	for i, raw := range urls {
		if err := netguard.ValidateFetchURL(raw, s.Config.AllowPrivateWebhooks); err != nil {
			return refusedURL(fmt.Sprintf("%s[%d]", field, i), err, "URL", "feeds and review pages must be public addresses")
		}
	}
	return nil
}

func (s *Service) createMonitor(ctx context.Context, p *Principal, in *CreateMonitorIn) (*api.Monitor, error) {
	if err := s.checkFetchURLs(p, "feed_urls", in.FeedURLs); err != nil {
		return nil, err
	}
	if err := s.checkFetchURLs(p, "review_urls", in.ReviewURLs); err != nil {
		return nil, err
	}
	m := &store.Monitor{ProjectID: p.ProjectID, Name: in.Name, Keywords: nz(in.Keywords), ExcludeKeywords: nz(in.ExcludeKeywords),
		QueryMode: in.QueryMode, WatchAccounts: nz(in.WatchAccounts), FeedURLs: nz(in.FeedURLs), ReviewURLs: nz(in.ReviewURLs),
		Sources: dedupe(nz(in.Sources)), GroupName: in.GroupName, Active: true, ScanIntervalMinutes: *in.ScanIntervalMinutes, BackfillHours: *in.BackfillHours}
	if len(m.Sources) == 0 {
		m.Sources = slices.Clone(vocab.Sources)
	}
	if !m.HasSomethingToWatch() {
		return nil, Invalid("keywords", "keywords are required unless watch_accounts, feed_urls or review_urls give something to watch")
	}
	g, err := s.resolveGroup(ctx, p.ProjectID, in.GroupID)
	if err != nil {
		return nil, err
	}
	if g != nil {
		m.GroupID = &g.ID
		if m.GroupName == "" {
			m.GroupName = map[bool]string{true: "my_brand", false: "competitors"}[g.IsOwn]
		}
	}
	if m.GroupName == "" {
		m.GroupName = "custom"
	}
	if err := s.checkQuota(ctx, p.ProjectID); err != nil {
		return nil, err
	}
	if err := s.Store.CreateMonitor(ctx, m); err != nil {
		return nil, err
	}
	s.monitorChanged(ctx, p.ProjectID, m.ID)
	return s.monitorRecord(ctx, p.ProjectID, m.ID)
}

// monitorChanged nudges the scheduler once the change is committed (an
// idempotent request commits at its end): before, the scheduler would not
// see it.
func (s *Service) monitorChanged(ctx context.Context, projectID, id string) {
	if s.MonitorChanged != nil {
		s.Store.AfterCommit(ctx, func() { s.MonitorChanged(projectID, id) })
	}
}

func (s *Service) updateMonitor(ctx context.Context, p *Principal, in *UpdateMonitorIn) (*api.Monitor, error) {
	m, err := s.Store.Monitor(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	wasActive := m.Active
	before := watchKey(m)
	set := func(dst *[]string, src *[]string) {
		if src != nil {
			*dst = nz(*src)
		}
	}
	if in.Name != nil {
		m.Name = *in.Name
	}
	set(&m.Keywords, in.Keywords)
	set(&m.ExcludeKeywords, in.ExcludeKeywords)
	set(&m.WatchAccounts, in.WatchAccounts)
	if in.FeedURLs != nil {
		if err := s.checkFetchURLs(p, "feed_urls", *in.FeedURLs); err != nil {
			return nil, err
		}
	}
	if in.ReviewURLs != nil {
		if err := s.checkFetchURLs(p, "review_urls", *in.ReviewURLs); err != nil {
			return nil, err
		}
	}
	set(&m.FeedURLs, in.FeedURLs)
	set(&m.ReviewURLs, in.ReviewURLs)
	if in.Sources != nil {
		m.Sources = dedupe(nz(*in.Sources))
		if len(m.Sources) == 0 {
			return nil, Invalid("sources", "sources must name at least one platform")
		}
	}
	if in.QueryMode != nil {
		m.QueryMode = *in.QueryMode
	}
	if in.Active != nil {
		m.Active = *in.Active
	}
	if in.BackfillHours != nil {
		m.BackfillHours = *in.BackfillHours
	}
	if in.ScanIntervalMinutes != nil {
		m.ScanIntervalMinutes = *in.ScanIntervalMinutes
	}
	if in.GroupName != nil {
		m.GroupName = *in.GroupName
	}
	if in.GroupID.Set {
		g, err := s.resolveGroup(ctx, p.ProjectID, in.GroupID.Ptr())
		if err != nil {
			return nil, err
		}
		if g == nil {
			m.GroupID = nil
		} else {
			m.GroupID = &g.ID
		}
	}
	if !m.HasSomethingToWatch() {
		if in.Active != nil && *in.Active {
			return nil, Invalid("keywords", "a monitor needs keywords, watch_accounts, feed_urls or review_urls to be active")
		}
		m.Active = false
	}
	reactivated := m.Active && !wasActive
	if reactivated {
		if err := s.checkQuota(ctx, p.ProjectID); err != nil {
			return nil, err
		}
	}
	if err := s.Store.SaveMonitor(ctx, m, reactivated); err != nil {
		return nil, err
	}
	if watchKey(m) != before {
		if err := s.Store.RestartCollection(ctx, m.ID); err != nil {
			return nil, err
		}
	}
	s.monitorChanged(ctx, p.ProjectID, m.ID)
	return s.monitorRecord(ctx, p.ProjectID, m.ID)
}

// watchKey summarises what a monitor searches for; when it changes, the next
// scan backfills instead of continuing from the old incremental state.
func watchKey(m *store.Monitor) string {
	return fmt.Sprint(m.Keywords, m.ExcludeKeywords, m.QueryMode, m.WatchAccounts, m.FeedURLs, m.ReviewURLs)
}

func (s *Service) deleteMonitor(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
	if err := s.Store.DeleteMonitor(ctx, p.ProjectID, in.ID); err != nil {
		return nil, err
	}
	s.monitorChanged(ctx, p.ProjectID, in.ID)
	return &DeletedOut{Deleted: true, ID: in.ID}, nil
}

func (s *Service) updateKeyword(ctx context.Context, p *Principal, in *UpdateKeywordIn) (*UpdateKeywordOut, error) {
	m, err := s.Store.Monitor(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	m.Keywords = nz(in.Keywords)
	if !m.HasSomethingToWatch() {
		m.Active = false
	}
	if err := s.Store.SaveMonitor(ctx, m, false); err != nil {
		return nil, err
	}
	if err := s.Store.RestartCollection(ctx, m.ID); err != nil {
		return nil, err
	}
	s.monitorChanged(ctx, p.ProjectID, m.ID)
	return &UpdateKeywordOut{ID: m.ID, Keywords: m.Keywords, Active: m.Active}, nil
}

func (s *Service) deleteKeyword(ctx context.Context, p *Principal, in *DeleteKeywordIn) (*DeleteKeywordOut, error) {
	changed, err := s.Store.RemoveKeyword(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 {
		return nil, NotFound("keyword")
	}
	out := &DeleteKeywordOut{Deleted: true, Keyword: in.ID, MonitorIDs: []string{}, Stopped: []string{}}
	for _, m := range changed {
		out.MonitorIDs = append(out.MonitorIDs, m.ID)
		if !m.Active {
			out.Stopped = append(out.Stopped, m.ID)
		}
		s.monitorChanged(ctx, p.ProjectID, m.ID)
	}
	return out, nil
}

func nz(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func itoa(i int) string { return strconv.Itoa(i) }
