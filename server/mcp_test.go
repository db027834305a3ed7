package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"earshot/capability"
	"earshot/server"
	"earshot/store"
	"earshot/store/storetest"
)

// updateToolsnaps regenerates testdata/toolsnaps (go test ./server -run
// TestMCPToolSnapshots -update, or UPDATE_TOOLSNAPS=1).
var updateToolsnaps = boolFlag("update", "rewrite golden files (server/testdata/toolsnaps)")

func boolFlag(name, usage string) func() bool {
	if f := flag.Lookup(name); f != nil {
		return func() bool { return f.Value.String() == "true" }
	}
	p := flag.Bool(name, false, usage)
	return func() bool { return *p || os.Getenv("UPDATE_TOOLSNAPS") == "1" }
}

// agentsEnv is a real server on a temp data dir with two tenants.
type agentsEnv struct {
	t        *testing.T
	st       *store.Store
	svc      *capability.Service
	http     *httptest.Server
	user     *store.User
	proj     *store.Project
	other    *store.Project
	key      string // all scopes, proj
	otherKey string // all scopes, other
	readKey  string // read scopes only, proj
}

func newAgentsEnv(t *testing.T) *agentsEnv {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	e := &agentsEnv{t: t, st: st}
	e.http = httptest.NewUnstartedServer(nil)
	base := "http://" + e.http.Listener.Addr().String()
	e.svc = capability.New(st, capability.Config{BaseURL: base, PlanQuotas: map[string]int{"trial": 1000}}, slog.New(slog.DiscardHandler))
	e.http.Config.Handler = server.New(e.svc, nil, server.Options{RateLimit: 10000, RateBurst: 10000})
	e.http.Start()
	t.Cleanup(e.http.Close)
	var err error
	e.user, err = e.svc.CreateUser(ctx, "owner@example.com", "correct-horse-42", "Owner")
	if err != nil {
		t.Fatal(err)
	}
	u2, err := e.svc.CreateUser(ctx, "rival@example.com", "correct-horse-42", "Rival")
	if err != nil {
		t.Fatal(err)
	}
	if e.proj, err = st.CreateProject(ctx, e.user.ID, "Acme", nil); err != nil {
		t.Fatal(err)
	}
	if e.other, err = st.CreateProject(ctx, u2.ID, "Globex", nil); err != nil {
		t.Fatal(err)
	}
	e.key = e.issue(e.proj, u2.ID, nil)
	e.otherKey = e.issue(e.other, u2.ID, nil)
	e.readKey = e.issue(e.proj, e.user.ID, []string{capability.ProjectsRead, capability.MonitorsRead, capability.MentionsRead, capability.UsageRead})
	return e
}

func (e *agentsEnv) issue(p *store.Project, by string, scopes []string) string {
	e.t.Helper()
	k, err := e.svc.IssueKey(context.Background(), p.ID, by, "test", scopes)
	if err != nil {
		e.t.Fatal(err)
	}
	return k.Key
}

// rest calls the REST API and returns the status and decoded body.
func (e *agentsEnv) rest(method, path, key string, body any) (int, map[string]any) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.http.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// overHTTP connects an MCP client to /mcp with key.
func (e *agentsEnv) overHTTP(key string) *mcp.ClientSession {
	e.t.Helper()
	return e.overHTTPPath(key, "")
}

