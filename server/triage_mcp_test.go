package server_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"earshot/store"
)

// TestMCPTriageTools: the curation, urgency order, stats and count tools
// answer over MCP exactly what REST answers.
func TestMCPTriageTools(t *testing.T) {
	e := newAgentsEnv(t)
	ctx := context.Background()
	now := time.Now().UTC()
	batch := make([]store.NewMention, 6)
	for i := range batch {
		batch[i] = store.NewMention{Source: "x", ExternalID: "t" + itoa(i), Text: "Acme post " + itoa(i), PublishedAt: now.Add(-time.Duration(i+1) * time.Hour),
			IsRelevant: true, Category: []string{"testimonial", "complaint"}[i%2], Sentiment: []string{"positive", "negative"}[i%2], Urgency: i * 15}
	}
	res, err := e.st.IngestMentions(ctx, e.proj.ID, 0, batch)
	if err != nil {
		t.Fatal(err)
	}
	ms := res.Created
	cs := e.overHTTP(e.key)
	week, day, end := now.AddDate(0, 0, -7).Format(time.RFC3339), now.Add(-24*time.Hour).Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339)

	upd := callTool(t, cs, "update_mention_status", map[string]any{"id": ms[1].ID, "public_visibility": "featured", "idempotency_key": "feature-" + ms[1].ID})
	if upd.isError || upd.data()["public_visibility"] != "featured" || upd.data()["status"] != "new" {
		t.Fatalf("feature over MCP: %v", upd.env)
	}
	if a := callTool(t, cs, "update_mention_status", map[string]any{"id": ms[1].ID, "public_visibility": "pinned"}); !a.isError {
		t.Errorf("bad public_visibility accepted: %v", a.env)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		path string
	}{
		{"preview_public_page", map[string]any{}, "/api/v1/public-page"},
		{"list_mentions", map[string]any{"sort": "urgency", "limit": 3}, "/api/v1/mentions?sort=urgency&limit=3"},
		{"list_mentions", map[string]any{"public_visibility": "featured"}, "/api/v1/mentions?public_visibility=featured"},
		// explicit windows: a window ending now would differ by the milliseconds between the calls
		{"get_mention_stats", map[string]any{"since": week, "until": end}, "/api/v1/mention-stats?since=" + week + "&until=" + end},
		{"get_mention_stats", map[string]any{"since": day, "until": end, "group_by": "monitor", "sentiment": "negative"},
			"/api/v1/mention-stats?since=" + day + "&until=" + end + "&group_by=monitor&sentiment=negative"},
		{"count_mentions", map[string]any{"sentiment": "negative", "limit": 2}, "/api/v1/mention-count?sentiment=negative&limit=2"},
	} {
		got := callTool(t, cs, c.tool, c.args)
		_, want := e.rest("GET", c.path, e.key, nil)
		if got.isError || !reflect.DeepEqual(got.data(), want["data"]) {
			t.Errorf("%s %v: %v\nREST %v", c.tool, c.args, got.env, want["data"])
		}
	}
	wall := callTool(t, cs, "preview_public_page", map[string]any{}).data()["items"].([]any)
	if len(wall) != 4 || wall[0].(map[string]any)["id"] != ms[1].ID {
		t.Errorf("wall over MCP: %d items, first %v", len(wall), wall[0])
	}
	byUrgency := callTool(t, cs, "list_mentions", map[string]any{"sort": "urgency"}).data()["items"].([]any)
	if byUrgency[0].(map[string]any)["id"] != ms[5].ID {
		t.Errorf("sort=urgency over MCP starts with %v", byUrgency[0])
	}
	if c := callTool(t, cs, "count_mentions", map[string]any{"sentiment": "negative", "limit": 2}).data(); c["count"] != 2.0 || c["count_capped"] != true {
		t.Errorf("count_mentions: %v", c)
	}
}
