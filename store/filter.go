package store

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"earshot/search"
)

// This file is the one mention filter: its written form (Filter), the
// resolved filter (MentionFilter), its SQL translation (conditions) and its
// in-memory predicate (Match) side by side. The inbox, saved views, counts,
// export and alerts all select mentions through it, and filter_test.go
// checks that the SQL and the predicate select the same mentions.
//
// Semantics, where earlier copies disagreed (docs/decisions.md#mentions):
// until is exclusive, search is package search's grammar (straße finds STRASSE),
// author_handle ignores ASCII case and a leading @.

// Filter is a mention filter as people and agents write it: the query of
// list_mentions, export_mentions, count_mentions and get_mention_stats,
// and the filters object of a saved view and of an alert (stored as its
// JSON). The catalogue reads its tags for validation, docs and schemas.
// Field order is part of list_mentions' cursor binding.
type Filter struct {
	MonitorID        string `json:"monitor_id,omitempty" in:"query" validate:"format=uuid" doc:"Only mentions matched by this monitor (also a deleted one), as primary or among monitor_ids."`
	Source           string `json:"source,omitempty" in:"query" validate:"enum=@sources" doc:"Platform."`
	Category         string `json:"category,omitempty" in:"query" validate:"enum=@categories" doc:"AI category."`
	Sentiment        string `json:"sentiment,omitempty" in:"query" validate:"enum=@sentiments" doc:"AI sentiment."`
	Status           string `json:"status,omitempty" in:"query" validate:"enum=@statuses" doc:"Triage status."`
	MinUrgency       *int   `json:"min_urgency,omitempty" in:"query" validate:"min=0,max=100" doc:"Lowest urgency (0-100)."`
	MaxUrgency       *int   `json:"max_urgency,omitempty" in:"query" validate:"min=0,max=100" doc:"Highest urgency (0-100)."`
	AuthorHandle     string `json:"author_handle,omitempty" in:"query" validate:"maxlen=200" doc:"Author handle, with or without the @; letter case is ignored, as the platforms ignore it."`
	Search           string `json:"search,omitempty" in:"query" validate:"maxlen=200" doc:"Search of the mention text (README: Search). Each word finds words starting with it, after a trailing -s, -es, -ies, -ed or -ing is dropped (outage finds outages, outages finds outage); letter case is ignored (Unicode case folding: straße finds STRASSE). Words are combined with AND; \"a quoted phrase\" finds those whole words in order; -word leaves out; a OR b finds either (OR binds tighter than AND: acme outage OR refund is acme AND (outage OR refund)); parentheses group; author:handle, source:reddit and category:bug_report filter fields. A malformed search (unbalanced quote or parenthesis, a lone OR, an unknown field, no word) is a 400 VALIDATION_ERROR naming search, with a hint."`
	IsRelevant       *bool  `json:"is_relevant,omitempty" in:"query" doc:"true: only mentions really about the brand; false: only the irrelevant ones."`
	Own              *bool  `json:"own,omitempty" in:"query" doc:"true: only the project's own posts (by its own accounts or on its website; never relevant); false: leave them out."`
	DatePreset       string `json:"date_preset,omitempty" in:"query" validate:"enum=@date_presets" doc:"Named publication window, computed in UTC."`
	Since            string `json:"since,omitempty" in:"query" validate:"format=date-time" doc:"Published at or after this ISO 8601 time; overrides date_preset."`
	Until            string `json:"until,omitempty" in:"query" validate:"format=date-time" doc:"Published before this ISO 8601 time (a mention published exactly then is left out)."`
	PublicVisibility string `json:"public_visibility,omitempty" in:"query" validate:"enum=@public_visibilities" doc:"The editor's choice for the public page: auto (its rule decides), featured or hidden."`
	StoryID          string `json:"story_id,omitempty" in:"query" validate:"format=uuid" doc:"Only the mentions of this story (see list_stories)."`
	Assignee         string `json:"assignee,omitempty" in:"query" validate:"maxlen=36" doc:"me: the mentions assigned to the caller; none: the unassigned ones; a user id: that member's."`
	Tag              string `json:"tag,omitempty" in:"query" validate:"maxlen=40" doc:"Only mentions carrying this tag (letter case ignored)."`
}

// FilterKeys are Filter's keys in order (the dashboard's filter and
// saved-view parameters).
func FilterKeys() []string {
	t := reflect.TypeFor[Filter]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		keys = append(keys, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
	}
	return keys
}

// PresetSince is where a date preset (vocab.DatePresets) starts at now, in
// UTC; false for all_time, "" and unknown names (no lower bound).
func PresetSince(preset string, now time.Time) (time.Time, bool) {
	now = now.UTC()
	switch preset {
	case "today":
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), true
	case "last_24_hours":
		return now.Add(-24 * time.Hour), true
	case "last_7_days":
		return now.AddDate(0, 0, -7), true
	case "last_30_days":
		return now.AddDate(0, 0, -30), true
	case "last_90_days":
		return now.AddDate(0, 0, -90), true
	case "month_to_date":
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), true
	}
	return time.Time{}, false
}