// overHTTPPath connects to /mcp with query (e.g. "?toolsets=triage").
func (e *agentsEnv) overHTTPPath(key, query string) *mcp.ClientSession {
	e.t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: e.http.URL + "/mcp" + query, HTTPClient: &http.Client{Transport: bearerTransport{key}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// inMemory connects an MCP client to a server whose caller is key's
// principal, as earshot mcp does over stdio.
func (e *agentsEnv) inMemory(key string) *mcp.ClientSession {
	e.t.Helper()
	srv := server.NewMCPServer(e.svc, server.MCPOptions{Principal: func(ctx context.Context) (*capability.Principal, error) {
		return e.svc.Authenticate(ctx, key, "", "")
	}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

type toolAnswer struct {
	isError bool
	env     map[string]any // the envelope, from structured content
	text    map[string]any // the envelope, from the text block
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) toolAnswer {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var a toolAnswer
	a.isError = res.IsError
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &a.env)
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", name, res.Content[0])
	}
	if err := json.Unmarshal([]byte(tc.Text), &a.text); err != nil {
		t.Fatalf("%s: text is not JSON: %v", name, err)
	}
	if !reflect.DeepEqual(a.env, a.text) {
		t.Fatalf("%s: structured content and text differ:\n%v\n%v", name, a.env, a.text)
	}
	return a
}

func (a toolAnswer) data() map[string]any {
	d, _ := a.env["data"].(map[string]any)
	return d
}

func (a toolAnswer) errCode() string {
	e, _ := a.env["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func (a toolAnswer) meta() map[string]any {
	m, _ := a.env["meta"].(map[string]any)
	return m
}

func listToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	return names
}

func TestMCPToolListIsTheCatalogue(t *testing.T) {
	e := newAgentsEnv(t)
	// A key with every scope lists every tool but the session-only ones
	// (they refuse keys; TestMCPLeanToolLists checks the filtering).
	var want []string
	for _, n := range e.svc.SortedNames() {
		if c, _ := e.svc.Capability(n); !c.SessionOnly {
			want = append(want, n)
		}
	}
	for name, cs := range map[string]*mcp.ClientSession{"memory": e.inMemory(e.key), "http": e.overHTTP(e.key)} {
		if got := listToolNames(t, cs); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: tools %v\nwant %v", name, got, want)
		}
	}
}

// TestMCPToolSnapshots compares every tool definition, as a client sees it,
// with testdata/toolsnaps/<tool>.json, so an accidental change of a tool's
// contract fails. Regenerate with -update after an intended change.
func TestMCPToolSnapshots(t *testing.T) {
	e := newAgentsEnv(t)
	// The system principal lists every tool, the session-only ones too.
	cs := connectServer(t, server.NewMCPServer(e.svc, server.MCPOptions{Principal: func(context.Context) (*capability.Principal, error) {
		return &capability.Principal{Kind: capability.KindSystem}, nil
	}}))
	dir := filepath.Join("testdata", "toolsnaps")
	seen := map[string]bool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		seen[tool.Name+".json"] = true
		got, _ := json.MarshalIndent(tool, "", "  ")
		got = append(got, '\n')
		path := filepath.Join(dir, tool.Name+".json")
		if updateToolsnaps() {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("tool %s has no snapshot %s (run go test ./server -run TestMCPToolSnapshots -update)", tool.Name, path)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("tool %s differs from %s (if intended, run with -update):\n%s", tool.Name, path, got)
		}
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if !seen[f.Name()] {
			if updateToolsnaps() {
				os.Remove(filepath.Join(dir, f.Name()))
				continue
			}
			t.Errorf("snapshot %s has no tool any more (run with -update)", f.Name())
		}
	}
}

func TestMCPToolSchemas(t *testing.T) {
	e := newAgentsEnv(t)
	cs := e.inMemory(e.key)
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		c, _ := e.svc.Capability(tool.Name)
		s := tool.InputSchema.(map[string]any)
		if s["type"] != "object" || s["additionalProperties"] != false {
			t.Errorf("%s: schema %v", tool.Name, s)
		}
		props := s["properties"].(map[string]any)
		for _, f := range c.Fields {
			if _, ok := props[f.Name]; !ok {
				t.Errorf("%s: field %s missing from the schema", tool.Name, f.Name)
			}
		}
		if _, ok := props["idempotency_key"]; ok != c.Write {
			t.Errorf("%s: idempotency_key present=%v, write=%v", tool.Name, ok, c.Write)
		}
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), `"null","array"`) || strings.Contains(string(b), `"array","null"`) {
			t.Errorf("%s: nullable array in schema: %s", tool.Name, b)
		}
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint == c.Write {
			t.Errorf("%s: annotations %+v", tool.Name, tool.Annotations)
		}
		if c.Write && (tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint != c.Destructive) {
			t.Errorf("%s: destructive hint %v, want %v", tool.Name, tool.Annotations.DestructiveHint, c.Destructive)
		}
		if !strings.Contains(tool.Description, c.Scope) {
			t.Errorf("%s: description does not name the scope", tool.Name)
		}
	}
	c, _ := e.svc.Capability("create_monitor")
	_ = c
	tool := findTool(t, cs, "create_monitor")
	props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
	name := props["name"].(map[string]any)
	if name["maxLength"] != 80.0 || tool.InputSchema.(map[string]any)["required"].([]any)[0] != "name" {
		t.Errorf("create_monitor name: %v", name)
	}
	src := props["sources"].(map[string]any)
	if src["type"] != "array" || src["maxItems"] != 10.0 || len(src["items"].(map[string]any)["enum"].([]any)) != 10 {
		t.Errorf("create_monitor sources: %v", src)
	}
	bf := props["backfill_hours"].(map[string]any)
	if bf["type"] != "integer" || bf["default"] != 24.0 {
		t.Errorf("create_monitor backfill_hours: %v", bf)
	}
	if d := findTool(t, e.inMemory(e.key), "delete_project"); !strings.Contains(strings.ToLower(d.Description), "consent") && !strings.Contains(strings.ToLower(d.Description), "wait for the user") {
		t.Errorf("delete_project description lost its consent rule: %s", d.Description)
	}
}

