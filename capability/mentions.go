package capability

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"earshot/api"
	"earshot/collect"
	"earshot/store"
	"earshot/vocab"
)

// MentionFilters are the filters of list_mentions, export_mentions,
// count_mentions, get_mention_stats, saved views and alerts: the one
// mention filter of store (store/filter.go).
type MentionFilters = store.Filter

// FilterKeys are the mention filter's keys in order (the dashboard's filter
// and saved-view parameters).
func FilterKeys() []string { return store.FilterKeys() }

// MentionQuery holds the list_mentions query; export_mentions reuses it.
// Its JSON (field order included) is the cursor binding.
type MentionQuery struct {
	MentionFilters
	CollectedSince string `json:"collected_since,omitempty" in:"query" validate:"format=date-time" doc:"Sync mode: mentions collected at or after this time, oldest collected first; walk nextCursor to catch up without gaps."`
	Sort           string `json:"sort,omitempty" in:"query" validate:"enum=newest|urgency" default:"newest" doc:"newest: newest published first; urgency: most urgent first, then newest. Not with collected_since (sync order)."`
	Collapse       string `json:"collapse,omitempty" in:"query" validate:"enum=story" doc:"story: list each story once, as its first mention in this order that matches the filters, with story_count and story_sources for an 'and N more on …' line. Not with collected_since."`
}

type ListMentionsIn struct {
	MentionQuery
	Cursor string `json:"cursor,omitempty" in:"query" validate:"maxlen=500" doc:"The nextCursor of the previous page."`
	Limit  *int   `json:"limit,omitempty" in:"query" validate:"min=1,max=100" default:"50" doc:"Page size, 1-100."`
}

type ListMentionsOut struct {
	Items      []*api.Mention `json:"items"`
	NextCursor *string        `json:"nextCursor"`
	HasMore    bool           `json:"hasMore"`
}

type UpdateMentionStatusIn struct {
	ID               string `json:"id" in:"path" validate:"required,format=uuid" doc:"Mention id."`
	Status           string `json:"status,omitempty" validate:"enum=@statuses" doc:"new, reviewed, done (handled) or ignored (not really about the brand; teaches the relevance model). Give status, public_visibility or both; with neither the request is a validation error naming status."`
	PublicVisibility string `json:"public_visibility,omitempty" validate:"enum=@public_visibilities" doc:"The public page: auto (shown when relevant and neither negative nor misinformation), featured (always shown, first) or hidden (never shown)."`
}

type ExportIn struct {
	MentionQuery
	Limit *int `json:"limit,omitempty" in:"query" validate:"min=1,max=1000000" default:"100000" doc:"Most rows to export."`
}

type SOVIn struct {
	DatePreset string `json:"date_preset,omitempty" in:"query" validate:"enum=@bounded_date_presets" default:"last_30_days" doc:"Window; last_30_days when neither it nor since is given."`
	Since      string `json:"since,omitempty" in:"query" validate:"format=date-time" doc:"Window start (overrides date_preset)."`
	Until      string `json:"until,omitempty" in:"query" validate:"format=date-time" doc:"Window end (default now)."`
}

type SOVGroup struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	IsOwn    bool    `json:"is_own"`
	Mentions int     `json:"mentions"`
	Share    float64 `json:"share"`
	Positive int     `json:"positive" doc:"Of mentions, how many are positive."`
	Neutral  int     `json:"neutral" doc:"Of mentions, how many are neutral."`
	Negative int     `json:"negative" doc:"Of mentions, how many are negative."`
}

type SOVDayGroup struct {
	ID       string  `json:"id"`
	Mentions int     `json:"mentions"`
	Share    float64 `json:"share"`
}

type SOVDay struct {
	Date   string        `json:"date"`
	Total  int           `json:"total"`
	Groups []SOVDayGroup `json:"groups"`
}

type SOVOut struct {
	Since  string     `json:"since"`
	Until  string     `json:"until"`
	Total  int        `json:"total"`
	Groups []SOVGroup `json:"groups"`
	Days   []SOVDay   `json:"days"`
}

