package server_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"earshot/spike"
	"earshot/store"
)

// TestSpikesHTTP: spikes the background detector found are read through
// list_spikes and get_spike over REST like any resource: filters, paging
// with a bound cursor, tenancy, validation, and the mentions behind them.
func TestSpikesHTTP(t *testing.T) {
	e := newEnv(t)
	g := e.do("POST", "/api/v1/keyword-groups", e.keyA, map[string]any{"name": "Acme", "is_own": true}).ok().data()
	groupID := g["id"].(string)
	mon := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Acme", "keywords": []string{"acme"}, "group_id": groupID}).ok().data()
	monID := mon["id"].(string)
	quiet := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Quiet", "keywords": []string{"acme widgets"}}).ok().data()["id"].(string)

	// A week of two posts an hour, then a burst of 30 (12 negative) three
	// hours ago, and a smaller one (15) yesterday.
	hour := time.Now().UTC().Truncate(time.Hour)
	burst, yesterday := hour.Add(-3*time.Hour), hour.Add(-22*time.Hour)
	n := 0
	seed := func(at time.Time, count int, neg int, monitors ...string) {
		base := n
		e.seedMentions(e.projA, monitors, count, at.Add(59*time.Minute), func(i int, m *store.NewMention) {
			m.ExternalID = "s" + strconv.Itoa(base+i)
			if i < neg {
				m.Sentiment = "negative"
			}
		})
		n += count
	}
	for h := hour.Add(-8 * 24 * time.Hour); h.Before(hour); h = h.Add(time.Hour) {
		seed(h, 2, 0, monID)
	}
	seed(burst, 30, 12, monID)
	seed(yesterday, 15, 0, monID)
	seed(hour.Add(-5*time.Hour), 3, 3, quiet) // three posts on a quiet monitor: no spike
	if _, err := (&spike.Runner{Store: e.st}).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}

	list := func(q string) []map[string]any {
		t.Helper()
		d := e.do("GET", "/api/v1/spikes"+q, e.keyA, nil).ok().data()
		var out []map[string]any
		for _, s := range d["spikes"].([]any) {
			out = append(out, s.(map[string]any))
		}
		return out
	}
	all := list("")
	// volume and negative for the burst, volume yesterday; each for the
	// monitor and its group.
	if len(all) != 6 {
		t.Fatalf("%d spikes, want 6: %v", len(all), all)
	}
	if all[0]["bucket_start"] != store.FormatTime(burst) || all[len(all)-1]["bucket_start"] != store.FormatTime(yesterday) {
		t.Errorf("not newest hour first: %v … %v", all[0]["bucket_start"], all[len(all)-1]["bucket_start"])
	}
	neg := list("?kind=negative&monitor_id=" + monID)
	if len(neg) != 1 {
		t.Fatalf("negative spikes of the monitor: %v", neg)
	}
	s := neg[0]
	if s["scope"] != "monitor" || s["monitor_id"] != monID || s["keyword_group_id"] != nil || s["count"] != float64(12) ||
		s["bucket_end"] != store.FormatTime(burst.Add(time.Hour)) || s["baseline"] != float64(0) || s["detected_at"] == nil ||
		s["threshold"] != float64(6) { // 5 negative posts on a silent monitor fail the Poisson gate
		t.Errorf("spike record: %v", s)
	}
	q := s["mentions_query"].(map[string]any)
	if q["monitor_id"] != monID || q["sentiment"] != "negative" || q["since"] != s["bucket_start"] || q["until"] != s["bucket_end"] {
		t.Errorf("mentions_query: %v", q)
	}
	// The link lists exactly the mentions behind the spike.
	path := s["mentions_path"].(string)
	ms := e.do("GET", path+"&limit=100", e.keyA, nil).ok().data()["items"].([]any)
	if len(ms) != 12 {
		t.Errorf("%s lists %d mentions, want 12", path, len(ms))
	}
	grp := list("?keyword_group_id=" + groupID)
	if len(grp) != 3 || grp[0]["scope"] != "keyword_group" || grp[0]["mentions_query"] != nil || grp[0]["monitor_id"] != nil {
		t.Errorf("group spikes: %v", grp)
	}
	if ids := grp[0]["monitor_ids"].([]any); len(ids) != 1 || ids[0] != monID {
		t.Errorf("group spike monitor_ids: %v", ids)
	}
	// Time window: only yesterday's hour.
	win := list("?since=" + url.QueryEscape(store.FormatTime(yesterday.Add(30*time.Minute))) + "&until=" + url.QueryEscape(store.FormatTime(yesterday.Add(2*time.Hour))))
	if len(win) != 2 || win[0]["bucket_start"] != store.FormatTime(yesterday) {
		t.Errorf("window: %v", win)
	}
	if got := list("?monitor_id=" + quiet); len(got) != 0 {
		t.Errorf("three posts on a quiet monitor made spikes: %v", got)
	}

	// get_spike: the record and the mentions behind it, most urgent first.
	one := e.do("GET", "/api/v1/spikes/"+s["id"].(string), e.keyA, nil).ok().data()
	if one["id"] != s["id"] || one["count"] != float64(12) {
		t.Errorf("get_spike: %v", one)
	}
	behind := one["mentions"].([]any)
	if len(behind) != 12 {
		t.Fatalf("%d mentions behind, want 12", len(behind))
	}
	last := 101.0
	for _, m := range behind {
		m := m.(map[string]any)
		if m["sentiment"] != "negative" || m["published_at"].(string) < s["bucket_start"].(string) || m["published_at"].(string) >= s["bucket_end"].(string) {
			t.Errorf("mention behind the spike: %v", m)
		}
		if u := m["urgency"].(float64); u > last {
			t.Errorf("not most urgent first")
		} else {
			last = u
		}
	}
	gv := list("?kind=volume&keyword_group_id=" + groupID)[0]
	vol := e.do("GET", "/api/v1/spikes/"+gv["id"].(string), e.keyA, nil).ok().data()
	if len(vol["mentions"].([]any)) != 20 {
		t.Errorf("a 30-mention spike shows %d mentions, want the first 20", len(vol["mentions"].([]any)))
	}

	// Paging: two at a time, the cursor bound to its filters.
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		q := "/api/v1/spikes?limit=2"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		d := e.do("GET", q, e.keyA, nil).ok().data()
		for _, sp := range d["spikes"].([]any) {
			seen[sp.(map[string]any)["id"].(string)] = true
		}
		if d["hasMore"] != true {
			if d["nextCursor"] != nil {
				t.Errorf("last page has a cursor")
			}
			break
		}
		cursor = d["nextCursor"].(string)
		if page > 5 {
			t.Fatal("paging does not end")
		}
	}
	if len(seen) != 6 {
		t.Errorf("paging saw %d spikes, want 6", len(seen))
	}
	first := e.do("GET", "/api/v1/spikes?limit=2", e.keyA, nil).ok().data()["nextCursor"].(string)
	if r := e.do("GET", "/api/v1/spikes?limit=2&kind=volume&cursor="+url.QueryEscape(first), e.keyA, nil).expect(400, "VALIDATION_ERROR"); r.errParam() != "cursor" {
		t.Errorf("cursor reused with other filters: param %q", r.errParam())
	}

	// Validation and tenancy.
	for _, c := range []struct{ q, param string }{
		{"?kind=loud", "kind"},
		{"?monitor_id=nope", "monitor_id"},
		{"?since=yesterday", "since"},
		{"?monitor_id=" + monID + "&keyword_group_id=" + groupID, "keyword_group_id"},
		{"?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", "until"},
		{"?limit=101", "limit"},
		{"?colour=red", "colour"},
	} {
		if r := e.do("GET", "/api/v1/spikes"+c.q, e.keyA, nil).expect(400, "VALIDATION_ERROR"); r.errParam() != c.param {
			t.Errorf("%s: param %q, want %q", c.q, r.errParam(), c.param)
		}
	}
	if r := e.do("GET", "/api/v1/spikes?monitor_id="+monID, e.keyB, nil).expect(404, "NOT_FOUND"); r.errParam() != "monitor_id" {
		t.Errorf("another tenant's monitor: param %q", r.errParam())
	}
	e.do("GET", "/api/v1/spikes?keyword_group_id="+groupID, e.keyB, nil).expect(404, "NOT_FOUND")
	if got := e.do("GET", "/api/v1/spikes", e.keyB, nil).ok().data()["spikes"].([]any); len(got) != 0 {
		t.Errorf("another tenant sees %d spikes", len(got))
	}
	e.do("GET", "/api/v1/spikes/"+s["id"].(string), e.keyB, nil).expect(404, "NOT_FOUND")
	e.do("GET", "/api/v1/spikes/not-a-uuid", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/spikes", "", nil).expect(401, "UNAUTHORIZED")

	// A viewer reads spikes (mentions:read).
	viewer := e.mustKey(e.projA, []string{"mentions:read"})
	e.do("GET", "/api/v1/spikes/"+s["id"].(string), viewer, nil).ok()

	// Detection is idempotent: running again adds nothing.
	if again, err := (&spike.Runner{Store: e.st}).RunOnce(context.Background()); err != nil || len(again) != 0 {
		t.Errorf("second run: %v, %d new", err, len(again))
	}
	if got := list(""); len(got) != 6 {
		t.Errorf("%d spikes after a second run", len(got))
	}
}

