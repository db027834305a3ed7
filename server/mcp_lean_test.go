package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/server"
	"earshot/store"
)

// listTools returns the tools of cs and the bytes of the tools/list answer.
func listTools(t *testing.T, cs *mcp.ClientSession) (map[string]*mcp.Tool, int) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out, len(b)
}

// TestMCPLeanToolLists: tools/list answers only what the caller can run,
// over HTTP and in-process (stdio's binding), per scope, toolset and
// read-only mode; the bytes are logged for the closing note.
func TestMCPLeanToolLists(t *testing.T) {
	e := newAgentsEnv(t)
	for name, connect := range map[string]func(string) *mcp.ClientSession{"http": e.overHTTP, "memory": e.inMemory} {
		full, fullBytes := listTools(t, connect(e.key))
		read, readBytes := listTools(t, connect(e.readKey))
		t.Logf("%s: full key %d tools %d bytes; read-only key %d tools %d bytes", name, len(full), fullBytes, len(read), readBytes)
		for _, c := range e.svc.Capabilities() {
			if c.SessionOp {
				continue
			}
			_, inFull := full[c.Name]
			if inFull == c.SessionOnly {
				t.Errorf("%s: %s listed for a key = %v (session-only %v)", name, c.Name, inFull, c.SessionOnly)
			}
			_, inRead := read[c.Name]
			wantRead := !c.SessionOnly && slices.Contains([]string{capability.ProjectsRead, capability.MonitorsRead, capability.MentionsRead, capability.UsageRead}, c.Scope)
			if inRead != wantRead {
				t.Errorf("%s: %s (scope %s) listed for the read-only key = %v, want %v", name, c.Name, c.Scope, inRead, wantRead)
			}
		}
		for n := range read {
			if strings.HasPrefix(n, "delete_") || strings.HasPrefix(n, "create_") {
				t.Errorf("%s: read-only key sees %s", name, n)
			}
		}
		if readBytes >= fullBytes {
			t.Errorf("%s: read-only list %d bytes, not smaller than the full %d", name, readBytes, fullBytes)
		}
	}
}