type PreviewIn struct {
	Keywords        []string `json:"keywords,omitempty" validate:"maxitems=20,minlen=1,maxlen=200" doc:"Draft keywords."`
	ExcludeKeywords []string `json:"exclude_keywords,omitempty" validate:"maxitems=20,minlen=1,maxlen=200" doc:"Draft excludes."`
	QueryMode       string   `json:"query_mode,omitempty" validate:"enum=@query_modes" doc:"any, all or phrase."`
	WatchAccounts   []string `json:"watch_accounts,omitempty" validate:"maxitems=50,minlen=1,maxlen=200" doc:"Draft watched accounts."`
	Sources         []string `json:"sources,omitempty" validate:"enum=@sources" doc:"Only these platforms."`
	Scan            *int     `json:"scan,omitempty" validate:"min=1,max=50000" default:"5000" doc:"How many of the newest stored mentions to test."`
	Limit           *int     `json:"limit,omitempty" validate:"min=1,max=100" default:"20" doc:"Most matches to return."`
}

type PreviewOut struct {
	Scanned int            `json:"scanned"`
	Matched int            `json:"matched"`
	Items   []*api.Mention `json:"items"`
}

func (s *Service) mentionCaps() []*Capability {
	return append([]*Capability{
		Define(Capability{Name: "list_mentions", Title: "List mentions", Group: "mention", Method: "GET", Path: "/api/v1/mentions",
			Scope: MentionsRead, Idempotent: true,
			Description: "The triage inbox: collected posts with their AI classification, newest first (or most urgent first with sort=urgency), filtered and paged with an opaque cursor. " +
				"Use status=new to find what needs triage, min_urgency=" + strconv.Itoa(vocab.UrgentThreshold) + " for what is worth interrupting someone for, and collected_since to sync everything collected since your last run."},
			s.listMentions),
		Define(Capability{Name: "get_mention", Title: "Get a mention", Group: "mention", Method: "GET", Path: "/api/v1/mentions/:id",
			Scope: MentionsRead, Idempotent: true, Description: "Get one mention with its classification and triage status."},
			func(ctx context.Context, p *Principal, in *IDPath) (*api.Mention, error) {
				m, err := s.Store.Mention(ctx, p.ProjectID, in.ID)
				return m.Record(), err
			}),
		Define(Capability{Name: "update_mention_status", Title: "Triage a mention", Group: "mention", Method: "PATCH", Path: "/api/v1/mentions/:id",
			Scope: MentionsWrite, Write: true, Idempotent: true,
			Description: "Set a mention's status: reviewed (seen), done (handled), ignored (not really about the brand — this also teaches the relevance model) or back to new; " +
				"and/or its public_visibility on the public page: featured (always shown, first), hidden (never) or auto. Returns the full mention. " +
				"Only a status change fires mention.updated."},
			func(ctx context.Context, p *Principal, in *UpdateMentionStatusIn) (*api.Mention, error) {
				if in.Status == "" && in.PublicVisibility == "" {
					// The spec makes status required; CONTRACT §9 adds
					// public_visibility as the alternative. An empty
					// PATCH answered 200 and changed nothing, which hid
					// a client's mistake.
					return nil, Invalid("status", "status is required (new, reviewed, done or ignored) unless public_visibility is given")
				}
				m, err := s.Store.UpdateMention(ctx, p.ProjectID, in.ID, store.MentionChange{Status: in.Status, PublicVisibility: in.PublicVisibility})
				return m.Record(), err
			}),
		Define(Capability{Name: "export_mentions", Title: "Export mentions as CSV", Group: "mention", Method: "GET", Path: "/api/v1/exports/mentions",
			Scope: MentionsRead, Idempotent: true, CSV: true,
			Description: "Download mentions matching the list_mentions filters as CSV (RFC 4180, in list_mentions' sort order, newest first by default, streamed; cells that a spreadsheet would run as formulas are prefixed with an apostrophe)."},
			s.exportMentions),
		Define(Capability{Name: "get_share_of_voice", Title: "Share of voice", Group: "mention", Method: "GET", Path: "/api/v1/share-of-voice",
			Scope: MentionsRead, Idempotent: true,
			Description: "Relevant mentions per keyword group (own brand vs competitors) and UTC day over a window, with share percentages that sum to 100 and each group's mentions by sentiment."},
			s.shareOfVoice),
		Define(Capability{Name: "preview_monitor", Title: "Preview a monitor", Group: "monitor", Method: "POST", Path: "/api/v1/monitors/preview",
			Scope: MonitorsRead, Idempotent: true,
			Description: "Run a draft keyword set over the project's stored mentions and see what it would match, to tune keywords and excludes before saving a monitor. Changes nothing."},
			s.previewMonitor),
	}, append(append(s.wallCaps(), s.statsCaps()...), s.countCaps()...)...)
}