// TestSpikeAlertsHTTP: create_alert takes trigger spike, narrowed only by
// what a spike has (monitor, negative).
func TestSpikeAlertsHTTP(t *testing.T) {
	e := newEnv(t)
	mon := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Acme", "keywords": []string{"acme"}}).ok().data()["id"].(string)
	a := e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "Bursts", "channel": "email", "target": "ops@example.com",
		"trigger": "spike", "filters": map[string]any{"monitor_id": mon, "sentiment": "negative"}, "digest": "hourly"}).ok().data()
	if a["trigger"] != "spike" || a["digest"] != "hourly" {
		t.Fatalf("alert: %v", a)
	}
	plain := e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "Urgent", "channel": "email", "target": "ops@example.com"}).ok().data()
	if plain["trigger"] != "mention" {
		t.Errorf("default trigger: %v", plain["trigger"])
	}
	for _, c := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"name": "x", "channel": "email", "target": "o@example.com", "trigger": "spike", "filters": map[string]any{"category": "complaint"}}, "filters.category"},
		{map[string]any{"name": "x", "channel": "email", "target": "o@example.com", "trigger": "spike", "filters": map[string]any{"sentiment": "positive"}}, "filters.sentiment"},
		{map[string]any{"name": "x", "channel": "email", "target": "o@example.com", "trigger": "burst"}, "trigger"},
	} {
		if r := e.do("POST", "/api/v1/alerts", e.keyA, c.body).expect(400, "VALIDATION_ERROR"); r.errParam() != c.param {
			t.Errorf("%v: param %q, want %q", c.body, r.errParam(), c.param)
		}
	}
	// Switching a mention alert with a category filter to spikes is refused;
	// switching it back works.
	id := plain["id"].(string)
	e.do("PATCH", "/api/v1/alerts/"+id, e.keyA, map[string]any{"filters": map[string]any{"category": "complaint"}}).ok()
	if r := e.do("PATCH", "/api/v1/alerts/"+id, e.keyA, map[string]any{"trigger": "spike"}).expect(400, "VALIDATION_ERROR"); r.errParam() != "filters.category" {
		t.Errorf("update to spike with a mention filter: param %q", r.errParam())
	}
	up := e.do("PATCH", "/api/v1/alerts/"+id, e.keyA, map[string]any{"trigger": "spike", "filters": map[string]any{}}).ok().data()
	if up["trigger"] != "spike" {
		t.Errorf("updated alert: %v", up)
	}
	e.do("POST", "/api/v1/webhooks", e.keyA, map[string]any{"url": "https://hooks.example.com/x", "events": []string{"spike.detected"}}).ok()
}

