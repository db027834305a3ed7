package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"earshot/capability"
	"earshot/server"
)

// TestBindingsHoldNoStore: the catalogue is the only door. The REST/MCP
// server and the dashboard reach data through the capability service,
// never through a *store.Store: neither imports store at all (the
// dashboard shows the service's records and api's), and neither holds a
// value of type store.Store, a method of it or a function that opens one
// (capability.Service.Store, reached through the service).
func TestBindingsHoldNoStore(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks two packages with go list")
	}
	list := goList(t, "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}", "earshot/server", "earshot/ui")
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		path, file, _ := strings.Cut(line, "\t")
		exports[path] = file
	}
	for _, pkg := range []string{"earshot/server", "earshot/ui"} {
		imports := strings.Fields(goList(t, "-f", `{{join .Imports " "}}`, pkg))
		if slices.Contains(imports, "earshot/store") {
			t.Errorf("%s imports earshot/store: %v", pkg, imports)
		}
		for _, use := range storeHandleUses(t, pkg, exports) {
			t.Errorf("%s reaches the store directly: %s", pkg, use)
		}
	}
}

func goList(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// storeHandleUses type-checks pkg's non-test files against the compiled
// export data of its imports and lists every use of the store handle: the
// type store.Store, a method of it, or any value whose type mentions it
// (capability.Service.Store, store.Open).
func storeHandleUses(t *testing.T, pkg string, exports map[string]string) []string {
	t.Helper()
	var meta struct {
		Dir     string
		GoFiles []string
	}
	if err := json.Unmarshal([]byte(goList(t, "-json", pkg)), &meta); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range meta.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(meta.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, os.ErrNotExist
		}
		return os.Open(file)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	if _, err := (&types.Config{Importer: imp}).Check(pkg, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", pkg, err)
	}
	const handle = "earshot/store.Store"
	var uses []string
	report := func(pos token.Pos, what string) {
		uses = append(uses, fset.Position(pos).String()+": "+what)
	}
	for id, obj := range info.Uses {
		if obj.Pkg() != nil && obj.Pkg().Path() == "earshot/store" && obj.Name() == "Store" {
			report(id.Pos(), "store.Store")
			continue
		}
		if obj.Type() != nil && strings.Contains(obj.Type().String(), handle) {
			report(id.Pos(), obj.Name()+" of type "+obj.Type().String())
		}
	}
	for sel, s := range info.Selections {
		if strings.Contains(s.Recv().String(), handle) {
			report(sel.Pos(), "method or field "+sel.Sel.Name+" of "+s.Recv().String())
		}
	}
	slices.Sort(uses)
	return uses
}

// TestSessionOperationsFromTheCatalogue: logging in and out are catalogue
// entries; the OpenAPI document describes them from their declaration
// (operationId, method, path, summary, the body's fields), and they are no
// MCP tools.
func TestSessionOperationsFromTheCatalogue(t *testing.T) {
	e := newAgentsEnv(t)
	caps := e.svc.SessionCapabilities()
	if len(caps) != 4 || caps[0].Name != capability.CreateSession || caps[1].Name != capability.DeleteSession ||
		caps[2].Name != capability.RequestPasswordReset || caps[3].Name != capability.ResetPassword {
		t.Fatalf("session operations: %v", caps)
	}
	doc := server.OpenAPI(e.svc)
	paths := doc["paths"].(map[string]any)
	for _, c := range caps {
		item, ok := paths[c.Path].(map[string]any)
		if !ok {
			t.Fatalf("%s: no path %s", c.Name, c.Path)
		}
		op, ok := item[strings.ToLower(c.Method)].(map[string]any)
		if !ok || op["operationId"] != c.Name || op["summary"] != c.Title || !strings.HasPrefix(op["description"].(string), c.Description) {
			t.Errorf("%s: operation %v", c.Name, op)
			continue
		}
		if _, scoped := op["x-required-scope"]; scoped || strings.Contains(op["description"].(string), "MCP tool: `") {
			t.Errorf("%s: described with a scope or as an MCP tool: %v", c.Name, op)
		}
		if sec := op["security"].([]any); (len(sec) == 0) != c.Public {
			t.Errorf("%s: security %v, public %v", c.Name, sec, c.Public)
		}
		var want []string
		for _, f := range c.Fields {
			want = append(want, f.Name)
		}
		var got []string
		if rb, ok := op["requestBody"].(map[string]any); ok {
			schema := rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			for name := range schema["properties"].(map[string]any) {
				got = append(got, name)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: body fields %v, catalogue %v", c.Name, got, want)
		}
	}
	login := paths["/api/v1/auth/sessions"].(map[string]any)["post"].(map[string]any)
	if pw := mustJSON(login["requestBody"]); !strings.Contains(pw, `"format":"password"`) || !strings.Contains(pw, `"required":["email","password"]`) {
		t.Errorf("login body schema: %s", pw)
	}
	if _, ok := login["responses"].(map[string]any)["429"]; !ok {
		t.Error("login does not document the login limiter's 429")
	}

	tools, err := e.overHTTP(e.key).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if _, ok := e.svc.SessionCapability(tool.Name); ok {
			t.Errorf("session operation %s is an MCP tool", tool.Name)
		}
	}
	if _, ok := e.svc.Capability(capability.CreateSession); ok {
		t.Error("create_session is reachable as a plain capability (CLI, dashboard actions)")
	}
}

// TestLogoutThroughTheCatalogue: the REST logout ends the session and
// answers the catalogue's output; an API key is refused.
func TestLogoutThroughTheCatalogue(t *testing.T) {
	e := newEnv(t)
	e.do("DELETE", "/api/v1/auth/sessions/current", e.keyA, nil).expect(403, "FORBIDDEN")
	r := e.do("DELETE", "/api/v1/auth/sessions/current", e.sessionA, nil).ok()
	if r.data()["deleted"] != true {
		t.Errorf("logout: %s", r.raw)
	}
	e.do("GET", "/api/v1/projects", e.sessionA, nil).expect(401, "UNAUTHORIZED")
	e.do("DELETE", "/api/v1/auth/sessions/current", e.sessionA, nil).expect(401, "UNAUTHORIZED")
}

// TestHealthThroughTheService: /healthz reports the service's checks.
func TestHealthThroughTheService(t *testing.T) {
	e := newEnv(t)
	res, err := http.Get(e.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %v", res.StatusCode, err)
	}
	h := e.svc.Health(context.Background())
	if body.Status != "ok" || !h.OK || body.Checks["database"] != "ok" || body.Checks["migrations"] != h.Checks["migrations"] {
		t.Errorf("healthz %+v, service %+v", body, h)
	}
	e.st.Close()
	res, err = http.Get(e.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("healthz with the database closed: %d", res.StatusCode)
	}
}

// TestLimitedOperationSaysRetryAfter: a capability the login limiter
// refuses (guessing the current password) answers 429 with Retry-After,
// as logging in does: the wait travels in the outcome, not in a handler.
func TestLimitedOperationSaysRetryAfter(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 10; i++ {
		r := e.do("POST", "/api/v1/account/password", e.sessionA, map[string]any{"current_password": "wrong-password", "new_password": "brand-new-pass"})
		if r.status == http.StatusTooManyRequests {
			if r.header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After: %s", r.raw)
			}
			return
		}
		r.expect(400, "VALIDATION_ERROR")
	}
	t.Fatal("ten wrong current passwords were never limited")
}