// filter turns the query into a store filter, resolving presets at now.
func (s *Service) filter(ctx context.Context, p *Principal, q MentionQuery) (store.MentionFilter, error) {
	now := s.now()
	f := q.Resolve(p.ProjectID, now)
	if f.MinUrgency != nil && f.MaxUrgency != nil && *f.MinUrgency > *f.MaxUrgency {
		return f, Invalid("max_urgency", "max_urgency must be at least min_urgency")
	}
	if err := s.checkMonitorRef(ctx, p, q.MonitorID, "monitor_id"); err != nil {
		return f, err
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return f, Invalid("until", "until must be after since")
	}
	if q.CollectedSince != "" {
		t, _ := ParseTimeParam(q.CollectedSince)
		f.CollectedSince = &t
	}
	if q.Sort == "urgency" {
		if f.CollectedSince != nil {
			return f, Invalid("sort", "sort=urgency cannot be combined with collected_since, which reads in collection order")
		}
		f.ByUrgency = true
	}
	if err := s.storyFilter(ctx, p, q, &f); err != nil {
		return f, err
	}
	return f, nil
}

// checkMonitorRef checks a filter's monitor id (none is fine): the monitor
// must be one of the project's, a deleted one counting; another project's
// answers exactly like a random id, a 404 naming param.
func (s *Service) checkMonitorRef(ctx context.Context, p *Principal, id, param string) error {
	if id == "" {
		return nil
	}
	if _, err := s.Store.MonitorAny(ctx, p.ProjectID, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFoundParam("monitor", param)
		}
		return err
	}
	return nil
}

// cursorBinding ties a cursor to the project, every filter and the order
// (sort=newest is the default spelled out: the same binding).
func cursorBinding(projectID string, q MentionQuery) string {
	if q.Sort == "newest" {
		q.Sort = ""
	}
	b, _ := json.Marshal(q)
	return "mentions:" + projectID + ":" + string(b)
}

func (s *Service) listMentions(ctx context.Context, p *Principal, in *ListMentionsIn) (*ListMentionsOut, error) {
	f, err := s.filter(ctx, p, in.MentionQuery)
	if err != nil {
		return nil, err
	}
	limit := *in.Limit // defaults come from the default tags (Decode)
	binding := cursorBinding(p.ProjectID, in.MentionQuery)
	after, err := openAfter(s, in.Cursor, binding, positionSet)
	if err != nil {
		return nil, err
	}
	items, err := s.Store.ListMentions(ctx, f, after, limit+1)
	if err != nil {
		return nil, err
	}
	out := &ListMentionsOut{}
	if len(items) > limit {
		items = items[:limit]
		out.HasMore = true
		c := s.sealCursor(store.PositionOf(items[limit-1], f), binding)
		out.NextCursor = &c
	}
	out.Items = store.MentionRecords(items)
	return out, nil
}

// CSVExport streams mentions as CSV; REST writes it as the response body.
type CSVExport struct {
	svc    *Service
	filter store.MentionFilter
	limit  int
	Rows   int // rows written by the last Stream
}