// TestSpikesMCP: the same operations as MCP tools, with output that the
// SDK checks against each tool's declared output schema (nullable ids and
// mentions_query of a group spike included).
func TestSpikesMCP(t *testing.T) {
	e := newAgentsEnv(t)
	ctx := context.Background()
	g, err := e.st.CreateKeywordGroup(ctx, e.proj.ID, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	mon := &store.Monitor{ProjectID: e.proj.ID, Name: "Acme", Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"},
		GroupName: "custom", GroupID: &g.ID, Active: true, ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := e.st.CreateMonitor(ctx, mon); err != nil {
		t.Fatal(err)
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	var batch []store.NewMention
	for i := range 21 {
		at := hour.Add(-2 * time.Hour).Add(time.Duration(i) * time.Minute)
		if i == 20 {
			at = hour.Add(-6 * 24 * time.Hour)
		}
		batch = append(batch, store.NewMention{Source: "x", ExternalID: "m" + strconv.Itoa(i), Text: "acme", PublishedAt: at,
			MonitorIDs: []string{mon.ID}, IsRelevant: true, Category: "other", Sentiment: "negative", Urgency: i})
	}
	if _, err := e.st.IngestMentions(ctx, e.proj.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := (&spike.Runner{Store: e.st}).RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	cs := e.overHTTP(e.readKey)
	a := callTool(t, cs, "list_spikes", map[string]any{"keyword_group_id": g.ID, "kind": "negative"})
	if a.isError {
		t.Fatalf("list_spikes: %v", a.env)
	}
	sps := a.data()["spikes"].([]any)
	if len(sps) != 1 {
		t.Fatalf("list_spikes: %v", a.data())
	}
	sp := sps[0].(map[string]any)
	if sp["scope"] != "keyword_group" || sp["count"] != float64(20) || sp["mentions_query"] != nil {
		t.Errorf("group spike over MCP: %v", sp)
	}
	got := callTool(t, cs, "get_spike", map[string]any{"id": sp["id"]})
	if got.isError || len(got.data()["mentions"].([]any)) != 20 {
		t.Fatalf("get_spike: %v", got.env)
	}
	if other := callTool(t, e.overHTTP(e.otherKey), "get_spike", map[string]any{"id": sp["id"]}); other.errCode() != "NOT_FOUND" {
		t.Errorf("another tenant's spike over MCP: %v", other.env)
	}
}
