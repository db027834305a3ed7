package server

import (
	"earshot/ui"

	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// The human reference at /docs: an index of capabilities by group and one
// page per capability (the meta.docs target), rendered on the server from
// the catalogue. No JavaScript, no external assets.

type docsGroup struct {
	Name string
	Caps []*capability.Capability
}

type docsParam struct {
	Name, In, Type, Rules, Doc string
	Required                   bool
}

type docsError struct{ Status, Codes, When string }

type docsPage struct {
	Title    string
	BaseURL  string
	MCPURL   string
	OpenAPI  string
	Groups   []docsGroup
	Cap      *capability.Capability
	Kind     string
	Params   []docsParam
	Curl     string
	MCPArgs  string
	DataJSON string
	CSV      bool
	Errors   []docsError
	Missing  string
}

var docsTemplates = template.Must(template.New("layout").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Earshot API</title>
<style>
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:60rem;margin:0 auto;padding:1rem 1.5rem 4rem;color:#1b1f24;background:#fff}
a{color:#0a58ca}h1{font-size:1.8rem;margin:.5rem 0}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
code,pre{font:14px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{background:#f5f6f8;padding:.8rem;overflow:auto;border-radius:4px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;vertical-align:top;border-bottom:1px solid #e3e3e3;padding:.35rem .5rem}
th{background:#f5f6f8}.m{font-weight:600}.tag{display:inline-block;padding:0 .4rem;border-radius:3px;background:#eef;font-size:.85rem;margin-right:.3rem}
nav{font-size:.9rem;margin-bottom:1rem}
</style></head><body>
<nav><a href="/docs">Earshot API reference</a> · <a href="/api/v1/openapi.json">OpenAPI 3.1</a></nav>
{{if .Missing}}{{template "missing" .}}{{else if .Cap}}{{template "reference" .}}{{else}}{{template "index" .}}{{end}}
</body></html>
{{define "index"}}
<h1>Earshot API reference</h1>
<p>Every operation (a <em>capability</em>) is available three ways with the same input and the same answer:</p>
<ul>
<li>REST at <code>{{.BaseURL}}/api/v1/…</code> with <code>Authorization: Bearer &lt;API key or session token&gt;</code>. Success is <code>{"data": …, "meta": …}</code>; an error is <code>{"error": {"code", "message", "param"}, "meta": …}</code>.</li>
<li>MCP tools of the same name: streamable HTTP at <code>{{.MCPURL}}</code> (same bearer header), or <code>earshot mcp --data DIR --key KEY</code> over stdio.</li>
<li>The machine-readable description: <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI 3.1).</li>
</ul>
<p>Write operations accept an <code>Idempotency-Key</code> header (MCP: the <code>idempotency_key</code> argument), 8 to 128 characters; a retry within 24 hours replays the first answer.</p>
{{range .Groups}}<h2 id="{{.Name}}">{{.Name}}</h2>
<table><tr><th>Capability</th><th>Method and path</th><th>Scope</th><th>What it does</th></tr>
{{range .Caps}}<tr><td><a href="/docs/reference/{{.Name}}"><code>{{.Name}}</code></a></td><td><span class="m">{{.Method}}</span> <code>{{.Path}}</code></td><td><code>{{.Scope}}</code></td><td>{{.Title}}</td></tr>
{{end}}</table>
{{end}}{{end}}
{{define "reference"}}
<h1><code>{{.Cap.Name}}</code></h1>
<p><strong>{{.Cap.Title}}</strong></p>
<p>{{.Cap.Description}}</p>
<table>
<tr><th>Method and path</th><td><span class="m">{{.Cap.Method}}</span> <code>{{.BaseURL}}{{.Cap.Path}}</code></td></tr>
<tr><th>Required scope</th><td><code>{{.Cap.Scope}}</code></td></tr>
<tr><th>Kind</th><td>{{.Kind}}</td></tr>
<tr><th>MCP tool</th><td><code>{{.Cap.Name}}</code></td></tr>
<tr><th>Group</th><td><a href="/docs#{{.Cap.Group}}">{{.Cap.Group}}</a></td></tr>
</table>
<h2>Parameters</h2>
{{if .Params}}<table><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Rules</th><th>Description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code></td><td>{{.In}}</td><td>{{.Type}}</td><td>{{if .Required}}yes{{else}}no{{end}}</td><td>{{.Rules}}</td><td>{{.Doc}}</td></tr>
{{end}}</table>{{else}}<p>None.</p>{{end}}
{{if .Cap.Write}}<p>Header <code>Idempotency-Key</code> (optional, 8 to 128 characters): the same key with the same request within 24 hours replays the first response with <code>meta.idempotencyReplayed: true</code>; with another request it answers 409 <code>IDEMPOTENCY_KEY_REUSED</code>.</p>{{end}}
<h2>Example</h2>
<pre>{{.Curl}}</pre>
<p>As an MCP tool call, <code>{{.Cap.Name}}</code> with arguments:</p>
<pre>{{.MCPArgs}}</pre>
<h2>Response</h2>
{{if .CSV}}<p>HTTP 200 with a <code>text/csv</code> file, header row first. The MCP tool returns the CSV text in <code>data.csv</code> (capped; <code>data.truncated</code> tells when rows were left out).</p>
{{else}}<p>HTTP 200 with <code>{"data": …, "meta": {"capability", "requestId", "idempotencyReplayed", "docs"}}</code>. The JSON Schema of <code>data</code>:</p>
<pre>{{.DataJSON}}</pre>{{end}}
<h2>Errors</h2>
<table><tr><th>Status</th><th>Code</th><th>When</th></tr>
{{range .Errors}}<tr><td>{{.Status}}</td><td><code>{{.Codes}}</code></td><td>{{.When}}</td></tr>
{{end}}</table>
<p>Error body: <code>{"error": {"code", "message", "param"?}, "meta": {"capability", "requestId", "docs"}}</code>.</p>
{{end}}
{{define "missing"}}
<h1>Not found</h1>
<p>There is no capability named <code>{{.Missing}}</code>. See the <a href="/docs">list of capabilities</a>.</p>
{{end}}
`))

func (s *Server) docsBase() docsPage {
	base := strings.TrimRight(s.svc.Config.BaseURL, "/")
	return docsPage{BaseURL: base, MCPURL: base + "/mcp", OpenAPI: base + "/api/v1/openapi.json"}
}

func (s *Server) serveDocsIndex(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	page := s.docsBase()
	page.Title = "Reference"
	idx := map[string]int{}
	for _, c := range s.svc.Capabilities() {
		g := groupTag(c.Group)
		i, ok := idx[g]
		if !ok {
			i = len(page.Groups)
			idx[g] = i
			page.Groups = append(page.Groups, docsGroup{Name: g})
		}
		page.Groups[i].Caps = append(page.Groups[i].Caps, c)
	}
	s.renderDocs(w, r, http.StatusOK, page)
}

func (s *Server) serveDocsReference(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	name := ps.ByName("name")
	c, ok := s.svc.Capability(name)
	if !ok {
		page := s.docsBase()
		page.Title, page.Missing = "Not found", name
		s.renderDocs(w, r, http.StatusNotFound, page)
		return
	}
	page := s.docsBase()
	page.Title, page.Cap = c.Name, c
	page.Kind = capabilityKind(c)
	for _, f := range c.Fields {
		page.Params = append(page.Params, docsParam{Name: f.Name, In: f.In, Type: schemaTypeText(fieldSchema(f)), Rules: fieldRules(f), Doc: f.Doc, Required: f.Required})
	}
	page.Curl = exampleCurl(page.BaseURL, c)
	args := exampleArgs(c, "")
	if c.Write {
		args["idempotency_key"] = "3b2c6a1e-retry-safe"
	}
	b, _ := json.MarshalIndent(args, "", "  ")
	page.MCPArgs = string(b)
	page.CSV = isStreamed(c)
	if !page.CSV && c.Out != nil {
		b, _ := json.MarshalIndent(outputSchema(c.Out), "", "  ")
		page.DataJSON = string(b)
	}
	for _, e := range errorStatuses {
		if e.Status == "507" && !mayAnswer(c, e.Status) {
			continue
		}
		page.Errors = append(page.Errors, docsError{Status: e.Status, Codes: e.Codes, When: strings.ReplaceAll(e.Description, "`", "")})
	}
	s.renderDocs(w, r, http.StatusOK, page)
}

func (s *Server) renderDocs(w http.ResponseWriter, r *http.Request, status int, page docsPage) {
	var buf bytes.Buffer
	if err := docsTemplates.Execute(&buf, page); err != nil {
		s.log.Error("docs template", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.setHeaders(w, requestIDOf(r))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	w.Write(ui.PrefixLinks(s.basePath, buf.Bytes()))
}

func capabilityKind(c *capability.Capability) string {
	var parts []string
	if c.Write {
		parts = append(parts, "write")
	} else {
		parts = append(parts, "read-only")
	}
	if c.Idempotent {
		parts = append(parts, "idempotent")
	}
	if c.Destructive {
		parts = append(parts, "destructive")
	}
	if c.SessionOnly {
		parts = append(parts, "session credentials only (API keys get 403)")
	}
	return strings.Join(parts, ", ")
}

// schemaTypeText renders a schema's type for people: "array of string (uri)".
func schemaTypeText(s map[string]any) string {
	var t string
	switch v := s["type"].(type) {
	case string:
		t = v
	case []any:
		var names []string
		for _, x := range v {
			names = append(names, fmt.Sprint(x))
		}
		t = strings.Join(names, " or ")
	default:
		t = "any"
	}
	if t == "array" {
		if items, ok := s["items"].(map[string]any); ok {
			return "array of " + schemaTypeText(items)
		}
	}
	if f, ok := s["format"].(string); ok {
		t += " (" + f + ")"
	}
	return t
}

func fieldRules(f capability.Field) string {
	var r []string
	if len(f.Enum) > 0 {
		r = append(r, "one of "+strings.Join(f.Enum, ", "))
	}
	if f.Min != nil {
		r = append(r, fmt.Sprintf("≥ %d", *f.Min))
	}
	if f.Max != nil {
		r = append(r, fmt.Sprintf("≤ %d", *f.Max))
	}
	if f.MinLen > 0 {
		r = append(r, fmt.Sprintf("at least %d characters", f.MinLen))
	}
	if f.MaxLen > 0 {
		r = append(r, fmt.Sprintf("at most %d characters", f.MaxLen))
	}
	if f.NotBlank {
		r = append(r, "not blank")
	}
	if f.MaxItems > 0 {
		r = append(r, fmt.Sprintf("at most %d items", f.MaxItems))
	}
	if f.Default != "" {
		r = append(r, "default "+f.Default)
	}
	return strings.Join(r, "; ")
}

// exampleArgs gives example values for the required fields (and, when none
// is required in the body, the first body field so a PATCH shows a change;
// for a POST, the first list field), restricted to location in ("" = all).
func exampleArgs(c *capability.Capability, in string) map[string]any {
	out := map[string]any{}
	firstBody := ""
	for _, f := range c.Fields {
		if f.In == "body" && firstBody == "" {
			firstBody = f.Name
		}
	}
	anyBodyRequired := false
	firstList := "" // a create usually needs its first list too (e.g. keywords)
	for _, f := range c.Fields {
		if f.In == "body" && f.Required {
			anyBodyRequired = true
		}
		if f.In == "body" && firstList == "" && c.Method == http.MethodPost && kindOf(f.Type) == reflect.Slice {
			firstList = f.Name
		}
	}
	for _, f := range c.Fields {
		if in != "" && f.In != in {
			continue
		}
		if f.Required || (!anyBodyRequired && f.Name == firstBody) || f.Name == firstList {
			out[f.Name] = exampleValue(f)
		}
	}
	return out
}

func exampleValue(f capability.Field) any {
	s := fieldSchema(f)
	return exampleFromSchema(s, f.Name)
}

func exampleFromSchema(s map[string]any, name string) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if d, ok := s["default"]; ok {
		return d
	}
	t := s["type"]
	if ts, ok := t.([]any); ok && len(ts) > 0 {
		t = ts[0]
	}
	switch t {
	case "string":
		switch s["format"] {
		case "uuid":
			return "0b6f6a8e-2f4e-4c59-9d1a-6f1f3c2b7a10"
		case "uri":
			return "https://example.com/feed.xml"
		case "email":
			return "ada@example.com"
		case "date-time":
			return "2026-09-02T10:00:00Z"
		}
		switch {
		case name == "confirmation_name":
			return "My project"
		case name == "url" || strings.HasSuffix(name, "_url") || strings.HasSuffix(name, "_urls"):
			return "https://hooks.example.com/earshot"
		case name == "target":
			return "alerts@example.com"
		case name == "email":
			return "ada@example.com"
		}
		return "acme"
	case "integer":
		if m, ok := s["minimum"]; ok {
			return m
		}
		return 70
	case "number":
		return 1
	case "boolean":
		return true
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			return []any{exampleFromSchema(items, name)}
		}
		return []any{}
	case "object":
		return map[string]any{}
	}
	return nil
}

func exampleCurl(base string, c *capability.Capability) string {
	path := c.Path
	pathArgs := exampleArgs(c, "path")
	for _, m := range pathParam.FindAllStringSubmatch(c.Path, -1) {
		v := fmt.Sprint(pathArgs[m[1]])
		if _, ok := pathArgs[m[1]]; !ok {
			v = "ID"
		}
		path = strings.Replace(path, m[0], v, 1)
	}
	q := exampleArgs(c, "query")
	if len(q) > 0 {
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+"="+fmt.Sprint(q[k]))
		}
		path += "?" + strings.Join(parts, "&")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "curl -X %s '%s%s' \\\n  -H \"Authorization: Bearer $EARSHOT_API_KEY\"", c.Method, base, path)
	if c.Write {
		b.WriteString(" \\\n  -H \"Idempotency-Key: $(uuidgen)\"")
	}
	body := exampleArgs(c, "body")
	if len(body) > 0 {
		j, _ := json.Marshal(body)
		fmt.Fprintf(&b, " \\\n  -H 'Content-Type: application/json' \\\n  -d '%s'", strings.ReplaceAll(string(j), "'", `'\''`))
	}
	return b.String()
}
