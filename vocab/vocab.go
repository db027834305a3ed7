// Package vocab is the one home of the values Earshot's surfaces share:
// platform names, categories, sentiments, triage statuses, date presets and
// the urgency threshold. The catalogue's validation tags name these lists
// (validate:"enum=@sources"), so the REST and MCP validation, the OpenAPI
// and MCP schemas, the collectors and the dashboard all read them from here;
// adding a platform is one edit here plus its collector.
//
// vocab imports nothing of Earshot's, so any package may use it. The rule
// it carries: docs/decisions.md#vocabularies-and-defaults.
package vocab

import "slices"

// Sources are the platforms, in display order: the value of a mention's
// source and of a monitor's sources. Each has one collector (collect/).
var Sources = []string{"x", "reddit", "youtube", "linkedin", "threads", "bluesky", "mastodon", "hn", "news", "reviews",
	"github", "stackoverflow", "discourse", "devto"}

// Categories are the six category values, in display order.
var Categories = []string{"bug_report", "complaint", "misinformation", "product_idea", "testimonial", "other"}

// Sentiments are the sentiment values.
var Sentiments = []string{"positive", "neutral", "negative"}

// Statuses are a mention's triage statuses; new is the status of a fresh
// mention.
var Statuses = []string{"new", "reviewed", "done", "ignored"}

// Public page choices for one mention: auto (the page's rule decides),
// featured or hidden.
var PublicVisibilities = []string{VisibilityAuto, VisibilityFeatured, VisibilityHidden}

// The public visibilities by name.
const (
	VisibilityAuto     = "auto"
	VisibilityFeatured = "featured"
	VisibilityHidden   = "hidden"
)

// AllTime is the date preset without a lower bound.
const AllTime = "all_time"

// DatePresets are the named publication windows, computed in UTC (their
// arithmetic lives with the mention filter).
var DatePresets = []string{"today", "last_24_hours", "last_7_days", "last_30_days", "last_90_days", "month_to_date", AllTime}

// BoundedDatePresets are the date presets with a start: every one but
// all_time, for reports whose window must be bounded (share of voice).
var BoundedDatePresets = slices.DeleteFunc(slices.Clone(DatePresets), func(p string) bool { return p == AllTime })

// QueryModes are how a monitor's keywords combine.
var QueryModes = []string{"any", "all", "phrase"}

// UrgentThreshold is the urgency (0–100) from which a mention is worth
// interrupting someone: the urgent view, the default of an alert's
// min_urgency, the red urgency badge and what agents are told to escalate.
const UrgentThreshold = 70

// Lists are the vocabularies a validation tag may name as enum=@name.
var Lists = map[string][]string{
	"sources":              Sources,
	"categories":           Categories,
	"sentiments":           Sentiments,
	"statuses":             Statuses,
	"public_visibilities":  PublicVisibilities,
	"date_presets":         DatePresets,
	"bounded_date_presets": BoundedDatePresets,
	"query_modes":          QueryModes,
}

// Lookup returns the vocabulary a validation tag names (enum=@name).
func Lookup(name string) ([]string, bool) {
	l, ok := Lists[name]
	return l, ok
}
