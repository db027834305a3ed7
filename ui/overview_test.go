package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestInboxOverviewSpike: a burst of mentions today, against one a day
// before, shows as a spike in the overview, linked to the inbox over its
// bucket with the same filters; the page renders it in place with
// ?overview=1 and the JavaScript fetches the same from /ui/overview.
func TestInboxOverviewSpike(t *testing.T) {
	e, c := ownerClient(t, 0)
	now := time.Now().UTC()
	var batch []store.NewMention
	for d := 1; d <= 12; d++ {
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprintf("base-%d", d), URL: fmt.Sprintf("https://x.example/b%d", d), AuthorHandle: "a",
			Text: "acme is fine", PublishedAt: now.AddDate(0, 0, -d), IsRelevant: true, Category: "other", Sentiment: "neutral"})
	}
	for i := 0; i < 20; i++ {
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprintf("burst-%d", i), URL: fmt.Sprintf("https://x.example/s%d", i), AuthorHandle: "b",
			Text: "acme is down", PublishedAt: now.Add(-time.Duration(i) * time.Minute), IsRelevant: true, Category: "bug_report", Sentiment: "negative"})
	}
	if _, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/?source=x")
	must(t, body, `data-src="/ui/overview?source=x"`)
	_, body, _ = c.get("/?source=x&overview=1")
	must(t, body, "<h2 id=\"ov-h\">Overview</h2>", "32 mentions", "Spikes", `class="spike"`, "20 negative mentions on")
	link := regexpMust(`<ul class="spikes"><li><a href="([^"]+)"`).FindStringSubmatch(body)
	if link == nil {
		t.Fatal("no spike link")
	}
	href := strings.ReplaceAll(link[1], "&amp;", "&")
	u, _ := url.Parse(href)
	if u.Query().Get("source") != "x" || u.Query().Get("since") == "" || u.Query().Get("until") == "" {
		t.Errorf("spike link %q lacks the filter or the bucket", href)
	}
	_, listed, _ := c.get(href)
	if n := strings.Count(listed, `class="mention `); n < 20 {
		t.Errorf("the spike's link lists %d mentions, want the 20 behind it", n)
	}
	st, js, _ := c.get("/ui/overview?source=x")
	var out struct{ HTML string }
	if st != http.StatusOK || json.Unmarshal([]byte(js), &out) != nil || !strings.Contains(out.HTML, "Spikes") {
		t.Errorf("overview fragment: %d %.200s", st, js)
	}
	// Monitors get a sparkline each.
	c.get("/monitors/new")
	c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	_, body, _ = c.get("/monitors")
	must(t, body, `class="sparkline"`, "mentions in 31 days")
}

// TestChangePasswordForm: the account page changes the password through
// change_password; a mistyped repeat is refused before it runs.
func TestChangePasswordForm(t *testing.T) {
	e, c := ownerClient(t, 0)
	_, body, _ := c.get("/account")
	must(t, body, `action="/a/change_password"`, `autocomplete="current-password"`)
	_, body, _ = c.post("/a/change_password", url.Values{"current_password": {"correct-horse-42"}, "new_password": {"better-pass-1"}, "new_password_confirm": {"better-pass-2"}, "_back": {"/account"}}, true)
	must(t, body, "The two new password entries differ")
	if strings.Contains(body, "correct-horse-42") || strings.Contains(body, "better-pass") {
		t.Error("a password echoed back into the page")
	}
	// A key this session made is revoked by the change, and the flash says so
	// (issue 25, L2).
	c.post("/a/create_api_key", url.Values{"name": {"ci"}, "_back": {"/keys"}}, true)
	if ks, err := e.st.ListAPIKeys(context.Background(), e.proj.ID); err != nil || len(ks) != 1 {
		t.Fatalf("create_api_key: %d keys, %v", len(ks), err)
	}
	st, _, h := c.post("/a/change_password", url.Values{"current_password": {"correct-horse-42"}, "new_password": {"better-pass-1"}, "new_password_confirm": {"better-pass-1"}, "_back": {"/account"}}, true)
	if st != http.StatusSeeOther || h.Get("Location") != "/account" {
		t.Fatalf("change password: %d %q", st, h.Get("Location"))
	}
	_, body, _ = c.get("/account")
	must(t, body, "Password changed.", "1 API key made from a session was revoked")
	if _, err := e.svc.Login(context.Background(), "owner@example.com", "better-pass-1", ""); err != nil {
		t.Errorf("the new password does not log in: %v", err)
	}
}

