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

// TestSearchSnippetShowsTheMatch: a compact row whose match sits deep in a
// long post starts its one line shortly before the match (… marks the
// cut), so the marked word is on screen; a short post is shown whole.
func TestSearchSnippetShowsTheMatch(t *testing.T) {
	e, c := ownerClient(t, 0)
	long := strings.Repeat("filler words about nothing in particular ", 8) + "then the outages started at noon"
	if _, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, []store.NewMention{
		{Source: "x", ExternalID: "s1", URL: "https://x.example/1", AuthorHandle: "a", Text: long, PublishedAt: time.Now().Add(-time.Hour),
			IsRelevant: true, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "s2", URL: "https://x.example/2", AuthorHandle: "b", Text: "Outage today", PublishedAt: time.Now().Add(-2 * time.Hour),
			IsRelevant: true, Category: "other", Sentiment: "neutral", AISummary: "A report of downtime"},
	}); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/?search=outage")
	must(t, body, `class="m-open">…in particular then the <mark>outages</mark> started at noon</a>`,
		`<p class="m-text hit"><mark>Outage</mark> today</p>`)
	if strings.Contains(body, "<details class=\"filters\" open>") {
		t.Error("a search opened the filter panel")
	}
	// The search box is outside the panel and submits its form.
	must(t, body, `<input id="f-search" name="search" form="filter-form"`)
}

// TestInboxDropsEmptyParameters: the filter form's empty fields leave the
// URL by one redirect (when the page's script did not leave them out).
func TestInboxDropsEmptyParameters(t *testing.T) {
	_, c := ownerClient(t, 0)
	for q, want := range map[string]string{
		"/?search=outage&status=&source=&min_urgency=": "/?search=outage",
		"/?search=&status=":                            "/",
	} {
		st, _, h := c.get(q)
		if st != http.StatusSeeOther || h.Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want 303 to %q", q, st, h.Get("Location"), want)
		}
	}
	if st, _, _ := c.get("/?search=outage"); st != http.StatusOK {
		t.Errorf("a clean URL: %d", st)
	}
}

// TestFilteredView: the New view (and its count) leaves out mentions judged
// not relevant and own posts; the Filtered view lists them with a count,
// each with a button that pulls it back into New.
func TestFilteredView(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	at := time.Now().Add(-time.Hour)
	res, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{
		{Source: "x", ExternalID: "f1", URL: "https://x.example/f1", AuthorHandle: "a", Text: "Looney Tunes ACME anvils", PublishedAt: at, IsRelevant: false, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "f2", URL: "https://x.example/f2", AuthorHandle: "us", Text: "Our status: all systems go", PublishedAt: at, IsRelevant: false, Own: true, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "f3", URL: "https://x.example/f3", AuthorHandle: "b", Text: "Acme app is down", PublishedAt: at, IsRelevant: true, Category: "bug_report", Sentiment: "negative"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateView(ctx, e.proj.ID, "Fresh bugs", []byte(`{"status":"new","category":"other"}`)); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/?status=new")
	must(t, body, "Acme app is down", `href="/?is_relevant=false&amp;status=new">Filtered <span class="vcount" data-count="2"`,
		`Fresh bugs <span class="vcount" data-count="0"`) // a saved view of new mentions counts the queue, as it lists it
	if strings.Contains(body, "Looney Tunes") || strings.Contains(body, "all systems go") {
		t.Error("the New view lists filtered mentions")
	}
	_, body, _ = c.get("/?is_relevant=false&status=new")
	must(t, body, "Looney Tunes ACME anvils", "Our status: all systems go", `aria-current="page">Filtered`, `class="btn-small rel-btn" aria-keyshortcuts="p">Relevant: back to New`)
	if strings.Contains(body, "Acme app is down") {
		t.Error("the Filtered view lists a relevant mention")
	}
	var id string
	for _, m := range res.Created {
		if m.ExternalID == "f1" {
			id = m.ID
		}
	}
	c.get("/?is_relevant=false&status=new")
	if st, _, h := c.post("/a/update_mention_status", url.Values{"id": {id}, "is_relevant": {"true"}, "_back": {"/?is_relevant=false&status=new"}}, true); st != http.StatusSeeOther || h.Get("Location") != "/?is_relevant=false&status=new" {
		t.Fatalf("pull back: %d %q", st, h.Get("Location"))
	}
	_, body, _ = c.get("/?status=new")
	must(t, body, "Looney Tunes ACME anvils", `Filtered <span class="vcount" data-count="1"`)
	if m, _ := e.st.Mention(ctx, e.proj.ID, id); m == nil || !m.IsRelevant || m.Status != "new" {
		t.Errorf("pulled back: %+v", m)
	}
}