func findTool(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestMCPAnswersWhatRESTAnswers: the same input gives the same data over
// REST and MCP (HTTP and in-memory), for every read that needs no input and
// for each write family.
func TestMCPAnswersWhatRESTAnswers(t *testing.T) {
	e := newAgentsEnv(t)
	ctx := context.Background()
	httpc, memc := e.overHTTP(e.key), e.inMemory(e.key)
	// Something to read.
	status, body := e.rest("POST", "/api/v1/monitors", e.key, map[string]any{"name": "Brand", "keywords": []string{"acme", "acme.io"}, "sources": []string{"hn", "reddit"}})
	if status != 200 {
		t.Fatalf("create_monitor: %d %v", status, body)
	}
	monID := body["data"].(map[string]any)["id"].(string)
	e.rest("POST", "/api/v1/keyword-groups", e.key, map[string]any{"name": "Acme", "is_own": true})

	for _, c := range e.svc.Capabilities() {
		if c.Write || c.SessionOnly || c.CSV || hasRequired(c) || c.Method != "GET" || strings.Contains(c.Path, ":") {
			continue
		}
		st, want := e.rest("GET", c.Path, e.key, nil)
		for name, cs := range map[string]*mcp.ClientSession{"http": httpc, "memory": memc} {
			got := callTool(t, cs, c.Name, nil)
			if st != 200 || got.isError {
				t.Errorf("%s over %s: REST %d, MCP error %v", c.Name, name, st, got.env)
				continue
			}
			if !reflect.DeepEqual(withoutNow(got.env["data"]), withoutNow(want["data"])) {
				t.Errorf("%s over %s: data differs\nMCP  %v\nREST %v", c.Name, name, got.env["data"], want["data"])
			}
			if got.meta()["capability"] != c.Name || !strings.HasPrefix(got.meta()["requestId"].(string), "req_") ||
				got.meta()["docs"] != e.svc.DocsURL(c.Name) || got.meta()["idempotencyReplayed"] != false {
				t.Errorf("%s: meta %v", c.Name, got.meta())
			}
		}
	}

	// get with a path id.
	_, want := e.rest("GET", "/api/v1/monitors/"+monID, e.key, nil)
	if got := callTool(t, httpc, "get_monitor", map[string]any{"id": monID}); !reflect.DeepEqual(got.data(), want["data"]) {
		t.Errorf("get_monitor: %v\nwant %v", got.data(), want["data"])
	}
	// A write over MCP, read back over REST.
	created := callTool(t, httpc, "create_monitor", map[string]any{"name": "Rival", "keywords": []string{"globex"}, "query_mode": "all", "backfill_hours": 72})
	if created.isError {
		t.Fatalf("create_monitor over MCP: %v", created.env)
	}
	_, back := e.rest("GET", "/api/v1/monitors/"+created.data()["id"].(string), e.key, nil)
	if !reflect.DeepEqual(created.data(), back["data"]) {
		t.Errorf("create_monitor data %v\nREST get %v", created.data(), back["data"])
	}
	updated := callTool(t, memc, "update_monitor", map[string]any{"id": monID, "active": false, "name": "Brand (paused)"})
	_, back = e.rest("GET", "/api/v1/monitors/"+monID, e.key, nil)
	if updated.isError || !reflect.DeepEqual(updated.data(), back["data"]) || updated.data()["active"] != false {
		t.Errorf("update_monitor %v\nREST get %v", updated.env, back["data"])
	}
	// The same validation error as REST, with the same param.
	st, restErr := e.rest("POST", "/api/v1/monitors", e.key, map[string]any{"name": strings.Repeat("x", 81)})
	mcpErr := callTool(t, httpc, "create_monitor", map[string]any{"name": strings.Repeat("x", 81)})
	if st != 400 || !mcpErr.isError || !reflect.DeepEqual(mcpErr.env["error"], restErr["error"]) {
		t.Errorf("validation: REST %d %v, MCP %v", st, restErr["error"], mcpErr.env)
	}
	if a := callTool(t, httpc, "create_monitor", map[string]any{"name": "x", "keywords": []string{"a"}, "owner": "me"}); a.errCode() != "VALIDATION_ERROR" {
		t.Errorf("unknown argument: %v", a.env)
	}
	// A CSV export answers the same text inside data.
	for _, c := range e.svc.Capabilities() {
		if !c.CSV || hasRequired(c) {
			continue
		}
		req, _ := http.NewRequest("GET", e.http.URL+c.Path, nil)
		req.Header.Set("Authorization", "Bearer "+e.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		restCSV, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got := callTool(t, httpc, c.Name, nil)
		if res.StatusCode != 200 || got.isError || got.data()["csv"] != string(restCSV) || got.data()["truncated"] != false {
			t.Errorf("%s: REST %d %q, MCP %v", c.Name, res.StatusCode, restCSV, got.env)
		}
	}
	_ = ctx
}

// withoutNow masks timestamps computed from the clock (e.g. the share of
// voice window) so two calls a moment apart compare equal.
func withoutNow(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range x {
			out[k] = withoutNow(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = withoutNow(v)
		}
		return out
	case string:
		// A window computed from the clock: now, or whole days before it.
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			if d := time.Since(t) % (24 * time.Hour); d.Abs() < 5*time.Second || (24*time.Hour-d).Abs() < 5*time.Second {
				return "<now>"
			}
		}
	}
	return v
}

func hasRequired(c *capability.Capability) bool {
	for _, f := range c.Fields {
		if f.Required {
			return true
		}
	}
	return false
}

func TestMCPScopeAndTenancy(t *testing.T) {
	e := newAgentsEnv(t)
	_, body := e.rest("POST", "/api/v1/monitors", e.otherKey, map[string]any{"name": "Theirs", "keywords": []string{"globex"}})
	theirs := body["data"].(map[string]any)["id"].(string)
	for name, cs := range map[string]*mcp.ClientSession{"http": e.overHTTP(e.readKey), "memory": e.inMemory(e.readKey)} {
		a := callTool(t, cs, "create_monitor", map[string]any{"name": "Mine", "keywords": []string{"acme"}})
		if !a.isError || a.errCode() != "FORBIDDEN" || a.meta()["capability"] != "create_monitor" || a.meta()["docs"] == "" {
			t.Errorf("%s: no monitors:write: %v", name, a.env)
		}
		if a := callTool(t, cs, "list_monitors", nil); a.isError {
			t.Errorf("%s: read with read key: %v", name, a.env)
		}
	}
	for name, cs := range map[string]*mcp.ClientSession{"http": e.overHTTP(e.key), "memory": e.inMemory(e.key)} {
		for _, tool := range []string{"get_monitor", "update_monitor", "delete_monitor"} {
			args := map[string]any{"id": theirs}
			if tool == "update_monitor" {
				args["name"] = "stolen"
			}
			if a := callTool(t, cs, tool, args); !a.isError || a.errCode() != "NOT_FOUND" {
				t.Errorf("%s %s on another project's monitor: %v", name, tool, a.env)
			}
		}
		if a := callTool(t, cs, "create_project", map[string]any{"name": "New"}); a.errCode() != "FORBIDDEN" {
			t.Errorf("%s: create_project with a key: %v", name, a.env)
		}
	}
	if _, b := e.rest("GET", "/api/v1/monitors/"+theirs, e.otherKey, nil); b["data"].(map[string]any)["name"] != "Theirs" {
		t.Errorf("the other project's monitor changed: %v", b)
	}
}

func TestMCPIdempotencyKey(t *testing.T) {
	e := newAgentsEnv(t)
	cs := e.overHTTP(e.key)
	args := map[string]any{"name": "Once", "keywords": []string{"acme"}, "idempotency_key": "mcp-test-key-0001"}
	first := callTool(t, cs, "create_monitor", args)
	second := callTool(t, e.inMemory(e.key), "create_monitor", args)
	if first.isError || second.isError {
		t.Fatalf("create: %v / %v", first.env, second.env)
	}
	if first.meta()["idempotencyReplayed"] != false || second.meta()["idempotencyReplayed"] != true {
		t.Errorf("replayed flags: %v / %v", first.meta(), second.meta())
	}
	if !reflect.DeepEqual(first.data(), second.data()) {
		t.Errorf("replay data differs: %v / %v", first.data(), second.data())
	}
	list := callTool(t, cs, "list_monitors", nil)
	if n := len(list.data()["monitors"].([]any)); n != 1 {
		t.Errorf("%d monitors after a replayed create, want 1", n)
	}
	// The same key over REST is the same key (scope: project, capability, key).
	req, _ := http.NewRequest("POST", e.http.URL+"/api/v1/monitors", strings.NewReader(`{"name":"Once","keywords":["acme"]}`))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "mcp-test-key-0001")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("REST with the MCP key was not a replay: %d", res.StatusCode)
	}
	args["name"] = "Twice"
	if a := callTool(t, cs, "create_monitor", args); a.errCode() != "IDEMPOTENCY_KEY_REUSED" {
		t.Errorf("reused key, other arguments: %v", a.env)
	}
	a := callTool(t, cs, "create_monitor", map[string]any{"name": "Short", "keywords": []string{"x"}, "idempotency_key": "short"})
	if a.errCode() != "VALIDATION_ERROR" || a.env["error"].(map[string]any)["param"] != "idempotency_key" {
		t.Errorf("short key: %v", a.env)
	}
	if a := callTool(t, cs, "list_monitors", map[string]any{"idempotency_key": "mcp-test-key-0002"}); a.errCode() != "VALIDATION_ERROR" {
		t.Errorf("idempotency_key on a read: %v", a.env)
	}
}

