package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as the earshot binary (the go-sdk's own re-exec
// trick): with EARSHOT_TEST_AS_CLI=1 it runs the CLI on its arguments, so
// `earshot mcp` is tested as a real child process speaking stdio.
func init() {
	if os.Getenv("EARSHOT_TEST_AS_CLI") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
}

func cliRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := func(k string) string { return "" }
	if code := run(context.Background(), args, strings.NewReader(""), &out, &errb, env); code != 0 {
		t.Fatalf("earshot %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

// mcpProject makes a data dir with a user, a project and an API key.
func mcpProject(t *testing.T) (data, key string) {
	t.Helper()
	data = t.TempDir()
	cliRun(t, "user", "create", "--data", data, "--email", "cli@example.com", "--password", "cli-password-1")
	var proj struct{ ID string }
	if err := json.Unmarshal([]byte(cliRun(t, "project", "create", "--data", data, "--owner", "cli@example.com", "--name", "CLI Brand")), &proj); err != nil || proj.ID == "" {
		t.Fatalf("project create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(cliRun(t, "key", "create", "--data", data, "--project", proj.ID)), "\n")
	key = strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(key, "esk_") {
		t.Fatalf("key create printed %q", key)
	}
	return data, key
}

func TestMCPCommandOverStdio(t *testing.T) {
	data, key := mcpProject(t)
	ctx, cancel := context.WithTimeout(context.Background(), readyBound)
	defer cancel()
	cmd := exec.Command(os.Args[0], "mcp", "--data", data, "--log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "EARSHOT_TEST_AS_CLI=1", "EARSHOT_API_KEY="+key)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	tools := 0
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "" {
			t.Errorf("tool without a name")
		}
		tools++
	}
	if tools < 10 {
		t.Errorf("%d tools", tools)
	}
	created, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_monitor", Arguments: map[string]any{"name": "Stdio", "keywords": []string{"earshot"}, "idempotency_key": "stdio-test-0001"}})
	if err != nil || created.IsError {
		t.Fatalf("create_monitor: %v %v", err, created)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_monitors", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_monitors: %v %v", err, res)
	}
	var env struct {
		Data struct {
			Monitors []struct{ Name string }
		}
		Meta struct{ Capability string }
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &env)
	if len(env.Data.Monitors) != 1 || env.Data.Monitors[0].Name != "Stdio" || env.Meta.Capability != "list_monitors" {
		t.Errorf("list_monitors: %s", b)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("stderr: %s", stderr.String())
	}

	// A bad key fails before the protocol starts, with a message on stderr.
	var out, errb bytes.Buffer
	bad := exec.Command(os.Args[0], "mcp", "--data", data, "--key", "esk_doesnotexist")
	bad.Env = append(os.Environ(), "EARSHOT_TEST_AS_CLI=1")
	bad.Stdout, bad.Stderr = &out, &errb
	if err := bad.Run(); err == nil || out.Len() != 0 || !strings.Contains(errb.String(), "key") {
		t.Errorf("bad key: err %v, stdout %q, stderr %q", err, out.String(), errb.String())
	}
}

// A line that is not a JSON-RPC message gets a JSON-RPC error and the
// session goes on; when stdin ends, every request already read is answered
// (a write is never carried out unanswered) and the command exits 0.
func TestMCPStdioBadLinesAndEOF(t *testing.T) {
	data, key := mcpProject(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not json`,
		`{"jsonrpc":"2.0","id":2,"method":`,
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
		`"hello"`,
		``,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_monitor","arguments":{"name":"Piped","keywords":["piped"],"idempotency_key":"piped-0001"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_keyword_group","arguments":{"name":"a","name":"b"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"create_keyword_group","arguments":{"name":"\ud800"}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(os.Args[0], "mcp", "--data", data, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "EARSHOT_TEST_AS_CLI=1", "EARSHOT_API_KEY="+key)
	cmd.Stdin = strings.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("earshot mcp: %v\nstderr: %s", err, stderr.String())
	}
	type answer struct {
		ID     any
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	byID := map[string]answer{}
	var nullErrors []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		if a.ID == nil {
			if a.Error == nil {
				t.Errorf("answer without id or error: %s", line)
				continue
			}
			nullErrors = append(nullErrors, a.Error.Code)
			continue
		}
		byID[string(mustJSON(a.ID))] = a
	}
	// Parse errors (-32700) for the two broken lines, invalid request
	// (-32600) for the batch and the bare string.
	if want := []int{-32700, -32700, -32600, -32600}; !equalInts(nullErrors, want) {
		t.Errorf("errors with id null: %v, want %v\n%s", nullErrors, want, out.String())
	}
	if a := byID["3"]; a.Error == nil || a.Error.Code != -32600 {
		t.Errorf("jsonrpc 1.0 request: %+v", a)
	}
	// Strict JSON as over HTTP: a repeated key and a lone surrogate are
	// refused with their id, before any tool runs.
	if a := byID["7"]; a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "twice") {
		t.Errorf("duplicate key: %+v", a)
	}
	if a := byID["8"]; a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "surrogate") {
		t.Errorf("lone surrogate: %+v", a)
	}
	for _, id := range []string{"1", "5", "6"} {
		if a, ok := byID[id]; !ok || a.Error != nil || len(a.Result) == 0 {
			t.Errorf("request %s unanswered or failed: %+v\n%s", id, a, out.String())
		}
	}
	if !strings.Contains(string(byID["5"].Result), `"Piped"`) {
		t.Errorf("create_monitor result: %s", byID["5"].Result)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// earshot mcp checks its settings like serve does.
func TestMCPCommandChecksSettings(t *testing.T) {
	data, key := mcpProject(t)
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--base-url", "notaurl"}, nil, "base-url"},
		{nil, map[string]string{"EARSHOT_DOCS_URL": "ftp://x"}, "EARSHOT_DOCS_URL"},
		{nil, map[string]string{"EARSHOT_ALLOW_PRIVATE_WEBHOOKS": "yes"}, "EARSHOT_ALLOW_PRIVATE_WEBHOOKS"},
		{nil, map[string]string{"EARSHOT_API_KEY": "not-a-key"}, "EARSHOT_API_KEY"},
	} {
		env := map[string]string{"EARSHOT_API_KEY": key}
		for k, v := range tc.env {
			env[k] = v
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"mcp", "--data", data}, tc.args...), strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q", tc.args, tc.env, code, out.String(), errb.String())
		}
	}
}

// Requests that reuse an id each get an answer: a second one while the
// first still runs is refused with -32600 instead of silently dropped.
func TestMCPStdioReusedIDIsAnswered(t *testing.T) {
	data, key := mcpProject(t)
	lines := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for _, name := range []string{"Rep-a", "Rep-b", "Rep-c"} {
		lines = append(lines, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_monitor","arguments":{"name":"`+name+`","keywords":["rep"]}}}`)
	}
	cmd := exec.Command(os.Args[0], "mcp", "--data", data, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "EARSHOT_TEST_AS_CLI=1", "EARSHOT_API_KEY="+key)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("earshot mcp: %v\nstderr: %s", err, stderr.String())
	}
	answers := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a struct{ ID any }
		json.Unmarshal([]byte(line), &a)
		if a.ID == float64(7) {
			answers++
		}
	}
	if answers != 3 {
		t.Errorf("%d answers with id 7 for 3 requests:\n%s", answers, out.String())
	}
}
