package ui_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// storyEnv seeds a story of six mentions sharing one link (3 on Reddit,
// 2 on X, 1 on Hacker News) beside the usual mentions.
func storyEnv(t *testing.T) (*env, *client, string) {
	t.Helper()
	e, c := ownerClient(t, 3)
	var batch []store.NewMention
	for i, src := range []string{"reddit", "x", "reddit", "hn", "x", "reddit"} {
		batch = append(batch, store.NewMention{Source: src, ExternalID: fmt.Sprintf("story-%d", i), URL: fmt.Sprintf("https://%s.example/p/%d", src, i),
			AuthorHandle: fmt.Sprintf("teller%d", i), Text: fmt.Sprintf("Acme outage, see https://status.example.com/incident/42 (%d)", i),
			PublishedAt: time.Now().Add(-time.Duration(i) * time.Second), IsRelevant: true, Category: "complaint", Sentiment: "negative", Urgency: 80, Classifier: "builtin"})
	}
	res, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, batch)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Created[0]
	got, err := e.st.Mention(context.Background(), e.proj.ID, m.ID)
	if err != nil || got.StoryID == nil || got.StoryCount != 6 {
		t.Fatalf("seeded story: %+v %v", got, err)
	}
	return e, c, *got.StoryID
}

func TestGroupStoriesToggle(t *testing.T) {
	_, c, sid := storyEnv(t)
	// Off by default: every mention is a row, the toggle offers grouping
	// and keeps the order.
	_, body, _ := c.get("/?sort=urgency")
	if n := strings.Count(body, `class="mention `); n != 9 {
		t.Fatalf("ungrouped rows = %d, want 9", n)
	}
	must(t, body, `href="/?collapse=story&amp;sort=urgency">Group stories</a>`)
	// On: the story is one row, whose line names the others per source
	// (the row's own source minus itself) and links to the story.
	_, body, _ = c.get("/?collapse=story")
	if n := strings.Count(body, `class="mention `); n != 4 {
		t.Fatalf("grouped rows = %d, want 4 (3 alone + 1 story)", n)
	}
	must(t, body, `aria-current="true">Group stories</a>`, `href="/?story_id=`+sid+`">and 5 more on `)
	more := html.UnescapeString(regexpFind(body, `(and 5 more on [^<]+)`))
	// The row shown is the newest: story-0 on Reddit, so Reddit 2, X 2, HN 1.
	if more != "and 5 more on Reddit (2), X (2), Hacker News (1)" {
		t.Errorf("more line = %q", more)
	}
	// Views, the order links, the filter form and "Load more" keep it.
	must(t, body, `href="/?status=new&amp;collapse=story"`, `href="/?collapse=story&amp;sort=urgency"`, `name="collapse" value="story"`)
	_, body, _ = c.get("/?collapse=story&limit=2")
	must(t, body, `collapse=story&amp;cursor=`)
	// The rows the JavaScript fetches (infinite scroll) are grouped too.
	_, js, _ := c.get("/ui/mentions?collapse=story&limit=100")
	if !strings.Contains(js, "and 5 more on") || strings.Count(js, `class=\"mention `) != 4 {
		t.Errorf("script rows not grouped: %.300s", js)
	}
}

func TestWholeStoryTriage(t *testing.T) {
	e, c, sid := storyEnv(t)
	// Filtered by the story: a header names it with its sources and the
	// whole-story control; no grouping toggle there.
	_, body, _ := c.get("/?story_id=" + sid)
	must(t, body, `id="story-h"`, "Acme outage", "6 mentions: Reddit 3 · X 2 · Hacker News 1", "6 new",
		`action="/a/update_story_status"`, `name="id" value="`+sid+`"`)
	if strings.Contains(body, `<details class="filters" open>`) {
		t.Error("the story's list opens the filter panel")
	}
	if strings.Contains(body, ">Group stories<") {
		t.Error("the story's own list offers grouping")
	}
	if n := strings.Count(body, `class="mention `); n != 6 {
		t.Fatalf("story rows = %d, want 6", n)
	}
	// Mark it done: Post/Redirect/Get back to the story, every mention done.
	back := "/?story_id=" + sid
	st, _, h := c.post("/a/update_story_status", url.Values{"id": {sid}, "status": {"done"}, "_back": {back}}, true)
	if st != 303 || h.Get("Location") != back {
		t.Fatalf("story triage: %d → %q", st, h.Get("Location"))
	}
	_, body, _ = c.get(back)
	must(t, body, "Every mention of the story marked done.", "6 done")
	ms, err := e.st.ListMentions(context.Background(), store.MentionFilter{ProjectID: e.proj.ID, StoryID: sid}, nil, 50)
	if err != nil || len(ms) != 6 {
		t.Fatal(len(ms), err)
	}
	for _, m := range ms {
		if m.Status != "done" {
			t.Errorf("mention %s status %s after the story was marked done", m.ID, m.Status)
		}
	}
	// A bad status is refused with the form's error, nothing changed.
	c.post("/a/update_story_status", url.Values{"id": {sid}, "status": {"gone"}, "_back": {back}}, true)
	if c.lastRedirect != back {
		t.Errorf("failed story triage redirected to %q", c.lastRedirect)
	}

	// The one-mention page links to the story and has the same control.
	mid := regexpFind(body, `id="m-([0-9a-f-]{36})"`)
	_, body, _ = c.get("/mentions/" + mid)
	must(t, body, `href="/?story_id=`+sid+`">This post is one of 6 mentions of the same story</a>`, `action="/a/update_story_status"`)
	st, _, h = c.post("/a/update_story_status", url.Values{"id": {sid}, "status": {"reviewed"}, "_back": {"/mentions/" + mid}}, true)
	if st != 303 || h.Get("Location") != "/mentions/"+mid {
		t.Fatalf("story triage from the mention: %d → %q", st, h.Get("Location"))
	}
	_, body, _ = c.get("/mentions/" + mid)
	must(t, body, "Every mention of the story marked reviewed.")
	// A mention alone has neither.
	_, body, _ = c.get("/?search=seed")
	alone := regexpFind(body, `id="m-([0-9a-f-]{36})"`)
	_, body, _ = c.get("/mentions/" + alone)
	if strings.Contains(body, "update_story_status") {
		t.Error("a mention alone offers story triage")
	}
}