// ParseFilterTime reads a since/until value: RFC 3339 with or without
// fractional seconds or zone, or a bare date (midnight UTC). "T" and "Z"
// may be lower case, as RFC 3339 allows.
func ParseFilterTime(s string) (time.Time, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, err
}

// Resolve is the filter of projectID's mentions at now: the date preset
// becomes a since (an explicit since overrides it), since and until are
// parsed (an unreadable one sets no bound; the catalogue refuses them
// before), and a leading @ of author_handle is dropped.
func (f Filter) Resolve(projectID string, now time.Time) MentionFilter {
	mf := MentionFilter{ProjectID: projectID, MonitorID: f.MonitorID, Source: f.Source, Category: f.Category, Sentiment: f.Sentiment,
		Status: f.Status, MinUrgency: f.MinUrgency, MaxUrgency: f.MaxUrgency, AuthorHandle: strings.TrimPrefix(f.AuthorHandle, "@"),
		Search: f.Search, IsRelevant: f.IsRelevant, Own: f.Own, PublicVisibility: f.PublicVisibility, StoryID: f.StoryID,
		Assignee: f.Assignee, Tag: NormalizeTag(f.Tag)}
	if q := search.Lenient(f.Search); q != nil {
		// The search's top-level author:, source: and category: become
		// the filters of the same name, so their indexes serve them.
		mf.Query, mf.AuthorHandle, mf.Source, mf.Category = q.Narrow(mf.AuthorHandle, mf.Source, mf.Category)
		if mf.Query == nil {
			mf.Search = ""
		}
	}
	if t, ok := PresetSince(f.DatePreset, now); ok {
		mf.Since = &t
	}
	if t, err := ParseFilterTime(f.Since); f.Since != "" && err == nil {
		mf.Since = &t
	}
	if t, err := ParseFilterTime(f.Until); f.Until != "" && err == nil {
		mf.Until = &t
	}
	return mf
}

// MentionFilter selects mentions: a Filter resolved for one project at one
// moment, plus what the service adds (sync mode, order, the public page's
// rules). ListMentions, CountMentions, MentionCounts and export read it
// through conditions; alerts test one mention with Match.
type MentionFilter struct {
	ProjectID    string
	MonitorID    string
	Source       string
	Category     string
	Sentiment    string
	Status       string
	MinUrgency   *int
	MaxUrgency   *int
	AuthorHandle string // ASCII case ignored
	Search       string // a search (package search); Query is its parse when set
	Query        *search.Query
	IsRelevant   *bool
	Own          *bool // the project's own posts (true) or everything else (false)
	// Not shown in the API: a status and a category to leave out.
	NotStatus, NotCategory string
	Since                  *time.Time // published_at >= Since
	Until                  *time.Time // published_at <  Until
	// CollectedSince switches to sync mode: collected_at ascending.
	CollectedSince *time.Time
	// OwnBrand keeps mentions that at least one own-brand monitor matched
	// (the public page; not shown in the API). See ownBrandLink. It needs
	// the monitors' groups, so only the SQL translation tests it.
	OwnBrand bool
	// PublicVisibility: auto, featured or hidden (curation.go).
	PublicVisibility string
	// WallAuto keeps what the public page's rule shows of auto mentions
	// (wallAuto; not shown in the API).
	WallAuto bool
	// ByUrgency orders by urgency descending, then newest first (sort.go);
	// ignored in sync mode. It selects nothing.
	ByUrgency bool
	// StoryID keeps one story's mentions; CollapseStories shows each story
	// once, as its first mention in the list's order (stories.go).
	StoryID         string
	CollapseStories bool
	// Assignee: a user id, or AssigneeNone for the unassigned; the
	// catalogue turns "me" into the caller's id first. Tag: one
	// normalized tag (NormalizeTag).
	Assignee string
	Tag      string
}

