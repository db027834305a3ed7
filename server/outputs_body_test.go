package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"earshot/store"
)

var (
	secretRE = regexp.MustCompile(`"(esk|ess|whsec)_[^"]*"`)
	last4RE  = regexp.MustCompile(`"last4": ?"[^"]*"`)
	inviteRE = regexp.MustCompile(`esi_[A-Za-z0-9_-]+`)
	cursorRE = regexp.MustCompile(`"nextCursor": ?"[^"]*"`)
	dateRE   = regexp.MustCompile(`"\d{4}-\d\d-\d\d"`)
)

// TestOutputBodySnapshots calls each resource's read and write operations
// over REST on a seeded project and compares data (ids, times and secrets
// normalised) with testdata/outputbodies/<step>.json. With the schema
// snapshots (TestOpenAPIOutputSnapshots) this pins the values as well as
// the shape: an output type that forgets to copy a field of its row fails
// here. Regenerate with -update after an intended change.
func TestOutputBodySnapshots(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	k := e.keyA
	dir := filepath.Join("testdata", "outputbodies")
	seen := map[string]bool{}
	known := map[string]string{e.projA.ID: "<project>", e.userA.ID: "<user>"}
	snap := func(step string, r result) result {
		t.Helper()
		r.ok()
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(r.raw, &env); err != nil {
			t.Fatal(err)
		}
		body := bytes.ReplaceAll(env.Data, []byte(e.http.URL), []byte("<base>"))
		body = secretRE.ReplaceAll(normaliseVolatile(body, known), []byte(`"<secret>"`))
		body = last4RE.ReplaceAll(body, []byte(`"last4":"<last4>"`))
		body = inviteRE.ReplaceAll(body, []byte("esi_<token>"))
		body = cursorRE.ReplaceAll(body, []byte(`"nextCursor":"<cursor>"`))
		body = dateRE.ReplaceAllFunc(body, func(b []byte) []byte { // usage days
			d, err := time.Parse(`"2006-01-02"`, string(b))
			if err == nil && d.After(time.Now().AddDate(0, -2, 0)) && d.Before(time.Now().AddDate(0, 2, 0)) {
				return []byte(`"<date>"`)
			}
			return b
		})
		var got bytes.Buffer
		if err := json.Indent(&got, body, "", "  "); err != nil {
			t.Fatal(err)
		}
		got.WriteByte('\n')
		seen[step+".json"] = true
		compareGolden(t, filepath.Join(dir, step+".json"), got.Bytes(), "step "+step)
		return r
	}

	grp := snap("create_keyword_group", e.do("POST", "/api/v1/keyword-groups", k, map[string]any{"name": "Rivals"})).data()
	mon := snap("create_monitor", e.do("POST", "/api/v1/monitors", k, map[string]any{"name": "Acme brand", "keywords": []string{"acme"},
		"exclude_keywords": []string{"acme corp"}, "sources": []string{"reddit", "hn"}, "group_id": grp["id"]})).data()
	monID := mon["id"].(string)
	snap("get_monitor", e.do("GET", "/api/v1/monitors/"+monID, k, nil))
	snap("list_monitors", e.do("GET", "/api/v1/monitors", k, nil))
	snap("list_keyword_groups", e.do("GET", "/api/v1/keyword-groups", k, nil))

	published := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	res, err := e.st.IngestMentions(ctx, e.projA.ID, 0, []store.NewMention{
		{Source: "reddit", ExternalID: "abc123", URL: "https://www.reddit.com/r/devops/comments/abc123/", AuthorHandle: "u/angry_dev",
			Text: "Acme's checkout has been failing for two hours — 502 on every payment.", PublishedAt: published,
			Engagement: map[string]int64{"upvotes": 42, "comments": 7}, MonitorIDs: []string{monID}, IsRelevant: true,
			Category: "bug_report", Sentiment: "negative", Urgency: 87, AISummary: "Checkout failing with 502 errors.", Classifier: "builtin",
			CategoryReason: "Reports a failure.", UrgencyReason: "Payments are down.", RelevanceReason: "Names Acme's checkout.",
			Links: []string{"https://status.acme.example/incident/1"}},
		{Source: "hn", ExternalID: "hn1", URL: "https://news.ycombinator.com/item?id=1", AuthorHandle: "pg",
			Text: "Acme checkout down? https://status.acme.example/incident/1", PublishedAt: published.Add(time.Minute),
			Engagement: map[string]int64{"points": 3}, MonitorIDs: []string{monID}, IsRelevant: true,
			Category: "bug_report", Sentiment: "negative", Urgency: 60, AISummary: "Asks whether checkout is down.", Classifier: "builtin",
			Links: []string{"https://status.acme.example/incident/1"}},
		{Source: "reddit", ExternalID: "def456", URL: "https://www.reddit.com/r/saas/comments/def456/", AuthorHandle: "u/happy",
			Text: "Acme is the best API I have used.", PublishedAt: published.Add(2 * time.Minute),
			MonitorIDs: []string{monID}, IsRelevant: true, Category: "testimonial", Sentiment: "positive", Urgency: 5, Classifier: "builtin"},
	})
	if err != nil || len(res.Created) != 3 {
		t.Fatalf("ingest: %v %+v", err, res)
	}
	men := res.Created[0].ID
	if _, err := e.st.RecordSpikes(ctx, e.projA.ID, []store.SpikeFinding{{SpikeScope: store.SpikeScope{Scope: store.ScopeMonitor, ID: monID},
		Kind: "volume", BucketStart: published.Truncate(time.Hour), Count: 12, Baseline: 2, Score: 5.5, Threshold: 6, Announce: true}}); err != nil {
		t.Fatal(err)
	}

	snap("get_mention", e.do("GET", "/api/v1/mentions/"+men, k, nil))
	snap("update_mention_status", e.do("PATCH", "/api/v1/mentions/"+men, k, map[string]any{"status": "reviewed"}))
	snap("list_mentions", e.do("GET", "/api/v1/mentions?limit=2", k, nil))
	snap("count_mentions", e.do("GET", "/api/v1/mention-count", k, nil))
	snap("get_mention_stats", e.do("GET", "/api/v1/mention-stats?since=2026-03-14T00:00:00Z&until=2026-03-15T00:00:00Z", k, nil))
	snap("get_share_of_voice", e.do("GET", "/api/v1/share-of-voice?since=2026-03-14T00:00:00Z&until=2026-03-15T00:00:00Z", k, nil))
	stories := snap("list_stories", e.do("GET", "/api/v1/stories", k, nil)).data()
	if ss, _ := stories["stories"].([]any); len(ss) > 0 {
		snap("get_story", e.do("GET", "/api/v1/stories/"+ss[0].(map[string]any)["id"].(string), k, nil))
	} else {
		t.Errorf("no story: %v", stories)
	}
	spikes := snap("list_spikes", e.do("GET", "/api/v1/spikes", k, nil)).data()
	if ss, _ := spikes["spikes"].([]any); len(ss) > 0 {
		snap("get_spike", e.do("GET", "/api/v1/spikes/"+ss[0].(map[string]any)["id"].(string), k, nil))
	} else {
		t.Errorf("no spike: %v", spikes)
	}
	snap("preview_public_page", e.do("GET", "/api/v1/public-page", k, nil))

	snap("create_mention_view", e.do("POST", "/api/v1/views", k, map[string]any{"name": "Urgent bugs",
		"filters": map[string]any{"category": "bug_report", "min_urgency": 70}}))
	snap("list_views", e.do("GET", "/api/v1/views", k, nil))
	snap("list_categories", e.do("GET", "/api/v1/categories", k, nil))
	snap("create_alert", e.do("POST", "/api/v1/alerts", k, map[string]any{"name": "Urgent", "channel": "email", "target": "ops@example.com",
		"min_urgency": 70, "filters": map[string]any{"sentiment": "negative"}}))
	snap("list_alerts", e.do("GET", "/api/v1/alerts", k, nil))
	hook := snap("create_webhook", e.do("POST", "/api/v1/webhooks", k, map[string]any{"url": "https://hooks.example.com/earshot",
		"events": []string{"mention.created", "spike.detected"}})).data()
	snap("list_webhooks", e.do("GET", "/api/v1/webhooks", k, nil))
	snap("list_webhook_deliveries", e.do("GET", "/api/v1/webhooks/"+hook["id"].(string)+"/deliveries", k, nil))
	snap("list_api_keys", e.do("GET", "/api/v1/keys", e.sessionA, nil, "Earshot-Project", e.projA.ID))
	snap("invite_member", e.do("POST", "/api/v1/members", e.sessionA, map[string]any{"email": "new@example.com", "role": "editor"}, "Earshot-Project", e.projA.ID))
	snap("list_invitations", e.do("GET", "/api/v1/invitations", e.sessionA, nil, "Earshot-Project", e.projA.ID))
	snap("list_members", e.do("GET", "/api/v1/members", e.sessionA, nil, "Earshot-Project", e.projA.ID))
	snap("get_project", e.do("GET", "/api/v1/projects/"+e.projA.ID, e.sessionA, nil))
	snap("list_projects", e.do("GET", "/api/v1/projects", e.sessionA, nil))
	snap("get_usage", e.do("GET", "/api/v1/usage", k, nil))
	pruneGolden(t, dir, seen)
}
