package capability

import (
	"context"
	"math"
	"sort"
	"time"

	"earshot/store"
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

// Spike is a bucket far above its own recent baseline.
type Spike struct {
	Kind      string  `json:"kind" doc:"volume (all mentions) or negative (negative ones)."`
	Start     string  `json:"start" doc:"Bucket start; list the mentions behind it with list_mentions since=start&until=end (and sentiment=negative for a negative spike), plus this call's filters."`
	End       string  `json:"end" doc:"Bucket end (exclusive)."`
	Count     int     `json:"count" doc:"Mentions in the bucket (negative ones for kind negative)."`
	Baseline  float64 `json:"baseline" doc:"Median of the preceding buckets (7 days or 24 hours)."`
	Threshold float64 `json:"threshold" doc:"The count above which the bucket is a spike."`
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
	Spikes   []Spike         `json:"spikes" doc:"Buckets far above their own rolling baseline, oldest first."`
	Monitors []MonitorSeries `json:"monitors" doc:"With group_by=monitor: per monitor of the project, its counts per bucket; otherwise empty."`
}

// Window limits: a day series spans at most 366 days, an hour series 14
// days, so a series has at most a few hundred buckets.
const (
	maxDayWindow  = 366 * 24 * time.Hour
	maxHourWindow = 14 * 24 * time.Hour
	autoHourlyMax = 3 * 24 * time.Hour
)

// Spike rule: a bucket is a spike when it holds at least spikeMinCount
// mentions and more than median + spikeK·scale of the preceding
// spikeHistory buckets, where scale is the larger of 1.4826·MAD (a robust
// standard deviation) and √median (counts are Poisson-like, so a quiet
// series whose MAD is 0 does not alarm at its first extra post).
const (
	spikeK          = 3.0
	spikeMinCount   = 5
	spikeMinHistory = 3
)

func (s *Service) statsCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "get_mention_stats", Title: "Mention statistics", Group: "mention", Method: "GET", Path: "/api/v1/mention-stats",
			Scope: MentionsRead, Idempotent: true,
			Description: "Mentions per hour or day by sentiment for the list_mentions filters over a window (default the last 30 days), " +
				"with spikes: buckets whose volume, or negative volume, is far above the series' own recent baseline; each spike gives the bucket's start and end, " +
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
	case in.DatePreset == "all_time":
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
	step, history, hourly := 24*time.Hour, 7, false
	if interval == "hour" {
		step, history, hourly = time.Hour, 24, true
	}
	since = since.UTC().Truncate(step) // UTC days and hours start at multiples of step
	if limit := map[bool]time.Duration{true: maxHourWindow, false: maxDayWindow}[hourly]; until.Sub(since) > limit+step {
		return nil, Invalid("since", "the window may span at most %d days with interval=%s", int(limit.Hours()/24), interval)
	}
	// The baseline of the first buckets comes from before the window.
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
	for _, sp := range mergeSpikes(findSpikes(volume, history, "volume"), findSpikes(negative, history, "negative")) {
		out.Spikes = append(out.Spikes, Spike{Kind: sp.kind, Start: store.FormatTime(starts[sp.i]), End: store.FormatTime(end(sp.i)),
			Count: sp.count, Baseline: sp.baseline, Threshold: sp.threshold})
	}
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

type spikeAt struct {
	i                   int
	kind                string
	count               int
	baseline, threshold float64
}

// findSpikes returns the buckets of series, from position history on (the
// earlier ones are the first buckets' baseline), far above the median of
// the history buckets before each.
func findSpikes(series []int, history int, kind string) []spikeAt {
	var out []spikeAt
	for i := history; i < len(series); i++ {
		prev := series[max(0, i-history):i]
		if len(prev) < spikeMinHistory || series[i] < spikeMinCount {
			continue
		}
		med := median(prev)
		devs := make([]float64, 0, len(prev))
		for _, v := range prev {
			devs = append(devs, math.Abs(float64(v)-med))
		}
		scale := math.Max(1.4826*medianF(devs), math.Sqrt(math.Max(med, 1)))
		threshold := med + spikeK*scale
		if float64(series[i]) > threshold {
			out = append(out, spikeAt{i: i, kind: kind, count: series[i], baseline: med, threshold: math.Round(threshold*10) / 10})
		}
	}
	return out
}

// mergeSpikes orders spikes by bucket, volume before negative.
func mergeSpikes(a, b []spikeAt) []spikeAt {
	out := append(a, b...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].i < out[j].i })
	return out
}

func median(v []int) float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return medianF(f)
}

func medianF(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
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
