package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"earshot/api"
	"earshot/capability"
)

// overview is the inbox's picture of the conversation for its filters:
// mentions per day (or hour) by sentiment, with spikes linked to the
// mentions behind them (get_mention_stats).
type overview struct {
	Chart                              chart
	Total, Positive, Neutral, Negative int
	Spikes                             []spikeItem
	Window                             string // "from Mon 27 Oct to Wed 26 Nov"
}

// spikeItem is a spike in words, linked to the inbox listing its mentions.
type spikeItem struct {
	Label, Href string
	named       bool // names its monitor
}

func pctOf(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a*100 + b/2) / b
}

// Words sums the window up: "412 mentions · 62% positive · …".
func (o *overview) Words() string {
	if o.Total == 0 {
		return "No mentions"
	}
	return fmt.Sprintf("%s mentions · %d%% positive · %d%% neutral · %d%% negative", num(o.Total),
		pctOf(o.Positive, o.Total), pctOf(o.Neutral, o.Total), pctOf(o.Negative, o.Total))
}

// statsKeys are the list filters get_mention_stats takes.
var statsKeys = capability.FilterKeys()

// stats is get_mention_stats' output as its API documents it (read
// through JSON, as any client reads it).
type stats struct {
	Since, Until, Interval string
	Totals                 statsCounts
	Buckets                []struct {
		Start, End string
		statsCounts
	}
	Spikes []struct {
		Kind, Start, End string
		Count            int
		Baseline         float64
	}
	Monitors []struct {
		MonitorID string `json:"monitor_id"`
		Name      string
		Total     int
		Counts    []int
	}
}

type statsCounts struct{ Total, Positive, Neutral, Negative int }

// mentionStats runs get_mention_stats with in; nil when it fails or is not
// served.
func (u *UI) mentionStats(r *http.Request, p *capability.Principal, in url.Values) *stats {
	if _, ok := u.svc.Capability("get_mention_stats"); !ok {
		return nil
	}
	o := u.run(r.Context(), p, "get_mention_stats", in, true)
	if o.Err != nil {
		return nil
	}
	b, err := json.Marshal(o.Data)
	if err != nil {
		return nil
	}
	var st stats
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	return &st
}

// inboxOverview is the overview of the inbox's filters q.
// Hour labels are in the user's zone loc; buckets stay UTC hours and UTC
// days (the API's), so day labels name the UTC date.
func (u *UI) inboxOverview(r *http.Request, p *capability.Principal, q url.Values, loc *time.Location) *overview {
	in := url.Values{}
	for _, k := range statsKeys {
		if v := q.Get(k); v != "" {
			in.Set(k, v)
		}
	}
	st := u.mentionStats(r, p, in)
	if st == nil {
		return nil
	}
	ov := &overview{Total: st.Totals.Total, Positive: st.Totals.Positive, Neutral: st.Totals.Neutral, Negative: st.Totals.Negative}
	hourly := st.Interval == "hour"
	when := func(ts string) string {
		t, ok := parseTime(ts)
		if !ok {
			return ts
		}
		if hourly {
			return t.In(loc).Format("2 Jan 15:04 MST")
		}
		return t.UTC().Format("Mon 2 Jan")
	}
	// A spike links to the inbox with the same filters over its bucket.
	base := url.Values{}
	for k, v := range in {
		if k != "since" && k != "until" && k != "date_preset" {
			base[k] = v
		}
	}
	spikeAt := map[string]*spikeMark{}
	for _, sp := range st.Spikes {
		lq := url.Values{}
		for k, v := range base {
			lq[k] = v
		}
		lq.Set("since", sp.Start)
		lq.Set("until", sp.End)
		what := "mentions"
		if sp.Kind == "negative" {
			lq.Set("sentiment", "negative")
			what = "negative mentions"
		}
		in := "on"
		if hourly {
			in = "in the hour from"
		}
		label := fmt.Sprintf("%d %s %s %s (usually about %.0f)", sp.Count, what, in, when(sp.Start), sp.Baseline)
		href := "/?" + lq.Encode()
		ov.Spikes = append(ov.Spikes, spikeItem{Label: label, Href: href})
		if spikeAt[sp.Start] == nil {
			spikeAt[sp.Start] = &spikeMark{Href: href, Label: "Spike: " + label}
		}
	}
	days := make([]stackDay, 0, len(st.Buckets))
	for _, b := range st.Buckets {
		days = append(days, stackDay{Date: b.Start, Spike: spikeAt[b.Start], Segs: []stackSeg{
			{Count: b.Negative, Color: sentimentColors["negative"], Name: "negative"},
			{Count: b.Neutral, Color: sentimentColors["neutral"], Name: "neutral"},
			{Count: b.Positive, Color: sentimentColors["positive"], Name: "positive"}}})
	}
	ov.Window = "from " + when(st.Since) + " to " + when(st.Until)
	name := shortDate
	if hourly {
		name = func(ts string) string {
			if t, ok := parseTime(ts); ok {
				return t.In(loc).Format("15:04")
			}
			return ts
		}
	}
	desc := fmt.Sprintf("Mentions per %s by sentiment %s, stacked negative, neutral, positive. %s. %d spikes.", st.Interval, ov.Window, ov.Words(), len(st.Spikes))
	ov.Chart = stackChart("ov", "Mentions per "+st.Interval+" by sentiment", desc, days, 360, name)
	return ov
}

