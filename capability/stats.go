package capability

import (
	"context"
	"slices"
	"sort"
	"time"

	"earshot/spike"
	"earshot/store"
	"earshot/vocab"
)

type StatsIn struct {
	MentionFilters
	Interval string `json:"interval,omitempty" in:"query" validate:"enum=hour|day" doc:"Bucket size (UTC): hour or day. Default: hour for a window of up to 3 days, day otherwise. Without since or date_preset the window is the last 30 days by day, the last 48 hours by hour."`
	GroupBy  string `json:"group_by,omitempty" in:"query" validate:"enum=sentiment|monitor" default:"sentiment" doc:"sentiment: counts per sentiment only; monitor: also one series per monitor (monitors), e.g. for sparklines."`
}

// StatsCounts is a number of mentions, in all and per sentiment.
type StatsCounts struct {
	Total    int `json:"total"`
	Positive int `json:"positive"`
	Neutral  int `json:"neutral"`
	Negative int `json:"negative"`
}

type StatsBucket struct {
	Start string `json:"start" doc:"Bucket start (UTC), inclusive; use as list_mentions since."`
	End   string `json:"end" doc:"Bucket end, exclusive; use as list_mentions until."`
	StatsCounts
}

// Spike is a bucket far above its own history (package spike, the
// detector list_spikes records with).
type Spike struct {
	Kind      string  `json:"kind" doc:"volume (all mentions) or negative (negative ones)."`
	Start     string  `json:"start" doc:"Bucket start; list the mentions behind it with list_mentions since=start&until=end (and sentiment=negative for a negative spike), plus this call's filters."`
	End       string  `json:"end" doc:"Bucket end (exclusive)."`
	Count     int     `json:"count" doc:"Mentions in the bucket (negative ones for kind negative)."`
	Baseline  float64 `json:"baseline" doc:"Median of the history: the same hour on the previous 7 days (with its neighbouring hours) by hour, the previous 7 days by day."`
	Score     float64 `json:"score" doc:"(count - baseline) / robust spread."`
	Threshold int     `json:"threshold" doc:"The fewest mentions that would have made the bucket a spike."`
}

type MonitorSeries struct {
	MonitorID string `json:"monitor_id"`
	Name      string `json:"name"`
	Total     int    `json:"total"`
	Counts    []int  `json:"counts" doc:"Mentions the monitor matched per bucket, aligned with buckets."`
}

type StatsOut struct {
	Since    string          `json:"since" doc:"Window start, aligned to a bucket boundary."`
	Until    string          `json:"until" doc:"Window end (exclusive)."`
	Interval string          `json:"interval" doc:"hour or day."`
	Totals   StatsCounts     `json:"totals"`
	Buckets  []StatsBucket   `json:"buckets" doc:"Every bucket of the window, oldest first, empty ones included."`
	Spikes   []Spike         `json:"spikes" doc:"Buckets far above their own history, oldest first, judged as list_spikes judges (its detector's default parameters)."`
	Monitors []MonitorSeries `json:"monitors" doc:"With group_by=monitor: per monitor of the project, its counts per bucket; otherwise empty."`
}

// Window limits: a day series spans at most 366 days, an hour series 14
// days, so a series has at most a few hundred buckets.
const (
	maxDayWindow  = 366 * 24 * time.Hour
	maxHourWindow = 14 * 24 * time.Hour
	autoHourlyMax = 3 * 24 * time.Hour
)

func (s *Service) statsCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "get_mention_stats", Title: "Mention statistics", Group: "mention", Method: "GET", Path: "/api/v1/mention-stats",
			Scope: MentionsRead, Idempotent: true,
			Description: "Mentions per hour or day by sentiment for the list_mentions filters over a window (default the last 30 days), " +
				"with spikes: buckets whose volume, or negative volume, is far above the series' own history (the detector of list_spikes); each spike gives the bucket's start and end, " +
				"to list the mentions behind it with list_mentions since/until. group_by=monitor adds one series per monitor (sparklines)."},
			s.mentionStats),
	}
}

