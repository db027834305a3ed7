package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestMCPSearchGrammarAndFilteredQueue: over MCP, list_mentions' search is
// the grammar (word prefix with endings dropped, phrase, -term, OR,
// author:), a malformed search is an error naming search with a hint, the
// triage queue is status=new&is_relevant=true, and update_mention_status
// is_relevant=true pulls a Filtered mention back into it.
func TestMCPSearchGrammarAndFilteredQueue(t *testing.T) {
	e := newAgentsEnv(t)
	ctx := context.Background()
	at := time.Now().Add(-time.Hour).UTC()
	res, err := e.st.IngestMentions(ctx, e.proj.ID, 0, []store.NewMention{
		{Source: "x", ExternalID: "1", Text: "Acme outage this morning", AuthorHandle: "ops", PublishedAt: at, IsRelevant: true, Category: "bug_report", Sentiment: "negative"},
		{Source: "x", ExternalID: "2", Text: "Two outages in a week", AuthorHandle: "carol", PublishedAt: at.Add(-time.Minute), IsRelevant: true, Category: "complaint", Sentiment: "negative"},
		{Source: "x", ExternalID: "3", Text: "the service outage postmortem", AuthorHandle: "acme", PublishedAt: at.Add(-2 * time.Minute), IsRelevant: true, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "4", Text: "asked for a refund", AuthorHandle: "dave", PublishedAt: at.Add(-3 * time.Minute), IsRelevant: true, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "5", Text: "Looney Tunes ACME anvils", AuthorHandle: "eve", PublishedAt: at.Add(-4 * time.Minute), IsRelevant: false, Category: "other", Sentiment: "neutral"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]string{}
	for _, m := range res.Created {
		id[m.ExternalID] = m.ID
	}
	cs := e.overHTTP(e.key)
	list := func(args map[string]any) []string {
		t.Helper()
		a := callTool(t, cs, "list_mentions", args)
		if a.isError {
			t.Fatalf("list_mentions %v: %v", args, a.env)
		}
		var got []string
		for _, it := range a.data()["items"].([]any) {
			for ext, mid := range id {
				if it.(map[string]any)["id"] == mid {
					got = append(got, ext)
				}
			}
		}
		slices.Sort(got)
		return got
	}
	for q, want := range map[string][]string{
		"outages": {"1", "2", "3"}, "outage": {"1", "2", "3"}, `"service outage"`: {"3"}, "outage -acme": {"2", "3"},
		"postmortem OR refund": {"3", "4"}, "author:@ACME": {"3"},
	} {
		if got := list(map[string]any{"search": q}); !slices.Equal(got, want) {
			t.Errorf("search %q: %v, want %v", q, got, want)
		}
	}
	bad := callTool(t, cs, "list_mentions", map[string]any{"search": "outage OR"})
	if !bad.isError || !strings.Contains(bad.env["error"].(map[string]any)["message"].(string), "both sides of OR") ||
		bad.env["error"].(map[string]any)["param"] != "search" {
		t.Errorf("malformed search over MCP: %v", bad.env)
	}
	if got := list(map[string]any{"status": "new", "is_relevant": true}); slices.Contains(got, "5") {
		t.Errorf("the queue holds the filtered mention: %v", got)
	}
	if got := list(map[string]any{"status": "new", "is_relevant": false}); !slices.Equal(got, []string{"5"}) {
		t.Errorf("filtered: %v", got)
	}
	up := callTool(t, cs, "update_mention_status", map[string]any{"id": id["5"], "is_relevant": true})
	if up.isError || up.data()["is_relevant"] != true || up.data()["status"] != "new" {
		t.Fatalf("pull back: %v", up.env)
	}
	if got := list(map[string]any{"status": "new", "is_relevant": true}); !slices.Contains(got, "5") {
		t.Errorf("pulled back, not in the queue: %v", got)
	}
}
