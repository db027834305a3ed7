package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/store"
)

// Behaviours found by an outside audit of the HTTP surface.

func TestSessionReachesOnlyItsProjects(t *testing.T) {
	e := newEnv(t)
	second := e.mustProject(e.userA, "Acme Two") // A now has two projects
	e.do("GET", "/api/v1/projects/"+second.ID, e.sessionA, nil).ok()
	for _, id := range []string{e.projB.ID, "00000000-0000-4000-8000-000000000000", "not-a-uuid"} {
		e.do("GET", "/api/v1/projects/"+id, e.sessionA, nil).expect(404, "NOT_FOUND")
		e.do("PATCH", "/api/v1/projects/"+id, e.sessionA, map[string]any{"name": "x"}).expect(404, "NOT_FOUND")
	}
}

func TestKeywordWithSlash(t *testing.T) {
	e := newEnv(t)
	e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "Bands", "keywords": []string{"AC/DC", "acme"}}).ok()
	d := e.do("DELETE", "/api/v1/keywords/AC%2FDC", e.keyA, nil).ok().data()
	if d["keyword"] != "AC/DC" && !strings.Contains(mustJSON(d), "AC/DC") {
		t.Errorf("delete answered %v", d)
	}
	mons := e.do("GET", "/api/v1/monitors", e.keyA, nil).ok().data()["monitors"].([]any)
	if kw := mustJSON(mons[0].(map[string]any)["keywords"]); strings.Contains(kw, "AC/DC") || !strings.Contains(kw, "acme") {
		t.Errorf("keywords after delete: %s", kw)
	}
	e.do("DELETE", "/api/v1/keywords/a%00b", e.keyA, nil).expect(400, "VALIDATION_ERROR")
}

func TestRequestHygiene(t *testing.T) {
	e := newEnv(t)
	mon := map[string]any{"name": "M", "keywords": []string{"acme"}}
	// An empty or repeated Idempotency-Key is a bad key, not no key.
	r := e.do("POST", "/api/v1/monitors", e.keyA, mon, "Idempotency-Key", "")
	if r.status != 400 || r.errParam() != "Idempotency-Key" {
		t.Errorf("empty Idempotency-Key: %d %s", r.status, r.raw)
	}
	e.do("GET", "/api/v1/mentions?%zz=1", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mentions?search=%ff", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("POST", "/api/v1/monitors", e.keyA, []byte("{\"name\":\"\xff\xfe\",\"keywords\":[\"a\"]}")).expect(400, "VALIDATION_ERROR")

	// OPTIONS carries the documented headers (docs/decisions.md#errors); HEAD answers like GET, no body.
	req, _ := http.NewRequest("OPTIONS", e.http.URL+"/api/v1/monitors", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("X-Request-Id"), "req_") || resp.Header.Get("Api-Version") != capability.APIVersion || !strings.Contains(resp.Header.Get("Allow"), "POST") {
		t.Errorf("OPTIONS headers: %v", resp.Header)
	}
	req, _ = http.NewRequest("HEAD", e.http.URL+"/api/v1/monitors", nil)
	req.Header.Set("Authorization", "Bearer "+e.keyA)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) != 0 || !strings.HasPrefix(resp.Header.Get("X-Request-Id"), "req_") {
		t.Errorf("HEAD: %d %q %v", resp.StatusCode, body, resp.Header)
	}
}

func TestReplayedErrorSaysReplayed(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/views/00000000-0000-4000-8000-000000000000"
	first := e.do("DELETE", path, e.keyA, nil, "Idempotency-Key", "idem-404-check").expect(404, "NOT_FOUND")
	if m := first.body["meta"].(map[string]any); m["idempotencyReplayed"] == true {
		t.Errorf("first answer claims a replay: %s", first.raw)
	}
	again := e.do("DELETE", path, e.keyA, nil, "Idempotency-Key", "idem-404-check").expect(404, "NOT_FOUND")
	if m := again.body["meta"].(map[string]any); m["idempotencyReplayed"] != true || again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %v %s", again.header, again.raw)
	}
}

func TestSessionEndpointsNameTheirOperation(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com", "password": "correct-horse-42"}).ok()
	if r.body["meta"].(map[string]any)["capability"] != "create_session" {
		t.Errorf("login meta: %s", r.raw)
	}
	r = e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com", "password": "wrong-password"}).expect(401, "UNAUTHORIZED")
	if r.body["meta"].(map[string]any)["capability"] != "create_session" {
		t.Errorf("failed login meta: %s", r.raw)
	}
	r = e.do("DELETE", "/api/v1/auth/sessions/current", e.sessionA, nil).ok()
	if r.body["meta"].(map[string]any)["capability"] != "delete_session" {
		t.Errorf("logout meta: %s", r.raw)
	}
}

