package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/collect"
)

// TestMentionReasonsAndOwnOverHTTP is black-box from the monitor to the
// answer: a monitor created over REST, posts through the real pipeline and
// built-in classifier, then get_mention (REST and MCP) and list_mentions'
// own filter. The brand's own post is own, not relevant, with the reason;
// a mention carries its relevance reason.
func TestMentionReasonsAndOwnOverHTTP(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	d := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{
		"name": "Brand", "keywords": []string{"Acme"}, "watch_accounts": []string{"@acmehq"}, "sources": []string{"x"},
	}).ok().data()
	mon, err := e.st.Monitor(ctx, e.projA.ID, d["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	p := collect.NewPipeline(e.st, nil, collect.PipelineConfig{ProjectTTL: -1}, slog.New(slog.DiscardHandler), nil)
	now := time.Now().Add(-time.Minute)
	if _, err := p.Process(ctx, mon, "x", []collect.Post{
		{Source: "x", ExternalID: "1", AuthorHandle: "acmehq", URL: "https://x.com/acmehq/status/1", Text: "We shipped Acme 4.2 today", PublishedAt: now},
		{Source: "x", ExternalID: "2", AuthorHandle: "jo", URL: "https://x.com/jo/status/2", Text: "The Acme app login is broken again, support please help", PublishedAt: now.Add(-time.Second)},
	}); err != nil {
		t.Fatal(err)
	}
	list := e.do("GET", "/api/v1/mentions?own=true", e.keyA, nil).ok().data()["items"].([]any)
	if len(list) != 1 {
		t.Fatalf("own=true listed %d mentions, want 1", len(list))
	}
	ownID := list[0].(map[string]any)["id"].(string)
	own := e.do("GET", "/api/v1/mentions/"+ownID, e.keyA, nil).ok().data()
	if own["own"] != true || own["is_relevant"] != false || !strings.HasPrefix(own["relevance_reason"].(string), "own post: by @acmehq") {
		t.Errorf("own post: own %v, is_relevant %v, relevance_reason %q", own["own"], own["is_relevant"], own["relevance_reason"])
	}
	for _, k := range []string{"category_reason", "urgency_reason", "relevance_reason"} {
		if _, ok := own[k].(string); !ok {
			t.Errorf("get_mention has no string %s: %v", k, own[k])
		}
	}
	rest := e.do("GET", "/api/v1/mentions?own=false", e.keyA, nil).ok().data()["items"].([]any)
	if len(rest) != 1 {
		t.Fatalf("own=false listed %d mentions, want 1", len(rest))
	}
	m := rest[0].(map[string]any)
	if m["own"] != false || m["is_relevant"] != true || !strings.HasPrefix(m["relevance_reason"].(string), "relevant") {
		t.Errorf("customer post: own %v, is_relevant %v, relevance_reason %q", m["own"], m["is_relevant"], m["relevance_reason"])
	}
	e.do("GET", "/api/v1/mentions?own=maybe", e.keyA, nil).expect(400, "VALIDATION_ERROR")

	// The same record through MCP.
	tr := &mcp.StreamableClientTransport{Endpoint: e.http.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{e.keyA}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	a := callTool(t, cs, "get_mention", map[string]any{"id": ownID})
	if a.isError || a.data()["own"] != true || a.data()["relevance_reason"] != own["relevance_reason"] {
		t.Errorf("MCP get_mention: %v", a.env)
	}
}