func TestMCPToolsetsAndReadOnly(t *testing.T) {
	e := newAgentsEnv(t)
	triage, triageBytes := listTools(t, e.overHTTPPath(e.readKey, "?toolsets=triage&read_only=true"))
	t.Logf("read-only triage agent: %d tools, %d bytes", len(triage), triageBytes)
	if triageBytes > 25<<10 {
		t.Errorf("read-only triage list is %d bytes, over 25 KB", triageBytes)
	}
	for _, want := range []string{"list_mentions", "get_mention", "get_brief"} {
		if triage[want] == nil {
			t.Errorf("triage toolset lacks %s", want)
		}
	}
	for n := range triage {
		c, _ := e.svc.Capability(n)
		if c.Toolset() != capability.ToolsetTriage || c.Write {
			t.Errorf("read-only triage list has %s (toolset %s, write %v)", n, c.Toolset(), c.Write)
		}
	}
	two, _ := listTools(t, e.overHTTPPath(e.key, "?toolsets=monitors,alerts"))
	if two["create_monitor"] == nil || two["create_webhook"] == nil || two["list_mentions"] != nil {
		t.Errorf("toolsets=monitors,alerts: %v", keys(two))
	}

	// A tool left out of the list is refused with the envelope, not run.
	ro := e.overHTTPPath(e.key, "?read_only=1")
	mon := callTool(t, e.overHTTP(e.key), "create_monitor", map[string]any{"name": "M", "keywords": []string{"acme"}, "sources": []string{"hn"}})
	if mon.isError {
		t.Fatalf("create_monitor: %v", mon.env)
	}
	a := callTool(t, ro, "delete_monitor", map[string]any{"id": mon.data()["id"]})
	if !a.isError || a.errCode() != "FORBIDDEN" || !strings.Contains(a.env["error"].(map[string]any)["message"].(string), "read-only") {
		t.Errorf("delete_monitor on a read-only connection: %v", a.env)
	}
	if got := callTool(t, e.overHTTP(e.key), "get_monitor", map[string]any{"id": mon.data()["id"]}); got.isError {
		t.Errorf("the monitor was deleted through a read-only connection: %v", got.env)
	}
	b := callTool(t, e.overHTTPPath(e.key, "?toolsets=triage"), "list_monitors", nil)
	if !b.isError || b.errCode() != "FORBIDDEN" || !strings.Contains(b.env["error"].(map[string]any)["message"].(string), "monitors toolset") {
		t.Errorf("list_monitors outside the loaded toolsets: %v", b.env)
	}

	// A bad toolset name is a 400 naming the parameter and the known names.
	code, body := e.restPost("/mcp?toolsets=triage,bogus", e.key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	errObj, _ := body["error"].(map[string]any)
	if code != 400 || errObj["param"] != "toolsets" || !strings.Contains(errObj["message"].(string), "insights") {
		t.Errorf("toolsets=bogus: %d %v", code, body)
	}

	// The server's own default (EARSHOT_MCP_TOOLSETS / --mcp-read-only), in-process.
	srv := server.NewMCPServer(e.svc, server.MCPOptions{Toolsets: []string{capability.ToolsetAdmin}, ReadOnly: true,
		Principal: func(ctx context.Context) (*capability.Principal, error) {
			return e.svc.Authenticate(ctx, e.key, "", "")
		}})
	admin, _ := listTools(t, connectServer(t, srv))
	if admin["get_usage"] == nil || admin["list_projects"] == nil || admin["update_project"] != nil || admin["list_mentions"] != nil {
		t.Errorf("admin read-only server lists %v", keys(admin))
	}
}

func TestToolsetsCoverTheCatalogue(t *testing.T) {
	e := newAgentsEnv(t)
	for _, c := range e.svc.Capabilities() {
		if !c.SessionOp && !slices.Contains(capability.Toolsets, c.Toolset()) {
			t.Errorf("%s (group %q) belongs to no toolset", c.Name, c.Group)
		}
	}
	if _, err := capability.ParseToolsets("triage, Monitors,triage"); err != nil {
		t.Error(err)
	}
	if ts, _ := capability.ParseToolsets("all"); ts != nil {
		t.Errorf("all = %v", ts)
	}
}

// TestMCPOutputSchemas: every tool declares an outputSchema, and the
// structured content of real calls validates against it (as a client that
// checks outputSchema, like the TypeScript SDK, will).
func TestMCPOutputSchemas(t *testing.T) {
	e := newAgentsEnv(t)
	seedBrief(t, e)
	cs := e.inMemory(e.key)
	tools, _ := listTools(t, cs)
	for n, tl := range tools {
		if tl.OutputSchema == nil {
			t.Errorf("%s has no outputSchema", n)
		}
	}
	mentions := callTool(t, cs, "list_mentions", map[string]any{"limit": 3})
	id := mentions.data()["items"].([]any)[0].(map[string]any)["id"]
	calls := map[string]map[string]any{
		"list_mentions": {"limit": 3}, "get_mention": {"id": id}, "count_mentions": nil, "get_mention_stats": nil,
		"get_brief": nil, "list_stories": nil, "list_spikes": nil, "get_usage": nil, "list_monitors": nil, "get_project": {"id": e.proj.ID},
		"export_mentions": {"limit": 2}, "get_share_of_voice": nil, "list_views": nil, "list_members": nil,
		"update_mention_status": {"id": id, "status": "reviewed"}, "get_monitor": {"id": "00000000-0000-4000-8000-000000000000"},
	}
	for name, args := range calls {
		if tools[name] == nil {
			t.Fatalf("%s is not listed for a full key", name)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(tools[name].OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: schema: %v", name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve: %v", name, err)
		}
		var v any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &v)
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s (isError %v): structured content does not match its outputSchema: %v\n%s", name, res.IsError, err, b)
		}
	}
	// The schema describes data exactly: a wrong type is caught.
	raw, _ := json.Marshal(tools["count_mentions"].OutputSchema)
	var s jsonschema.Schema
	json.Unmarshal(raw, &s)
	rs, _ := s.Resolve(nil)
	if err := rs.Validate(map[string]any{"data": map[string]any{"count": "many", "count_capped": false}, "meta": map[string]any{}}); err == nil {
		t.Error("count_mentions' outputSchema accepts a string count")
	}
}