// mcpPost sends one raw JSON-RPC request to /mcp.
func mcpPost(t *testing.T, base, key string, body []byte, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestMCPHTTPTransportRules(t *testing.T) {
	e := newAgentsEnv(t)
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_monitors","arguments":{}}}`)

	// X-Request-Id is the tool answer's meta.requestId.
	resp, body := mcpPost(t, e.http.URL, e.key, call)
	if resp.StatusCode != 200 {
		t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
	}
	id := resp.Header.Get("X-Request-Id")
	if !strings.HasPrefix(id, "req_") || !strings.Contains(string(body), id) {
		t.Errorf("X-Request-Id %q not in the answer %s", id, body)
	}

	// Over the size limit: the documented 400 VALIDATION_ERROR JSON.
	big := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_monitors","arguments":{"x":"` + strings.Repeat("a", 2<<20) + `"}}}`)
	resp, body = mcpPost(t, e.http.URL, e.key, big)
	var env struct{ Error struct{ Code string } }
	json.Unmarshal(body, &env)
	if resp.StatusCode != 400 || env.Error.Code != "VALIDATION_ERROR" {
		t.Errorf("big body: %d %s", resp.StatusCode, body)
	}

	// Origin: a page of another site is refused, this server's own is not.
	resp, body = mcpPost(t, e.http.URL, e.key, call, "Origin", "http://evil.example")
	if resp.StatusCode != 403 {
		t.Errorf("foreign Origin: %d %s", resp.StatusCode, body)
	}
	resp, body = mcpPost(t, e.http.URL, e.key, call, "Origin", e.http.URL)
	if resp.StatusCode != 200 {
		t.Errorf("own Origin: %d %s", resp.StatusCode, body)
	}
}

func TestMCPReplayedErrorAndResourceErrors(t *testing.T) {
	e := newAgentsEnv(t)
	cs := e.overHTTP(e.key)
	args := map[string]any{"id": "00000000-0000-4000-8000-000000000000", "status": "done", "idempotency_key": "mcp-404-replay"}
	first := callTool(t, cs, "update_mention_status", args)
	again := callTool(t, cs, "update_mention_status", args)
	if first.errCode() != "NOT_FOUND" || again.errCode() != "NOT_FOUND" || first.meta()["idempotencyReplayed"] == true || again.meta()["idempotencyReplayed"] != true {
		t.Errorf("replayed error: first %v, again %v", first.meta(), again.meta())
	}

	// A key without mentions:read reading a mention resource: a JSON-RPC
	// error with a real code and a readable message.
	noRead := e.issue(e.proj, e.user.ID, []string{capability.UsageRead})
	_, err := e.overHTTP(noRead).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "earshot://mentions/00000000-0000-4000-8000-000000000000"})
	if err == nil || !strings.Contains(err.Error(), "FORBIDDEN") || strings.Contains(err.Error(), `{"error"`) {
		t.Errorf("forbidden resource read: %v", err)
	}
}

// RFC 3339 allows a lower-case "t" and "z"; the schema says date-time.
func TestLowerCaseTimestamps(t *testing.T) {
	e := newEnv(t)
	e.do("GET", "/api/v1/mentions?since=2026-01-01t00:00:00z", e.keyA, nil).ok()
}

// A mention resource is one tenant's data: clients may cache it privately
// only.
func TestMCPMentionResourceIsPrivate(t *testing.T) {
	e := newAgentsEnv(t)
	res, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, []store.NewMention{{Source: "hn", ExternalID: "r1", URL: "https://news.example/r1",
		Text: "Acme resource", PublishedAt: time.Now(), IsRelevant: true, Category: "other", Sentiment: "neutral", Classifier: "builtin"}})
	if err != nil || len(res.Created) != 1 {
		t.Fatalf("ingest: %v", err)
	}
	got, err := e.overHTTP(e.key).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "earshot://mentions/" + res.Created[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.CacheScope != "private" || !strings.Contains(got.Contents[0].Text, "Acme resource") {
		t.Errorf("cacheScope %q, contents %v", got.CacheScope, got.Contents)
	}
}