// TestLoadMoreLinkKeepsFilters: the no-JavaScript "Load more" link carries
// the filters as parameters (not one escaped value) and the cursor.
func TestLoadMoreLinkKeepsFilters(t *testing.T) {
	_, c := ownerClient(t, 60)
	_, body, _ := c.get("/?status=new&category=testimonial&limit=5")
	m := regexpMust(`id="load-more" href="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no Load more link")
	}
	u, _ := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	if u.Query().Get("status") != "new" || u.Query().Get("category") != "testimonial" || u.Query().Get("cursor") == "" {
		t.Fatalf("Load more link %q", m[1])
	}
	st, next, _ := c.get(u.String())
	if st != 200 || strings.Count(next, `class="mention `) != 5 {
		t.Errorf("the next page: %d, %d rows", st, strings.Count(next, `class="mention `))
	}
}

// TestUsageTrend: the usage page draws mentions stored per day.
func TestUsageTrend(t *testing.T) {
	_, c := ownerClient(t, 7)
	_, body, _ := c.get("/usage")
	must(t, body, "Mentions stored per day, last", `<title id="use-w-t">`, `<title id="use-n-t">`, "mentions stored: 7</title>", "7 in ")
}

// TestRecentSpikesBanner: a spike the detector recorded in the last day
// heads the inbox in words, linked to the mentions behind it.
func TestRecentSpikesBanner(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	c.get("/monitors/new")
	c.post("/a/create_monitor", url.Values{"name": {"Acme brand"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	hour := time.Now().UTC().Truncate(time.Hour)
	if _, err := e.st.RecordSpikes(ctx, e.proj.ID, []store.SpikeFinding{{SpikeScope: store.SpikeScope{Scope: "monitor", ID: ms[0].ID},
		Kind: "negative", BucketStart: hour, Count: 15, Baseline: 1, Score: 9, Threshold: 6}}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/")
	must(t, body, "Spikes in the last 24 hours", "15 negative mentions for Acme brand in the hour from "+hour.Format("15:04")+" UTC (usually about 1)")
	link := regexpMust(`<section class="bursts"[^>]*>.*?<a href="([^"]+)"`).FindStringSubmatch(body)
	if link == nil {
		t.Fatal("no link to the spike's mentions")
	}
	u, _ := url.Parse(strings.ReplaceAll(link[1], "&amp;", "&"))
	if u.Query().Get("monitor_id") != ms[0].ID || u.Query().Get("sentiment") != "negative" || u.Query().Get("since") == "" {
		t.Errorf("spike link %q", link[1])
	}
}

// TestRecentSpikesOneCountPerHour: two records of the same kind and hour
// (a monitor and another scope with a different count) read as one line
// with the larger count, never the same hour twice with two counts.
func TestRecentSpikesOneCountPerHour(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	c.get("/monitors/new")
	c.post("/a/create_monitor", url.Values{"name": {"Acme brand"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	c.post("/a/create_monitor", url.Values{"name": {"Acme app"}, "keywords": {"acme app"}, "_back": {"/monitors/new"}}, true)
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	if len(ms) != 2 {
		t.Fatalf("%d monitors", len(ms))
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	var fs []store.SpikeFinding
	for i, n := range []int{12, 15} {
		fs = append(fs, store.SpikeFinding{SpikeScope: store.SpikeScope{Scope: "monitor", ID: ms[i].ID}, Kind: "volume", BucketStart: hour, Count: n, Baseline: 1, Score: 9, Threshold: 6})
	}
	if _, err := e.st.RecordSpikes(ctx, e.proj.ID, fs); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/")
	at := " in the hour from " + hour.Format("15:04") + " UTC"
	if n := strings.Count(body, at); n != 1 {
		t.Errorf("the hour is listed %d times, want once:\n%s", n, regexpMust(`(?s)<section class="bursts".*?</section>`).FindString(body))
	}
	must(t, body, "15 mentions for "+ms[1].Name+at)
}