func (s *Service) mentionStats(ctx context.Context, p *Principal, in *StatsIn) (*StatsOut, error) {
	f, err := s.filter(ctx, p, MentionQuery{MentionFilters: in.MentionFilters})
	if err != nil {
		return nil, err
	}
	now := s.now()
	until := now
	if f.Until != nil {
		until = *f.Until
	}
	var since time.Time
	switch {
	case f.Since != nil:
		since = *f.Since
	case in.DatePreset == vocab.AllTime:
		since = until.Add(-maxDayWindow) // all time, as far as a series reaches
	case in.Interval == "hour":
		since = until.Add(-48 * time.Hour)
	default:
		since = until.AddDate(0, 0, -30)
	}
	if !since.Before(until) {
		return nil, Invalid("until", "until must be after since")
	}
	interval := in.Interval
	if interval == "" {
		interval = "day"
		if until.Sub(since) <= autoHourlyMax {
			interval = "hour"
		}
	}
	// Spikes are judged by the detector list_spikes records with: by hour
	// against the same hour of the previous days, by day against the
	// previous days.
	// A spike here needs a week of the filter's own history (minWeek):
	// a young install's first busy day is not "a spike, usually about 0".
	const minWeek = 7
	step, params, hourly := 24*time.Hour, spike.Params{Period: 1, MinDays: minWeek}, false
	if interval == "hour" {
		step, params, hourly = time.Hour, spike.Params{Period: 24, MinDays: minWeek}, true
	}
	history := params.History()
	since = since.UTC().Truncate(step) // UTC days and hours start at multiples of step
	if limit := map[bool]time.Duration{true: maxHourWindow, false: maxDayWindow}[hourly]; until.Sub(since) > limit+step {
		return nil, Invalid("since", "the window may span at most %d days with interval=%s", int(limit.Hours()/24), interval)
	}
	// The history of the first buckets comes from before the window.
	from := since.Add(-time.Duration(history) * step)
	f.Since, f.Until = &from, &until
	var starts []time.Time
	for t := from; t.Before(until); t = t.Add(step) {
		starts = append(starts, t)
	}
	bounds := append(append([]time.Time(nil), starts...), until)
	counts, err := s.Store.MentionCounts(ctx, f, bounds)
	if err != nil {
		return nil, err
	}
	out := &StatsOut{Since: store.FormatTime(since), Until: store.FormatTime(until), Interval: interval,
		Buckets: []StatsBucket{}, Spikes: []Spike{}, Monitors: []MonitorSeries{}}
	end := func(i int) time.Time {
		e := starts[i].Add(step)
		if e.After(until) {
			e = until
		}
		return e
	}
	volume := make([]int, len(starts))
	negative := make([]int, len(starts))
	for i := range starts {
		c := StatsCounts{Total: counts[i].Total, Positive: counts[i].Positive, Neutral: counts[i].Neutral, Negative: counts[i].Negative}
		volume[i], negative[i] = c.Total, c.Negative
		if i < history {
			continue
		}
		out.Buckets = append(out.Buckets, StatsBucket{Start: store.FormatTime(starts[i]), End: store.FormatTime(end(i)), StatsCounts: c})
		out.Totals.Total += c.Total
		out.Totals.Positive += c.Positive
		out.Totals.Neutral += c.Neutral
		out.Totals.Negative += c.Negative
	}
	// The filter's mentions were first seen in the first bucket holding
	// one: the empty buckets before it (before the install, the monitor or
	// the term) are no history, so a young scope is not called spiking
	// against a baseline of zeros.
	first := slices.IndexFunc(volume, func(n int) bool { return n > 0 })
	for _, k := range []struct {
		kind   spike.Kind
		series []int
	}{{spike.Volume, volume}, {spike.Negative, negative}} {
		for _, h := range spike.Scan(k.series, history, max(first, 0), params, k.kind) {
			out.Spikes = append(out.Spikes, Spike{Kind: string(k.kind), Start: store.FormatTime(starts[h.I]), End: store.FormatTime(end(h.I)),
				Count: h.Count, Baseline: spike.Round(h.Baseline), Score: spike.Round(h.Score), Threshold: h.Threshold})
		}
	}
	sort.SliceStable(out.Spikes, func(a, b int) bool { return out.Spikes[a].Start < out.Spikes[b].Start }) // by bucket, volume first
	if in.GroupBy == "monitor" {
		// the baseline buckets are not needed here
		if out.Monitors, err = s.monitorSeries(ctx, p, f, bounds[history:]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// monitorSeries is each monitor's counts in the buckets between bounds.
func (s *Service) monitorSeries(ctx context.Context, p *Principal, f store.MentionFilter, bounds []time.Time) ([]MonitorSeries, error) {
	mons, err := s.Store.ListMonitors(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	counts, err := s.Store.MentionCountsByMonitor(ctx, f, bounds)
	if err != nil {
		return nil, err
	}
	out := make([]MonitorSeries, len(mons))
	for i, m := range mons {
		out[i] = MonitorSeries{MonitorID: m.ID, Name: m.Name, Counts: counts[m.ID]}
		if out[i].Counts == nil {
			out[i].Counts = make([]int, len(bounds)-1)
		}
		for _, n := range out[i].Counts {
			out[i].Total += n
		}
	}
	return out, nil
}

// UsageDay is a project's consumption on one UTC day.
type UsageDay struct {
	Date     string `json:"date"`
	Mentions int    `json:"mentions" doc:"Mentions stored that day (they count against the quota)."`
	Dropped  int    `json:"dropped" doc:"Posts dropped that day because the quota was used up."`
}

// usageDays is get_usage's trend: consumption per UTC day over the last
// usageTrendDays days, today (so far) last, days without any included.
func (s *Service) usageDays(ctx context.Context, projectID string) ([]UsageDay, error) {
	const usageTrendDays = 30
	first := s.now().Truncate(24*time.Hour).AddDate(0, 0, -(usageTrendDays - 1))
	rows, err := s.Store.UsageDays(ctx, projectID, first)
	if err != nil {
		return nil, err
	}
	byDay := map[string]store.UsageDay{}
	for _, r := range rows {
		byDay[r.Day] = r
	}
	out := make([]UsageDay, usageTrendDays)
	for i := range out {
		day := first.AddDate(0, 0, i).Format("2006-01-02")
		out[i] = UsageDay{Date: day, Mentions: byDay[day].Mentions, Dropped: byDay[day].Dropped}
	}
	return out, nil
}
