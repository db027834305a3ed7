package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestKeywordsAndSearchMarked: a monitor's keywords are marked where they
// occur as keywords (not inside another word), the search term as a
// word (package search); the text stays escaped.
func TestKeywordsAndSearchMarked(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	c.get("/monitors/new")
	if st, _, _ := c.post("/a/create_monitor", url.Values{"name": {"Brand"}, "keywords": {"acme"}, "_back": {"/monitors/new"}}, true); st != http.StatusSeeOther {
		t.Fatalf("create monitor: %d", st)
	}
	ms, _ := e.st.ListMonitors(ctx, e.proj.ID)
	if _, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{{Source: "x", ExternalID: "k1", URL: "https://x.example/1", AuthorHandle: "a",
		Text: "Acme <b>rocks</b>, acmecorp does not; loving ACME", PublishedAt: time.Now().Add(-time.Hour), MonitorIDs: []string{ms[0].ID},
		IsRelevant: true, Category: "testimonial", Sentiment: "positive", AISummary: "Fan of the product"}}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/")
	must(t, body, "<mark>Acme</mark> &lt;b&gt;rocks&lt;/b&gt;, acmecorp does not; loving <mark>ACME</mark>")
	_, body, _ = c.get("/?search=rock")
	must(t, body, "<mark>Acme</mark> &lt;b&gt;<mark>rocks</mark>&lt;/b&gt;")
}

// TestViewsAndPanel: a built-in or saved view is marked current and keeps
// the filter panel closed; so do filters no view names and a search (the
// panel opens only when asked, or for an error in its fields).
func TestViewsAndPanel(t *testing.T) {
	_, c := ownerClient(t, 3)
	for _, tc := range []struct {
		q, current string
		open       bool
	}{
		{"/", "All mentions", false},
		{"/?status=new", "New", false},
		{"/?min_urgency=70&status=new", "Urgent", false},
		{"/?status=done", "", false},
		{"/?search=acme", "", false},
		{"/?search=%22acme", "", false}, // the search's error shows by the search field, outside the panel
		{"/?min_urgency=500", "", true},
	} {
		_, body, _ := c.get(tc.q)
		open := strings.Contains(body, `<details class="filters" open>`)
		if open != tc.open {
			t.Errorf("%s: filter panel open %v, want %v", tc.q, open, tc.open)
		}
		cur := regexpMust(`aria-current="page">([^<]+?) ?(?:<span class="vcount"[^<]*</span><span[^<]*</span>)?</a></li>`).FindAllStringSubmatch(body, -1)
		got := ""
		for _, m := range cur {
			if m[1] != "Inbox" {
				got = m[1]
			}
		}
		if got != tc.current {
			t.Errorf("%s: current view %q, want %q", tc.q, got, tc.current)
		}
	}
}

// TestExportAndDensity: Export CSV streams the current filter's mentions;
// the density form keeps the choice in a cookie.
func TestExportAndDensity(t *testing.T) {
	_, c := ownerClient(t, 6)
	_, body, _ := c.get("/?category=testimonial")
	must(t, body, `href="/export.csv?category=testimonial"`)
	st, csv, h := c.get("/export.csv?category=testimonial")
	if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(h.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %q %q", st, h.Get("Content-Type"), h.Get("Content-Disposition"))
	}
	if n := strings.Count(csv, "\n"); n != 3 { // header + 2 testimonials of 6
		t.Errorf("export has %d lines, want 3:\n%s", n, csv)
	}
	if st, _, _ := c.get("/export.csv?min_urgency=500"); st != 400 {
		t.Errorf("bad export filter: %d", st)
	}
	must(t, body, `class="mention st-new compact"`)
	if st, _, h := c.post("/ui/density", url.Values{"density": {"comfortable"}, "_back": {"/?status=new"}}, true); st != http.StatusSeeOther || h.Get("Location") != "/?status=new" {
		t.Fatalf("density: %d %q", st, h.Get("Location"))
	}
	_, body, _ = c.get("/")
	if strings.Contains(body, `class="mention st-new compact"`) {
		t.Error("comfortable rows still compact")
	}
	if st, _, _ := c.post("/ui/density", url.Values{"density": {"compact"}}, false); st != http.StatusForbidden {
		t.Errorf("density without CSRF: %d", st)
	}
}

// TestMentionPageShowsReasons: /mentions/{id} shows the whole post, the
// classifier's reasons, engagement and the author's other mentions.
func TestMentionPageShowsReasons(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	res, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{
		{Source: "x", ExternalID: "r1", URL: "https://x.example/1", AuthorHandle: "sam", Text: "The app is down again for the third time today",
			PublishedAt: time.Now().Add(-time.Hour), IsRelevant: true, Category: "bug_report", Sentiment: "negative", Urgency: 88,
			Engagement: map[string]int64{"likes": 40, "reposts": 1}, CategoryReason: "Reports an outage.", UrgencyReason: "Many users affected.", RelevanceReason: "Names the product."},
		{Source: "x", ExternalID: "r2", URL: "https://x.example/2", AuthorHandle: "sam", Text: "Back up, thanks", PublishedAt: time.Now().Add(-30 * time.Minute),
			IsRelevant: true, Category: "other", Sentiment: "positive", AISummary: "Service restored"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Created[0].ID
	if res.Created[0].Text != "The app is down again for the third time today" {
		id = res.Created[1].ID
	}
	st, body, _ := c.get("/mentions/" + id)
	if st != 200 {
		t.Fatalf("mention page %d", st)
	}
	must(t, body, "The app is down again for the third time today", "Reports an outage.", "Many users affected.", "Names the product.",
		"40 likes · 1 repost", "More from @sam", "Service restored", "88 of 100")
}

// TestSortByUrgency: the order toggle keeps the filters, views keep the
// order, and the rows come most urgent first.
func TestSortByUrgency(t *testing.T) {
	_, c := ownerClient(t, 30)
	_, body, _ := c.get("/?status=new&sort=urgency")
	must(t, body, `class="btn-small" href="/?status=new">Newest`, `href="/?status=new&amp;sort=urgency" aria-current="true">Most urgent`)
	urg := regexpMust(`data-urgency="(\d+)"`).FindAllStringSubmatch(body, -1)
	if len(urg) < 2 || urg[0][1] != "29" {
		t.Errorf("first row's urgency %v, want 29", urg[:min(3, len(urg))])
	}
	// The New view is still current, its link keeps the order, the panel stays closed.
	must(t, body, `<a href="/?status=new&amp;sort=urgency" aria-current="page">New <span class="vcount" data-count="`)
	if strings.Contains(body, `<details class="filters" open>`) {
		t.Error("the order opened the filter panel")
	}
}

// TestViewCounts: the built-in New and Urgent views and saved views show
// how many mentions they hold.
func TestViewCounts(t *testing.T) {
	_, c := ownerClient(t, 80) // urgency i%100: 10 of 80 reach 70
	c.get("/")
	if st, _, _ := c.post("/a/create_mention_view", url.Values{"name": {"Testimonials"}, "filters.category": {"testimonial"}, "_back": {"/"}}, true); st != http.StatusSeeOther {
		t.Fatalf("save view: %d", st)
	}
	_, body, _ := c.get("/")
	must(t, body, `New <span class="vcount" data-count="80">80</span>`, `Urgent <span class="vcount" data-count="10">10</span>`,
		`Testimonials <span class="vcount" data-count="16">16</span>`)
}
