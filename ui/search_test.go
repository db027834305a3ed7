package ui_test

import (
	"context"
	"net/http"
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