// conditions is the filter's SQL translation: it adds the predicates on
// mentions m, whatever the rows are read from (lists, counts), in the SQL
// of the backend (pg: PostgreSQL). It is the only place the filter becomes
// SQL; Match below is its in-memory twin.
func (f MentionFilter) conditions(pg bool, add func(cond string, args ...any)) {
	if f.MonitorID != "" {
		add(`EXISTS (SELECT 1 FROM mention_monitors l WHERE l.mention_id = m.id AND l.monitor_id = ?)`, f.MonitorID)
	}
	add(`m.project_id = ?`, f.ProjectID)
	if f.StoryID != "" {
		add(`m.story_id = ?`, f.StoryID)
	}
	if f.Source != "" {
		add(`m.source = ?`, f.Source)
	}
	if f.Category != "" {
		add(`m.category = ?`, f.Category)
	}
	if f.Sentiment != "" {
		add(`m.sentiment = ?`, f.Sentiment)
	}
	if f.Status != "" {
		add(`m.status = ?`, f.Status)
	}
	if f.MinUrgency != nil {
		add(`m.urgency >= ?`, *f.MinUrgency)
	}
	if f.MaxUrgency != nil {
		add(`m.urgency <= ?`, *f.MaxUrgency)
	}
	if f.AuthorHandle != "" {
		// NOCASE folds ASCII letters only, like asciiFold; the author
		// index has the same collation (migration 140). PostgreSQL's
		// lower() on the C-collated column folds ASCII only too, and its
		// author index is on lower(author_handle) (migrations_pg/140); the
		// handle is folded here, in Go, so the database's default
		// collation never folds it differently.
		if pg {
			add(`lower(m.author_handle) = ?`, asciiFold(f.AuthorHandle))
		} else {
			add(`m.author_handle = ? COLLATE NOCASE`, f.AuthorHandle)
		}
	}
	if f.IsRelevant != nil {
		add(`m.is_relevant = ?`, boolInt(*f.IsRelevant))
	}
	if f.Own != nil {
		add(`m.own = ?`, boolInt(*f.Own))
	}
	if f.NotStatus != "" {
		add(`m.status <> ?`, f.NotStatus)
	}
	if f.NotCategory != "" {
		add(`m.category <> ?`, f.NotCategory)
	}
	if f.OwnBrand {
		add(ownBrandLink(pg))
	}
	if f.PublicVisibility != "" {
		add(`m.public_visibility = ?`, f.PublicVisibility)
	}
	if f.WallAuto {
		add(wallAuto)
	}
	// since/until bound the publication date (in sync mode too).
	if f.Since != nil {
		add(`m.published_at >= ?`, FormatTime(*f.Since))
	}
	if f.Until != nil {
		add(`m.published_at < ?`, FormatTime(*f.Until))
	}
	if f.CollectedSince != nil {
		add(`m.collected_at >= ?`, FormatTime(*f.CollectedSince))
	}
	switch f.Assignee {
	case "":
	case AssigneeNone:
		add(`m.assignee_id IS NULL`)
	default:
		add(`m.assignee_id = ?`, f.Assignee)
	}
	if f.Tag != "" {
		add(`EXISTS (SELECT 1 FROM mention_tags t WHERE t.project_id = m.project_id AND t.tag = ? AND t.mention_id = m.id)`, f.Tag)
	}
	if q := f.query(); q != nil {
		// The exact predicate (search.Query.SQL: folded in SQL on SQLite,
		// stored folded on PostgreSQL).
		cond, args := q.SQL(pg)
		add(cond, args...)
	}
}

// query is the filter's parsed search: Query, else Search read leniently
// (a search stored before the grammar may not parse), nil for none.
func (f MentionFilter) query() *search.Query {
	if f.Query != nil {
		return f.Query
	}
	if f.Search == "" {
		return nil
	}
	return search.Lenient(f.Search)
}

// Match reports whether the filter selects m, the way conditions selects
// rows: alerts test each new mention with it. Times compare as the stored
// strings do in SQL. OwnBrand needs the monitors' groups and panics here:
// no caller may believe it was tested.
func (f MentionFilter) Match(m *Mention) bool {
	if f.OwnBrand {
		panic("store: MentionFilter.Match cannot test OwnBrand")
	}
	if f.MonitorID != "" && !slices.Contains(m.MonitorIDs, f.MonitorID) && (m.MonitorID == nil || *m.MonitorID != f.MonitorID) {
		return false
	}
	if m.ProjectID != f.ProjectID {
		return false
	}
	if f.StoryID != "" && (m.StoryID == nil || *m.StoryID != f.StoryID) {
		return false
	}
	if (f.Source != "" && m.Source != f.Source) ||
		(f.Category != "" && m.Category != f.Category) ||
		(f.Sentiment != "" && m.Sentiment != f.Sentiment) ||
		(f.Status != "" && m.Status != f.Status) ||
		(f.PublicVisibility != "" && m.PublicVisibility != f.PublicVisibility) {
		return false
	}
	if (f.MinUrgency != nil && m.Urgency < *f.MinUrgency) || (f.MaxUrgency != nil && m.Urgency > *f.MaxUrgency) {
		return false
	}
	if f.AuthorHandle != "" && asciiFold(m.AuthorHandle) != asciiFold(f.AuthorHandle) {
		return false
	}
	if (f.IsRelevant != nil && m.IsRelevant != *f.IsRelevant) || (f.Own != nil && m.Own != *f.Own) {
		return false
	}
	if (f.NotStatus != "" && m.Status == f.NotStatus) || (f.NotCategory != "" && m.Category == f.NotCategory) {
		return false
	}
	if f.WallAuto && (m.PublicVisibility != VisibilityAuto || m.Sentiment == "negative" || m.Category == "misinformation") {
		return false
	}
	if (f.Since != nil && m.PublishedAt < FormatTime(*f.Since)) || (f.Until != nil && m.PublishedAt >= FormatTime(*f.Until)) {
		return false
	}
	if f.CollectedSince != nil && m.CollectedAt < FormatTime(*f.CollectedSince) {
		return false
	}
	if !f.matchTeam(m) {
		return false
	}
	q := f.query()
	return q == nil || q.Match(search.Doc{Text: m.Text, Author: m.AuthorHandle, Source: m.Source, Category: m.Category})
}

// asciiFold lower-cases ASCII letters only, as SQLite's NOCASE compares.
func asciiFold(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