func TestMCPHTTPNeedsBearer(t *testing.T) {
	e := newAgentsEnv(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`
	for name, auth := range map[string]string{"none": "", "unknown": "Bearer esk_notakey", "basic": "Basic eDp5"} {
		req, _ := http.NewRequest("POST", e.http.URL+"/mcp", strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if res.StatusCode != 401 || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %d %q", name, res.StatusCode, res.Header.Get("WWW-Authenticate"))
		}
		if e, _ := body["error"].(map[string]any); e["code"] != "UNAUTHORIZED" {
			t.Errorf("%s: body %v", name, body)
		}
	}
	// A key naming another project reaches nothing.
	req, _ := http.NewRequest("POST", e.http.URL+"/mcp", strings.NewReader(init))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Earshot-Project", e.other.ID)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("key with another project's header: %d", res.StatusCode)
	}
}

func TestMCPPromptsAndResources(t *testing.T) {
	e := newAgentsEnv(t)
	cs := e.overHTTP(e.key)
	var names []string
	for p, err := range cs.Prompts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"triage_new_mentions", "weekly_brand_report"}) {
		t.Errorf("prompts %v", names)
	}
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "triage_new_mentions", Arguments: map[string]string{"limit": "10"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "update_mention_status") || !strings.Contains(text, "70") || !strings.Contains(text, "at most 10") {
		t.Errorf("triage prompt: %s", text)
	}
	res, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "weekly_brand_report"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "last_7_days") || !strings.Contains(text, "share of voice") && !strings.Contains(text, "Share of voice") {
		t.Errorf("report prompt: %s", text)
	}
	var templates []string
	for rt, err := range cs.ResourceTemplates(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	_, hasGet := e.svc.Capability("get_mention")
	if hasGet != (len(templates) == 1 && templates[0] == "earshot://mentions/{id}") {
		t.Errorf("get_mention exists: %v; templates %v", hasGet, templates)
	}
	if hasGet {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "earshot://mentions/00000000-0000-4000-8000-000000000000"})
		if err == nil {
			t.Errorf("reading a missing mention succeeded")
		}
	}
}

func TestOpenAPIDocument(t *testing.T) {
	e := newAgentsEnv(t)
	res, err := http.Get(e.http.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc map[string]any
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %v", res.StatusCode, err)
	}
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "2026-09-02" {
		t.Errorf("header: %v %v", doc["openapi"], doc["info"])
	}
	// Issue 23: the document's licence is the repository's LICENSE.
	if l, _ := doc["info"].(map[string]any)["license"].(map[string]any); l["name"] != "Apache-2.0" || l["identifier"] != "Apache-2.0" {
		t.Errorf("info.license %v, want Apache-2.0", l)
	}
	if u := doc["servers"].([]any)[0].(map[string]any)["url"]; u != e.svc.Config.BaseURL {
		t.Errorf("server url %v", u)
	}
	ops := map[string]map[string]any{}
	for path, item := range doc["paths"].(map[string]any) {
		if strings.Contains(path, ":") {
			t.Errorf("path %s keeps httprouter syntax", path)
		}
		for method, op := range item.(map[string]any) {
			o := op.(map[string]any)
			o["_method"], o["_path"] = strings.ToUpper(method), path
			ops[o["operationId"].(string)] = o
		}
	}
	for _, c := range e.svc.Capabilities() {
		o, ok := ops[c.Name]
		if !ok {
			t.Errorf("no operation %s", c.Name)
			continue
		}
		if o["_method"] != c.Method || o["x-required-scope"] != c.Scope || !strings.Contains(o["description"].(string), c.Scope) {
			t.Errorf("%s: %v %v %v", c.Name, o["_method"], o["x-required-scope"], o["_path"])
		}
		resp := o["responses"].(map[string]any)
		for _, s := range []string{"200", "400", "401", "402", "403", "404", "409", "429", "500"} {
			if resp[s] == nil {
				t.Errorf("%s: no %s response", c.Name, s)
			}
		}
		hasIdem := strings.Contains(mustJSON(o["parameters"]), "IdempotencyKey")
		if hasIdem != c.Write {
			t.Errorf("%s: Idempotency-Key parameter %v, write %v", c.Name, hasIdem, c.Write)
		}
	}
	// One operation per capability, plus logging in and out.
	if len(ops) != len(e.svc.Capabilities())+2 || ops["create_session"] == nil || ops["delete_session"] == nil {
		t.Errorf("%d operations for %d capabilities (create_session %v, delete_session %v)", len(ops), len(e.svc.Capabilities()), ops["create_session"] != nil, ops["delete_session"] != nil)
	}
	cm := ops["create_monitor"]
	body := cm["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if body["additionalProperties"] != false || body["properties"].(map[string]any)["name"].(map[string]any)["maxLength"] != 80.0 {
		t.Errorf("create_monitor body %v", body)
	}
	data := cm["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["properties"].(map[string]any)["data"].(map[string]any)
	props := data["properties"].(map[string]any)
	if props["keywords"].(map[string]any)["type"] != "array" || !strings.Contains(mustJSON(props["group_id"]), "null") {
		t.Errorf("monitor schema %v", data)
	}
	if gm := ops["get_monitor"]; !strings.Contains(mustJSON(gm["parameters"]), `"in":"path"`) || gm["_path"] != "/api/v1/monitors/{id}" {
		t.Errorf("get_monitor %v", gm)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestDocsPages(t *testing.T) {
	e := newAgentsEnv(t)
	get := func(path string) (int, string) {
		res, err := http.Get(e.http.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: content type %s", path, ct)
		}
		return res.StatusCode, string(b)
	}
	st, idx := get("/docs")
	if st != 200 {
		t.Fatalf("/docs: %d", st)
	}
	for _, c := range e.svc.Capabilities() {
		if !strings.Contains(idx, `href="/docs/reference/`+c.Name+`"`) {
			t.Errorf("index lacks %s", c.Name)
		}
		st, page := get("/docs/reference/" + c.Name)
		if st != 200 || !strings.Contains(page, c.Scope) || !strings.Contains(page, "curl -X "+c.Method) {
			t.Errorf("%s: %d", c.Name, st)
		}
		for _, f := range c.Fields {
			if !strings.Contains(page, "<code>"+f.Name+"</code>") {
				t.Errorf("%s: parameter %s missing", c.Name, f.Name)
			}
		}
		if strings.Contains(page, "<script") || strings.Contains(page, "https://cdn") {
			t.Errorf("%s: scripts or external assets", c.Name)
		}
	}
	if st, page := get("/docs/reference/no_such_thing"); st != 404 || !strings.Contains(page, "no_such_thing") {
		t.Errorf("unknown capability: %d", st)
	}
}

// TestMCPMentionTools covers the mention family: paging filters, a status
// change, the CSV export and the earshot://mentions/{id} resource, each
// against what REST answers.
func TestMCPMentionTools(t *testing.T) {
	e := newAgentsEnv(t)
	for _, name := range []string{"list_mentions", "get_mention", "update_mention_status", "export_mentions"} {
		if _, ok := e.svc.Capability(name); !ok {
			t.Skipf("no %s capability yet", name)
		}
	}
	ctx := context.Background()
	seed := func(p *store.Project, n int) []*store.Mention {
		batch := make([]store.NewMention, n)
		for i := range batch {
			batch[i] = store.NewMention{Source: "hn", ExternalID: p.ID[:8] + "-" + string(rune('a'+i)), URL: "https://news.ycombinator.com/item?id=" + string(rune('1'+i)),
				AuthorHandle: "dev", Text: "Acme broke my build, line with \"quotes\", commas", PublishedAt: time.Now().Add(-time.Duration(i+1) * time.Hour),
				Engagement: map[string]int64{"points": int64(i)}, IsRelevant: true, Category: "bug_report", Sentiment: "negative",
				Urgency: 60 + 10*i, AISummary: "build broken", Classifier: "builtin"}
		}
		res, err := e.st.IngestMentions(ctx, p.ID, 0, batch)
		if err != nil {
			t.Fatal(err)
		}
		return res.Created
	}
	mine := seed(e.proj, 3)
	theirs := seed(e.other, 1)
	cs := e.overHTTP(e.key)

	_, want := e.rest("GET", "/api/v1/mentions?limit=2&status=new&min_urgency=60", e.key, nil)
	got := callTool(t, cs, "list_mentions", map[string]any{"limit": 2, "status": "new", "min_urgency": 60})
	if got.isError || !reflect.DeepEqual(got.data(), want["data"]) || len(got.data()["items"].([]any)) != 2 {
		t.Errorf("list_mentions: %v\nREST %v", got.env, want["data"])
	}
	if cur, _ := got.data()["nextCursor"].(string); cur != "" {
		_, want := e.rest("GET", "/api/v1/mentions?limit=2&status=new&min_urgency=60&cursor="+cur, e.key, nil)
		next := callTool(t, cs, "list_mentions", map[string]any{"limit": 2, "status": "new", "min_urgency": 60, "cursor": cur})
		if !reflect.DeepEqual(next.data(), want["data"]) {
			t.Errorf("page 2: %v\nREST %v", next.data(), want["data"])
		}
	}
	if a := callTool(t, cs, "list_mentions", map[string]any{"limit": 0}); a.errCode() != "VALIDATION_ERROR" {
		t.Errorf("limit 0: %v", a.env)
	}

	upd := callTool(t, cs, "update_mention_status", map[string]any{"id": mine[0].ID, "status": "reviewed", "idempotency_key": "triage-" + mine[0].ID})
	_, back := e.rest("GET", "/api/v1/mentions/"+mine[0].ID, e.key, nil)
	if upd.isError || upd.data()["status"] != "reviewed" || !reflect.DeepEqual(upd.data(), back["data"]) {
		t.Errorf("update_mention_status: %v\nREST %v", upd.env, back["data"])
	}
	if a := callTool(t, cs, "update_mention_status", map[string]any{"id": theirs[0].ID, "status": "done"}); a.errCode() != "NOT_FOUND" {
		t.Errorf("another project's mention: %v", a.env)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "earshot://mentions/" + mine[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	json.Unmarshal([]byte(rr.Contents[0].Text), &res)
	if rr.Contents[0].MIMEType != "application/json" || !reflect.DeepEqual(res, back["data"]) {
		t.Errorf("resource: %s\nREST %v", rr.Contents[0].Text, back["data"])
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "earshot://mentions/" + theirs[0].ID}); err == nil {
		t.Errorf("read another project's mention as a resource")
	}

	req, _ := http.NewRequest("GET", e.http.URL+"/api/v1/exports/mentions?sentiment=negative", nil)
	req.Header.Set("Authorization", "Bearer "+e.key)
	hres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	restCSV, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	exp := callTool(t, cs, "export_mentions", map[string]any{"sentiment": "negative"})
	if exp.isError || exp.data()["csv"] != string(restCSV) || exp.data()["rows"] != 3.0 {
		t.Errorf("export: rows %v\nMCP  %q\nREST %q", exp.data()["rows"], exp.data()["csv"], restCSV)
	}
}