// overviewFragment is the overview rendered for the inbox's JavaScript,
// which fetches it after the page so the inbox itself stays fast.
func (u *UI) overviewFragment(w http.ResponseWriter, r *http.Request, s *session) (any, *capability.Error) {
	ov := u.inboxOverview(r, s.p, r.URL.Query(), userZone(s.user))
	if ov == nil {
		return map[string]any{"html": ""}, nil
	}
	html, err := u.fragment("inbox", "overview", ov)
	if err != nil {
		return nil, capability.Internal()
	}
	return map[string]any{"html": html}, nil
}

// recentSpikes are the bursts the spike detector recorded in the last 24
// hours (list_spikes), in words, each linked to the inbox listing the
// mentions behind it: fifteen outage posts in an hour read as one line
// above the rows, not only as fifteen rows.
func (u *UI) recentSpikes(r *http.Request, p *capability.Principal, monitors []*api.Monitor, loc *time.Location) []spikeItem {
	if _, ok := u.svc.Capability("list_spikes"); !ok {
		return nil
	}
	since := u.now().Add(-24 * time.Hour)
	o := u.run(r.Context(), p, "list_spikes", url.Values{"since": {api.FormatTime(since)}, "limit": {"5"}}, true)
	if o.Err != nil {
		return nil
	}
	out, ok := o.Data.(*capability.SpikesOut)
	if !ok {
		return nil
	}
	names := map[string]string{}
	for _, m := range monitors {
		names[m.ID] = m.Name
	}
	var items []spikeItem
	seen := map[string]int{}   // kind and hour → index in items
	counts := map[string]int{} // kind and hour → the count shown
	for _, sp := range out.Spikes {
		// One line, one count, per kind and hour: a keyword group spikes
		// with its busy monitor, and two lines for the same hour with
		// different counts read as a contradiction. The broadest count
		// stays; at the same count, the monitor's line (named).
		k := fmt.Sprint(sp.Kind, sp.BucketStart)
		at, dup := seen[k]
		if dup && (sp.Count < counts[k] || sp.Count == counts[k] && (sp.MentionsQuery == nil || items[at].named)) {
			continue
		}
		counts[k] = sp.Count
		q := url.Values{"since": {sp.BucketStart}, "until": {sp.BucketEnd}, "is_relevant": {"true"}}
		what := "mentions"
		if sp.Kind == "negative" {
			q.Set("sentiment", "negative")
			what = "negative mentions"
		}
		of := ""
		if sp.MentionsQuery != nil {
			q.Set("monitor_id", sp.MentionsQuery.MonitorID)
			if n := names[sp.MentionsQuery.MonitorID]; n != "" {
				of = " for " + n
			}
		}
		hour := sp.BucketStart
		if t, ok := parseTime(sp.BucketStart); ok {
			hour = t.In(loc).Format("15:04 MST")
		}
		item := spikeItem{Label: fmt.Sprintf("%d %s%s in the hour from %s (usually about %.0f)", sp.Count, what, of, hour, sp.Baseline),
			Href: "/?" + q.Encode(), named: of != ""}
		if dup {
			items[at] = item
			continue
		}
		seen[k] = len(items)
		items = append(items, item)
		if len(items) == 3 {
			break
		}
	}
	return items
}
