package server_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// correct_mention over REST and MCP: the corrected category and sentiment
// are answered and kept, a correction needs at least one of them and a
// known value, and another project's mention is not found.
func TestCorrectMentionRESTAndMCP(t *testing.T) {
	e := newAgentsEnv(t)
	ctx := context.Background()
	seed := func(p *store.Project, ext string) string {
		res, err := e.st.IngestMentions(ctx, p.ID, 0, []store.NewMention{{Source: "hn", ExternalID: ext, URL: "https://news.ycombinator.com/item?id=1",
			AuthorHandle: "dev", Text: "Acme you need to provide a phone number", PublishedAt: time.Now().Add(-time.Hour),
			IsRelevant: true, Category: "product_idea", Sentiment: "neutral", Urgency: 5, Classifier: "builtin"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Created[0].ID
	}
	mine, theirs := seed(e.proj, "m1"), seed(e.other, "t1")

	st, body := e.rest("POST", "/api/v1/mentions/"+mine+"/correction", e.key, map[string]any{"category": "complaint", "sentiment": "negative"})
	d, _ := body["data"].(map[string]any)
	if st != 200 || d["category"] != "complaint" || d["sentiment"] != "negative" || !strings.HasPrefix(d["category_reason"].(string), store.CorrectedReason) {
		t.Fatalf("REST correction: %d %v", st, body)
	}
	for _, bad := range []map[string]any{{}, {"category": "praise"}, {"sentiment": "angry"}} {
		if st, body := e.rest("POST", "/api/v1/mentions/"+mine+"/correction", e.key, bad); st != 400 {
			t.Errorf("%v: %d %v", bad, st, body)
		}
	}
	if st, _ := e.rest("POST", "/api/v1/mentions/"+theirs+"/correction", e.key, map[string]any{"category": "other"}); st != 404 {
		t.Errorf("another project's mention: %d", st)
	}

	cs := e.overHTTP(e.key)
	got := callTool(t, cs, "correct_mention", map[string]any{"id": mine, "sentiment": "neutral"})
	_, back := e.rest("GET", "/api/v1/mentions/"+mine, e.key, nil)
	if got.isError || got.data()["sentiment"] != "neutral" || got.data()["category"] != "complaint" || !reflect.DeepEqual(got.data(), back["data"]) {
		t.Errorf("MCP correct_mention: %v\nREST %v", got.env, back["data"])
	}
	if _, cats, sents, _, err := e.st.CorrectionExamples(ctx, e.proj.ID, 10); err != nil || len(cats) != 1 || cats[0] != "complaint" || sents[0] != "neutral" {
		t.Errorf("human labels %v %v %v", cats, sents, err)
	}
}