// ContentType is text/csv.
func (e *CSVExport) ContentType() string { return "text/csv; charset=utf-8" }

// Filename suggests a download name.
func (e *CSVExport) Filename() string {
	return "mentions-" + time.Now().UTC().Format("20060102-150405") + ".csv"
}

// MarshalJSON lets a JSON binding (MCP) carry the CSV text.
func (e *CSVExport) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	if err := e.Stream(context.Background(), &b); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"csv": b.String(), "rows": e.Rows})
}

var csvHeader = []string{"id", "published_at", "collected_at", "source", "url", "author_handle", "text", "category", "sentiment",
	"urgency", "is_relevant", "status", "ai_summary", "monitor_id", "monitor_ids", "engagement",
	"own", "category_reason", "urgency_reason", "relevance_reason", "story_id", "story_count"}

// Stream writes the header and every row, reading the store page by page so
// memory stays flat whatever the row count.
func (e *CSVExport) Stream(ctx context.Context, w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	e.Rows = 0
	var after *store.Position
	for e.Rows < e.limit {
		page, err := e.svc.Store.ListMentions(ctx, e.filter, after, min(1000, e.limit-e.Rows))
		if err != nil {
			return err
		}
		for _, m := range page {
			mid := ""
			if m.MonitorID != nil {
				mid = *m.MonitorID
			}
			eng, _ := json.Marshal(m.Engagement)
			rec := []string{m.ID, m.PublishedAt, m.CollectedAt, m.Source, m.URL, m.AuthorHandle, m.Text, m.Category, m.Sentiment,
				strconv.Itoa(m.Urgency), strconv.FormatBool(m.IsRelevant), m.Status, m.AISummary, mid, strings.Join(m.MonitorIDs, " "), string(eng),
				strconv.FormatBool(m.Own), m.CategoryReason, m.UrgencyReason, m.RelevanceReason, deref(m.StoryID), strconv.Itoa(m.StoryCount)}
			for i := range rec {
				rec[i] = SafeCell(rec[i])
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
			e.Rows++
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		if len(page) == 0 || e.Rows >= e.limit {
			break
		}
		pos := store.PositionOf(page[len(page)-1], e.filter)
		after = &pos
	}
	cw.Flush()
	return cw.Error()
}

// SafeCell defuses spreadsheet formula injection (OWASP): a cell starting
// with = + - @ (or tab/CR) is prefixed with an apostrophe.
func SafeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

func (s *Service) exportMentions(ctx context.Context, p *Principal, in *ExportIn) (*CSVExport, error) {
	f, err := s.filter(ctx, p, in.MentionQuery)
	if err != nil {
		return nil, err
	}
	limit := *in.Limit
	return &CSVExport{svc: s, filter: f, limit: limit}, nil
}

func (s *Service) shareOfVoice(ctx context.Context, p *Principal, in *SOVIn) (*SOVOut, error) {
	now := s.now()
	since, _ := store.PresetSince(in.DatePreset, now) // last_30_days unless given (its default tag)
	until := now
	if in.Since != "" {
		since, _ = ParseTimeParam(in.Since)
	}
	if in.Until != "" {
		until, _ = ParseTimeParam(in.Until)
	}
	if !since.Before(until) {
		return nil, Invalid("until", "until must be after since")
	}
	if until.Sub(since) > 366*24*time.Hour {
		return nil, Invalid("since", "the window may span at most 366 days")
	}
	groups, err := s.Store.ListKeywordGroups(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.ShareOfVoice(ctx, p.ProjectID, since, until)
	if err != nil {
		return nil, err
	}
	out := &SOVOut{Since: store.FormatTime(since), Until: store.FormatTime(until), Groups: []SOVGroup{}, Days: []SOVDay{}}
	totals := map[string]int{}
	bySentiment := map[string]map[string]int{}
	perDay := map[string]map[string]int{}
	for _, r := range rows {
		totals[r.GroupID] += r.Count
		if bySentiment[r.GroupID] == nil {
			bySentiment[r.GroupID] = map[string]int{}
		}
		bySentiment[r.GroupID][r.Sentiment] += r.Count
		if perDay[r.Day] == nil {
			perDay[r.Day] = map[string]int{}
		}
		perDay[r.Day][r.GroupID] += r.Count
	}
	ids := make([]string, len(groups))
	counts := make([]int, len(groups))
	for i, g := range groups {
		ids[i] = g.ID
		counts[i] = totals[g.ID]
		out.Total += counts[i]
	}
	shares := Shares(counts)
	for i, g := range groups {
		bs := bySentiment[g.ID]
		out.Groups = append(out.Groups, SOVGroup{ID: g.ID, Name: g.Name, IsOwn: g.IsOwn, Mentions: counts[i], Share: shares[i],
			Positive: bs["positive"], Neutral: bs["neutral"], Negative: bs["negative"]})
	}
	for d := time.Date(since.Year(), since.Month(), since.Day(), 0, 0, 0, 0, time.UTC); d.Before(until); d = d.AddDate(0, 0, 1) {
		key := d.Format("2006-01-02")
		dc := make([]int, len(ids))
		day := SOVDay{Date: key, Groups: []SOVDayGroup{}}
		for i, id := range ids {
			dc[i] = perDay[key][id]
			day.Total += dc[i]
		}
		ds := Shares(dc)
		for i, id := range ids {
			day.Groups = append(day.Groups, SOVDayGroup{ID: id, Mentions: dc[i], Share: ds[i]})
		}
		out.Days = append(out.Days, day)
	}
	return out, nil
}

// Shares turns counts into percentages with one decimal that sum to exactly
// 100 (largest remainder); all zero when there is nothing to share.
func Shares(counts []int) []float64 {
	out := make([]float64, len(counts))
	total := 0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return out
	}
	type rem struct {
		i int
		r float64
	}
	units := make([]int, len(counts)) // tenths of a percent
	rems := make([]rem, len(counts))
	sum := 0
	for i, c := range counts {
		exact := float64(c) * 1000 / float64(total)
		units[i] = int(math.Floor(exact))
		rems[i] = rem{i, exact - float64(units[i])}
		sum += units[i]
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; sum < 1000; k++ {
		units[rems[k%len(rems)].i]++
		sum++
	}
	for i, u := range units {
		out[i] = float64(u) / 10
	}
	return out
}

func (s *Service) previewMonitor(ctx context.Context, p *Principal, in *PreviewIn) (*PreviewOut, error) {
	if len(in.Keywords) == 0 && len(in.WatchAccounts) == 0 {
		return nil, Invalid("keywords", "give keywords or watch_accounts to preview")
	}
	scan, limit := *in.Scan, *in.Limit
	m := collect.Compile(collect.Rule{Keywords: in.Keywords, ExcludeKeywords: in.ExcludeKeywords, QueryMode: in.QueryMode, WatchAccounts: in.WatchAccounts})
	sources := map[string]bool{}
	for _, src := range in.Sources {
		sources[src] = true
	}
	out := &PreviewOut{Items: []*api.Mention{}}
	f := store.MentionFilter{ProjectID: p.ProjectID}
	var after *store.Position
	for out.Scanned < scan {
		page, err := s.Store.ListMentions(ctx, f, after, min(1000, scan-out.Scanned))
		if err != nil {
			return nil, err
		}
		for _, mn := range page {
			out.Scanned++
			if len(sources) > 0 && !sources[mn.Source] {
				continue
			}
			if m.Match(collect.Post{Source: mn.Source, AuthorHandle: mn.AuthorHandle, Text: mn.Text}) {
				out.Matched++
				if len(out.Items) < limit {
					out.Items = append(out.Items, mn.Record())
				}
			}
		}
		if len(page) == 0 {
			break
		}
		last := page[len(page)-1]
		after = &store.Position{At: last.PublishedAt, ID: last.ID}
	}
	return out, nil
}
