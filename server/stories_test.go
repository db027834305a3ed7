package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/store"
)

const storyOutage = "Acme is down for the third hour in a row, every board fails to load and support is not answering anyone today."

// TestStoriesAPI: mentions sharing a link or near-duplicate text, across
// sources, form a story that list_stories/get_story show with its counts;
// list_mentions filters by story_id and collapses stories to one row;
// update_story_status triages every mention of it at once; another
// project's story is a 404 everywhere.
func TestStoriesAPI(t *testing.T) {
	e := newEnv(t)
	now := time.Now().UTC().Truncate(time.Second)
	seed := func(source, ext, link, text string, age time.Duration) *store.Mention {
		return e.seedMentions(e.projA, nil, 1, now.Add(-age), func(_ int, m *store.NewMention) {
			m.Source, m.ExternalID, m.URL, m.Text, m.AISummary = source, ext, link, text, "summary of "+ext
		})[0]
	}
	art := seed("news", "n1", "https://www.example.com/acme-outage?utm_source=rss", "Acme outage: boards fail to load for hours", 50*time.Minute)
	rd := seed("reddit", "r1", "https://reddit.com/r/saas/comments/abc/down", storyOutage+" https://example.com/acme-outage/", 40*time.Minute)
	hn := seed("hn", "h1", "https://news.ycombinator.com/item?id=9", "Acme outage (example.com) http://EXAMPLE.com/acme-outage#c", 30*time.Minute)
	x := seed("x", "x1", "https://x.com/bob/status/5", "RT @carol: "+storyOutage, 20*time.Minute)
	alone := seed("x", "x2", "https://x.com/dan/status/6", "Acme's new calendar view is lovely, finally I can see the whole sprint at once.", 10*time.Minute)
	if x.StoryID == nil || alone.StoryID != nil {
		t.Fatalf("grouping at ingest: x %v, alone %v", x.StoryID, alone.StoryID)
	}
	sid := *x.StoryID

	// get_mention carries the story and its size.
	m := e.do("GET", "/api/v1/mentions/"+art.ID, e.keyA, nil).ok().data()
	if m["story_id"] != sid || m["story_count"] != 4.0 {
		t.Errorf("get_mention story_id %v story_count %v", m["story_id"], m["story_count"])
	}
	if m := e.do("GET", "/api/v1/mentions/"+alone.ID, e.keyA, nil).ok().data(); m["story_id"] != nil || m["story_count"] != 1.0 {
		t.Errorf("a mention alone: story_id %v story_count %v", m["story_id"], m["story_count"])
	}

	// list_stories and get_story.
	d := e.do("GET", "/api/v1/stories", e.keyA, nil).ok().data()
	stories := d["stories"].([]any)
	if len(stories) != 1 || d["hasMore"] != false || d["nextCursor"] != nil {
		t.Fatalf("list_stories = %v", d)
	}
	s := stories[0].(map[string]any)
	if s["id"] != sid || s["mention_count"] != 4.0 || s["title"] != "summary of n1" || s["link"] != "example.com/acme-outage" ||
		s["first_mention_id"] != art.ID || s["latest_mention_id"] != x.ID || s["first_seen"] != art.PublishedAt || s["last_seen"] != x.PublishedAt {
		t.Errorf("story = %v", s)
	}
	if src := s["sources"].(map[string]any); src["news"] != 1.0 || src["reddit"] != 1.0 || src["hn"] != 1.0 || src["x"] != 1.0 {
		t.Errorf("sources = %v", src)
	}
	if g := e.do("GET", "/api/v1/stories/"+sid, e.keyA, nil).ok().data(); g["mention_count"] != 4.0 || g["statuses"].(map[string]any)["new"] != 4.0 {
		t.Errorf("get_story = %v", g)
	}
	for _, q := range []string{"source=youtube", "status=done", "min_mentions=5", "since=" + url.QueryEscape(now.Format(time.RFC3339))} {
		if n := len(e.do("GET", "/api/v1/stories?"+q, e.keyA, nil).ok().data()["stories"].([]any)); n != 0 {
			t.Errorf("list_stories?%s: %d stories, want 0", q, n)
		}
	}
	e.do("GET", "/api/v1/stories?min_mentions=1", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/stories?cursor=bogus", e.keyA, nil).expect(400, "VALIDATION_ERROR")

	// list_mentions: story_id filter, collapse.
	items := func(q string) []string {
		t.Helper()
		var out []string
		for _, it := range e.do("GET", "/api/v1/mentions?"+q, e.keyA, nil).ok().data()["items"].([]any) {
			out = append(out, it.(map[string]any)["external_id"].(string))
		}
		return out
	}
	if got := strings.Join(items("story_id="+sid), ","); got != "x1,h1,r1,n1" {
		t.Errorf("story_id filter = %s", got)
	}
	if got := strings.Join(items("collapse=story"), ","); got != "x2,x1" {
		t.Errorf("collapse=story = %s, want x2,x1", got)
	}
	if got := strings.Join(items("collapse=story&source=reddit"), ","); got != "r1" {
		t.Errorf("collapse=story&source=reddit = %s", got)
	}
	// Paging a collapsed list: one row per page, cursor bound to collapse.
	p1 := e.do("GET", "/api/v1/mentions?collapse=story&limit=1", e.keyA, nil).ok().data()
	if p1["hasMore"] != true {
		t.Fatalf("page 1: %v", p1)
	}
	c := url.QueryEscape(p1["nextCursor"].(string))
	p2 := e.do("GET", "/api/v1/mentions?collapse=story&limit=1&cursor="+c, e.keyA, nil).ok().data()
	row := p2["items"].([]any)[0].(map[string]any)
	if row["external_id"] != "x1" || row["story_count"] != 4.0 || row["story_sources"].(map[string]any)["hn"] != 1.0 || p2["hasMore"] != false {
		t.Errorf("page 2: %v", p2)
	}
	e.do("GET", "/api/v1/mentions?limit=1&cursor="+c, e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mentions?collapse=all", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	if r := e.do("GET", "/api/v1/mentions?collapse=story&collected_since=2020-01-01T00:00:00Z", e.keyA, nil).expect(400, "VALIDATION_ERROR"); r.errParam() != "collapse" {
		t.Errorf("collapse with collected_since: param %q", r.errParam())
	}

	// export_mentions takes the same options and names the story per row.
	csv := string(e.do("GET", "/api/v1/exports/mentions?collapse=story", e.keyA, nil).raw)
	lines := strings.Split(strings.TrimSpace(csv), "\r\n")
	// (assignee_id and tags, empty here, follow the story columns.)
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ",story_id,story_count,assignee_id,tags") || !strings.HasSuffix(lines[2], ","+sid+",4,,") || !strings.HasSuffix(lines[1], ",,1,,") {
		t.Errorf("collapsed export:\n%s", csv)
	}

	// Triage the whole story.
	drainEvents(t, e)
	e.do("PATCH", "/api/v1/mentions/"+hn.ID, e.keyA, map[string]any{"status": "done"}).ok()
	drainEvents(t, e)
	u := e.do("PATCH", "/api/v1/stories/"+sid, e.keyA, map[string]any{"status": "done"}, "Idempotency-Key", "story-done-0001").ok().data()
	if u["mentions_updated"] != 3.0 || u["statuses"].(map[string]any)["done"] != 4.0 || u["id"] != sid {
		t.Errorf("update_story_status = %v", u)
	}
	evs := drainEvents(t, e)
	if len(evs) != 3 {
		t.Errorf("%d events, want 3 mention.updated", len(evs))
	}
	for _, ev := range evs {
		if ev.Type != "mention.updated" {
			t.Errorf("event %s", ev.Type)
		}
	}
	replay := e.do("PATCH", "/api/v1/stories/"+sid, e.keyA, map[string]any{"status": "done"}, "Idempotency-Key", "story-done-0001").ok()
	if replay.header.Get("Idempotent-Replayed") != "true" || replay.data()["mentions_updated"] != 3.0 {
		t.Errorf("replay: %v %v", replay.header, replay.data())
	}
	if g := e.do("GET", "/api/v1/mentions/"+rd.ID, e.keyA, nil).ok().data(); g["status"] != "done" {
		t.Errorf("member status %v", g["status"])
	}
	if n := len(e.do("GET", "/api/v1/stories?status=new", e.keyA, nil).ok().data()["stories"].([]any)); n != 0 {
		t.Errorf("status=new after triage: %d stories", n)
	}
	e.do("PATCH", "/api/v1/stories/"+sid, e.keyA, map[string]any{}).expect(400, "VALIDATION_ERROR")
	e.do("PATCH", "/api/v1/stories/"+sid, e.keyA, map[string]any{"status": "closed"}).expect(400, "VALIDATION_ERROR")
	e.do("PATCH", "/api/v1/stories/"+sid, e.keyA, map[string]any{"status": "done", "apply": true}).expect(400, "VALIDATION_ERROR")

	// Tenancy and scopes.
	e.do("GET", "/api/v1/stories/"+sid, e.keyB, nil).expect(404, "NOT_FOUND")
	e.do("PATCH", "/api/v1/stories/"+sid, e.keyB, map[string]any{"status": "new"}).expect(404, "NOT_FOUND")
	if r := e.do("GET", "/api/v1/mentions?story_id="+sid, e.keyB, nil).expect(404, "NOT_FOUND"); r.errParam() != "story_id" {
		t.Errorf("story_id of another project: param %q", r.errParam())
	}
	if n := len(e.do("GET", "/api/v1/stories", e.keyB, nil).ok().data()["stories"].([]any)); n != 0 {
		t.Errorf("project B sees %d stories", n)
	}
	reader := e.mustKey(e.projA, []string{"mentions:read"})
	e.do("PATCH", "/api/v1/stories/"+sid, reader, map[string]any{"status": "new"}).expect(403, "FORBIDDEN")
	e.do("GET", "/api/v1/stories/"+sid, reader, nil).ok()
	e.do("GET", "/api/v1/stories/not-a-uuid", e.keyA, nil).expect(400, "VALIDATION_ERROR")

	// MCP: the same operations as tools, with schema-valid answers.
	tr := &mcp.StreamableClientTransport{Endpoint: e.http.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{e.keyA}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if a := callTool(t, cs, "list_stories", nil); a.isError || len(a.data()["stories"].([]any)) != 1 {
		t.Errorf("list_stories tool: %v", a.env)
	}
	if a := callTool(t, cs, "get_story", map[string]any{"id": sid}); a.isError || a.data()["mention_count"] != 4.0 {
		t.Errorf("get_story tool: %v", a.env)
	}
	if a := callTool(t, cs, "list_mentions", map[string]any{"collapse": "story"}); a.isError || len(a.data()["items"].([]any)) != 2 {
		t.Errorf("list_mentions collapse tool: %v", a.env)
	}
	if a := callTool(t, cs, "update_story_status", map[string]any{"id": sid, "status": "reviewed"}); a.isError || a.data()["mentions_updated"] != 4.0 {
		t.Errorf("update_story_status tool: %v", a.env)
	}
}