func seedBrief(t *testing.T, e *agentsEnv) {
	t.Helper()
	now := time.Now().UTC()
	var batch []store.NewMention
	add := func(i int, at time.Time, sentiment, category string, urgency int, relevant bool, source string) {
		batch = append(batch, store.NewMention{Source: source, ExternalID: "b" + itoa(i), URL: "https://example.com/p/" + itoa(i),
			AuthorHandle: "user" + itoa(i%5), Text: "Acme post " + itoa(i) + strings.Repeat(" long text", 40), PublishedAt: at,
			IsRelevant: relevant, Category: category, Sentiment: sentiment, Urgency: urgency, AISummary: "summary " + itoa(i), Classifier: "builtin"})
	}
	i := 0
	// This week: 6 relevant (3 negative), 2 urgent; 1 not relevant.
	for _, s := range []string{"negative", "negative", "negative", "positive", "neutral", "neutral"} {
		u := 10
		if i < 2 {
			u = 90 - i
		}
		add(i, now.Add(-time.Duration(i+1)*time.Hour), s, map[bool]string{true: "complaint", false: "other"}[s == "negative"], u, true, []string{"reddit", "hn"}[i%2])
		i++
	}
	add(i, now.Add(-2*time.Hour), "positive", "other", 5, false, "x")
	i++
	// The week before: 4 relevant, 1 negative.
	for _, s := range []string{"negative", "positive", "positive", "neutral"} {
		add(i, now.Add(-8*24*time.Hour-time.Duration(i)*time.Hour), s, "other", 5, true, "reddit")
		i++
	}
	if _, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
}

// TestBrief: one call answers the week's counts, the shift against the
// previous week, the breakdowns and the urgent unhandled mentions, the
// same over REST and MCP.
func TestBrief(t *testing.T) {
	e := newAgentsEnv(t)
	seedBrief(t, e)
	a := callTool(t, e.overHTTPPath(e.readKey, "?toolsets=triage&read_only=true"), "get_brief", nil)
	if a.isError {
		t.Fatalf("get_brief: %v", a.env)
	}
	d := a.data()
	m := d["mentions"].(map[string]any)
	p := d["previous"].(map[string]any)
	if m["total"] != 6.0 || m["negative"] != 3.0 || p["total"] != 4.0 || p["negative"] != 1.0 {
		t.Errorf("counts: this %v previous %v", m, p)
	}
	if d["volume_change"] != 0.5 || d["negative_share"] != 0.5 || d["previous_negative_share"] != 0.25 {
		t.Errorf("shift: %v %v %v", d["volume_change"], d["negative_share"], d["previous_negative_share"])
	}
	if s := d["sentiment_shift"].(string); !strings.Contains(s, "More negative") || !strings.Contains(s, "25 points") {
		t.Errorf("sentiment_shift %q", s)
	}
	if d["not_relevant"] != 1.0 || d["urgent_unhandled"] != 2.0 {
		t.Errorf("not_relevant %v urgent_unhandled %v", d["not_relevant"], d["urgent_unhandled"])
	}
	urgent := d["urgent"].([]any)
	if len(urgent) != 2 || urgent[0].(map[string]any)["urgency"] != 90.0 || len([]rune(urgent[0].(map[string]any)["text"].(string))) > 280 {
		t.Errorf("urgent: %v", urgent)
	}
	src := d["by_source"].([]any)
	if len(src) != 2 || src[0].(map[string]any)["count"] != 3.0 {
		t.Errorf("by_source %v", src)
	}
	cat := d["by_category"].([]any)
	if cat[0].(map[string]any)["name"] != "complaint" && cat[0].(map[string]any)["name"] != "other" {
		t.Errorf("by_category %v", cat)
	}
	code, body := e.rest("GET", "/api/v1/brief?urgent_limit=1", e.readKey, nil)
	if code != 200 || len(body["data"].(map[string]any)["urgent"].([]any)) != 1 {
		t.Errorf("REST brief: %d %v", code, body)
	}
	code, _ = e.rest("GET", "/api/v1/brief?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", e.readKey, nil)
	if code != 400 {
		t.Errorf("until before since: %d", code)
	}
	b, _ := json.Marshal(a.env)
	t.Logf("brief: %d bytes", len(b))
}

func keys(m map[string]*mcp.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func connectServer(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// restPost posts a raw JSON body with the MCP Accept header and decodes the answer.
func (e *agentsEnv) restPost(path, key, body string) (int, map[string]any) {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.http.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}