func TestAlertTriggerForm(t *testing.T) {
	e, c := ownerClient(t, 1)
	ctx := context.Background()
	c.post("/a/create_monitor", url.Values{"name": {"Acme watch"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true)
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	mon := ms[0].ID
	_, body, _ := c.get("/alerts")
	must(t, body, `name="trigger" data-trigger`, `<option value="spike">Spikes</option>`,
		"a spike alert can be limited only to one monitor and to negative spikes", `<option value="`+mon+`">Acme watch</option>`)

	// A spike alert with a monitor and negative-only: created, listed as such.
	st, body, _ := c.post("/a/create_alert", url.Values{"name": {"Bursts"}, "channel": {"email"}, "target": {"ops@example.com"}, "trigger": {"spike"},
		"min_urgency": {"70"}, "digest": {"instant"}, "filters.monitor_id": {mon}, "filters.sentiment": {"negative"}, "filters.category": {""},
		"filters.source": {""}, "filters.search": {""}, "_back": {"/alerts"}}, true)
	if st != http.StatusSeeOther && st != 200 {
		t.Fatalf("create spike alert: %d", st)
	}
	as, _ := e.st.ListAlerts(ctx, e.proj.ID, false)
	if len(as) != 1 || as[0].Trigger != "spike" || !strings.Contains(string(as[0].Filters), mon) {
		t.Fatalf("spike alert stored: %+v", as)
	}
	_, body, _ = c.get("/alerts")
	must(t, body, "Spikes · Instant", "Monitor: Acme watch", "Sentiment: Negative", `<option value="spike" selected>`)

	// Filters a spike alert does not take: the error in words at its
	// control, the typed values kept (Post/Redirect/Get).
	_, body, _ = c.post("/a/create_alert", url.Values{"name": {"Wrong"}, "channel": {"email"}, "target": {"ops@example.com"}, "trigger": {"spike"},
		"filters.sentiment": {"positive"}, "_back": {"/alerts"}}, true)
	if c.lastRedirect != "/alerts" {
		t.Fatalf("failed spike alert redirected to %q", c.lastRedirect)
	}
	must(t, body, `id="al-f-sentiment-err"`, "A spike alert can watch all spikes or negative spikes only: choose Negative or Any.",
		`<option value="spike" selected>`, `value="Wrong"`)
	_, body, _ = c.post("/a/create_alert", url.Values{"name": {"Wrong"}, "channel": {"email"}, "target": {"ops@example.com"}, "trigger": {"spike"},
		"filters.category": {"complaint"}, "_back": {"/alerts"}}, true)
	must(t, body, `id="al-f-category-err"`, "A spike alert can be limited only to a monitor and to negative spikes: set Category to Any.")
	if as, _ := e.st.ListAlerts(ctx, e.proj.ID, false); len(as) != 1 {
		t.Errorf("refused alerts stored: %d", len(as))
	}

	// Edit: a mention alert with a category turned into a spike alert with
	// every other filter at Any — the filters are replaced, not kept.
	c.post("/a/create_alert", url.Values{"name": {"Bugs"}, "channel": {"email"}, "target": {"ops@example.com"}, "filters.category": {"bug_report"}, "_back": {"/alerts"}}, true)
	as, _ = e.st.ListAlerts(ctx, e.proj.ID, false)
	var bugs *store.Alert
	for _, a := range as {
		if a.Name == "Bugs" {
			bugs = a
		}
	}
	if bugs == nil || bugs.Trigger != "mention" {
		t.Fatalf("mention alert: %+v", bugs)
	}
	st, _, _ = c.post("/a/update_alert", url.Values{"_form": {"update_alert:" + bugs.ID}, "id": {bugs.ID}, "name": {"Bugs"}, "trigger": {"spike"},
		"channel": {"email"}, "target": {"ops@example.com"}, "digest": {"instant"}, "filters.monitor_id": {""}, "filters.sentiment": {""}, "_back": {"/alerts"}}, true)
	if st != http.StatusSeeOther {
		t.Fatalf("edit to spike: %d (%s)", st, c.lastRedirect)
	}
	a, _ := e.st.Alert(ctx, e.proj.ID, bugs.ID)
	if a.Trigger != "spike" || strings.Contains(string(a.Filters), "bug_report") {
		t.Errorf("after edit: trigger %s filters %s", a.Trigger, a.Filters)
	}
}
