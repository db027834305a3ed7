package server_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"earshot/store"
)

// TestMentionStats: counts per hour by sentiment for the list filters, a
// burst of negative posts found as a spike (volume and negative) whose
// bounds list exactly the mentions behind it, a quiet series that does not
// alarm, per-monitor series, and the window's limits.
func TestMentionStats(t *testing.T) {
	e := newEnv(t)
	mon := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Acme", "keywords": []string{"acme"}}).ok().data()["id"].(string)
	other := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Other", "keywords": []string{"other"}}).ok().data()["id"].(string)
	now := time.Now().UTC()
	start := now.Truncate(time.Hour).Add(-40 * time.Hour)
	// Two posts an hour for 40 hours (one positive, one neutral) …
	e.seedMentions(e.projA, []string{mon}, 80, start.Add(40*time.Hour-time.Minute), func(i int, m *store.NewMention) {
		m.ExternalID = "steady-" + itoa(i)
		m.PublishedAt = start.Add(time.Duration(i/2)*time.Hour + time.Duration(i%2)*20*time.Minute)
		m.Sentiment = []string{"positive", "neutral"}[i%2]
	})
	// … and 15 negative outage posts within one hour, 10 hours ago.
	burst := start.Add(30 * time.Hour)
	e.seedMentions(e.projA, []string{mon, other}, 15, burst, func(i int, m *store.NewMention) {
		m.ExternalID = "outage-" + itoa(i)
		m.PublishedAt = burst.Add(time.Duration(i) * 3 * time.Minute)
		m.Sentiment, m.Category = "negative", "complaint"
	})
	e.seedMentions(e.projB, nil, 50, burst, nil) // another tenant's never count

	q := "since=" + url.QueryEscape(start.Format(time.RFC3339)) + "&interval=hour"
	// A young install (40 hours of mentions) has no baseline yet: the
	// burst is not called a spike "usually about 0" before a week of history.
	if sp := e.do("GET", "/api/v1/mention-stats?"+q, e.keyA, nil).ok().data()["spikes"].([]any); len(sp) != 0 {
		t.Fatalf("spikes on 40 hours of history: %v", sp)
	}
	// A week and a bit of the same steady traffic before it.
	e.seedMentions(e.projA, []string{mon}, 2*24*8, start.Add(-time.Minute), func(i int, m *store.NewMention) {
		m.ExternalID = "history-" + itoa(i)
		m.PublishedAt = start.Add(-time.Duration(i/2+1)*time.Hour + time.Duration(i%2)*20*time.Minute)
		m.Sentiment = []string{"positive", "neutral"}[i%2]
	})
	d := e.do("GET", "/api/v1/mention-stats?"+q, e.keyA, nil).ok().data()
	if d["interval"] != "hour" || d["since"] != store.FormatTime(start) {
		t.Fatalf("interval %v since %v", d["interval"], d["since"])
	}
	buckets := d["buckets"].([]any)
	if len(buckets) < 40 || len(buckets) > 41 {
		t.Fatalf("%d buckets, want 40 or 41 (the current hour)", len(buckets))
	}
	totals := d["totals"].(map[string]any)
	if totals["total"].(float64) != 95 || totals["negative"].(float64) != 15 || totals["positive"].(float64) != 40 || totals["neutral"].(float64) != 40 {
		t.Fatalf("totals %v", totals)
	}
	b := buckets[30].(map[string]any)
	if b["start"] != store.FormatTime(burst) || b["end"] != store.FormatTime(burst.Add(time.Hour)) || b["total"].(float64) != 17 || b["negative"].(float64) != 15 {
		t.Fatalf("burst bucket %v", b)
	}
	spikes := d["spikes"].([]any)
	kinds := map[string]bool{}
	for _, s := range spikes {
		sp := s.(map[string]any)
		if sp["start"] != store.FormatTime(burst) {
			t.Fatalf("spike outside the burst: %v", sp)
		}
		kinds[sp["kind"].(string)] = true
		if sp["kind"] == "negative" {
			// The spike's bounds list exactly the posts behind it.
			got := listAll(t, e, e.keyA, "sentiment=negative&since="+url.QueryEscape(sp["start"].(string))+"&until="+url.QueryEscape(sp["end"].(string)), 100, nil)
			if len(got) != 15 || sp["count"].(float64) != 15 || sp["baseline"].(float64) != 0 {
				t.Fatalf("negative spike %v lists %d mentions", sp, len(got))
			}
		}
	}
	if !kinds["volume"] || !kinds["negative"] || len(spikes) != 2 {
		t.Fatalf("spikes %v", spikes)
	}
	// Filters apply: positive mentions have no spike, and count 40.
	d = e.do("GET", "/api/v1/mention-stats?"+q+"&sentiment=positive", e.keyA, nil).ok().data()
	if d["totals"].(map[string]any)["total"].(float64) != 40 || len(d["spikes"].([]any)) != 0 {
		t.Fatalf("positive: %v %v", d["totals"], d["spikes"])
	}
	// Per monitor, aligned with the buckets.
	d = e.do("GET", "/api/v1/mention-stats?"+q+"&group_by=monitor", e.keyA, nil).ok().data()
	mons := d["monitors"].([]any)
	if len(mons) != 2 {
		t.Fatalf("monitors %v", mons)
	}
	for _, m := range mons {
		ms := m.(map[string]any)
		counts := ms["counts"].([]any)
		if len(counts) != len(d["buckets"].([]any)) {
			t.Fatalf("%d counts for %d buckets", len(counts), len(d["buckets"].([]any)))
		}
		want := map[string]float64{mon: 95, other: 15}[ms["monitor_id"].(string)]
		if ms["total"].(float64) != want || counts[30].(float64) != map[string]float64{mon: 17, other: 15}[ms["monitor_id"].(string)] {
			t.Fatalf("monitor %v: total %v, burst %v", ms["name"], ms["total"], counts[30])
		}
	}
	// Defaults: the last 30 days by day; a quiet series raises nothing.
	d = e.do("GET", "/api/v1/mention-stats?source=hn", e.keyA, nil).ok().data()
	if d["interval"] != "day" || len(d["buckets"].([]any)) != 31 || len(d["spikes"].([]any)) != 0 || len(d["monitors"].([]any)) != 0 {
		t.Fatalf("defaults: %v, %d buckets, spikes %v", d["interval"], len(d["buckets"].([]any)), d["spikes"])
	}
	d = e.do("GET", "/api/v1/mention-stats?date_preset=last_24_hours", e.keyA, nil).ok().data()
	if d["interval"] != "hour" {
		t.Fatalf("a day's window is counted by hour, got %v", d["interval"])
	}
	// By hour without a window: the last 48 hours (and the current one).
	if d := e.do("GET", "/api/v1/mention-stats?interval=hour", e.keyA, nil).ok().data(); len(d["buckets"].([]any)) != 49 {
		t.Fatalf("interval=hour alone: %d buckets", len(d["buckets"].([]any)))
	}
	// Limits.
	e.do("GET", "/api/v1/mention-stats?interval=hour&date_preset=last_30_days", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mention-stats?since=2024-01-01T00:00:00Z", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mention-stats?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mention-stats?interval=minute", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mention-stats?sort=urgency", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	d = e.do("GET", "/api/v1/mention-stats?date_preset=all_time", e.keyA, nil).ok().data()
	if len(d["buckets"].([]any)) != 367 {
		t.Fatalf("all_time: %d day buckets, want the last 366 days and today", len(d["buckets"].([]any)))
	}
}

// TestUsageDaysAndSOVSentiment: get_usage's trend counts the mentions
// stored each day (today last, one tenant only); share of voice splits each
// group's mentions by sentiment.
func TestUsageDaysAndSOVSentiment(t *testing.T) {
	e := newEnv(t)
	own := e.do("POST", "/api/v1/keyword-groups", e.keyA, map[string]any{"name": "Acme", "is_own": true}).ok().data()["id"].(string)
	comp := e.do("POST", "/api/v1/keyword-groups", e.keyA, map[string]any{"name": "Globex"}).ok().data()["id"].(string)
	mo := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A", "keywords": []string{"acme"}, "group_id": own}).ok().data()["id"].(string)
	mc := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "G", "keywords": []string{"globex"}, "group_id": comp}).ok().data()["id"].(string)
	day := time.Now().UTC().Add(-26 * time.Hour)
	e.seedMentions(e.projA, []string{mo}, 4, day, func(i int, m *store.NewMention) {
		m.ExternalID, m.Sentiment = "o"+itoa(i), []string{"positive", "positive", "negative", "neutral"}[i]
	})
	e.seedMentions(e.projA, []string{mc}, 3, day, func(i int, m *store.NewMention) {
		m.ExternalID, m.Sentiment = "c"+itoa(i), "negative"
		m.IsRelevant = i < 2
	})
	e.seedMentions(e.projB, nil, 5, day, nil)

	groups := e.do("GET", "/api/v1/share-of-voice?date_preset=last_7_days", e.keyA, nil).ok().data()["groups"].([]any)
	got := map[string]string{}
	for _, g := range groups {
		gm := g.(map[string]any)
		got[gm["name"].(string)] = fmt.Sprintf("%v/%v/%v of %v", gm["positive"], gm["neutral"], gm["negative"], gm["mentions"])
	}
	if got["Acme"] != "2/1/1 of 4" || got["Globex"] != "0/0/2 of 2" {
		t.Fatalf("share of voice by sentiment: %v", got)
	}

	d := e.do("GET", "/api/v1/usage", e.keyA, nil).ok().data()
	days := d["days"].([]any)
	if len(days) != 30 {
		t.Fatalf("%d usage days", len(days))
	}
	last := days[29].(map[string]any)
	if last["date"] != time.Now().UTC().Format("2006-01-02") || last["mentions"].(float64) != 7 {
		t.Fatalf("today: %v", last)
	}
	sum := 0.0
	for _, dd := range days {
		sum += dd.(map[string]any)["mentions"].(float64)
	}
	if sum != 7 || d["mentions_used"].(float64) != 7 {
		t.Fatalf("usage days sum %v, mentions_used %v", sum, d["mentions_used"])
	}
}
