package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/julienschmidt/httprouter"

	"earshot/capability"
)

// The OpenAPI 3.1 description of the REST API, generated from the catalogue
// (docs/decisions.md#openapi): one operation per capability, operationId = its
// name.

// errorStatuses are declared on every operation (docs/decisions.md#errors).
var errorStatuses = []struct {
	Status, Codes, Description string
}{
	{"400", "VALIDATION_ERROR", "Validation failed: bad JSON, unknown field, wrong type, out of range, bad enum, bad cursor, body over 1 MiB. `param` names the field."},
	{"401", "UNAUTHORIZED", "No, unknown or revoked credential. Carries `WWW-Authenticate: Bearer`."},
	{"402", "USAGE_LIMIT_REACHED", "The project's plan quota for the month is used up."},
	{"403", "FORBIDDEN", "The credential lacks the operation's scope (or is an API key on a session-only operation)."},
	{"404", "NOT_FOUND", "The resource does not exist or belongs to a project the credential cannot reach."},
	{"409", "CONFLICT, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE", "Conflict with the current state (e.g. an archived project), or an Idempotency-Key reused with another request or still running."},
	{"415", "UNSUPPORTED_MEDIA_TYPE", "A request body sent with another Content-Type than `application/json`. Only operations with a request body declare it."},
	{"429", "RATE_LIMITED", "Too many requests for this credential; retry after `Retry-After` seconds."},
	{"500", "INTERNAL", "Unexpected error; the request id identifies it in the server log."},
	{"507", "STORAGE_FULL", "The server's storage is full (disk, or the database's size limit): nothing of the request was saved. Retry, with the same Idempotency-Key, once space is freed; `/healthz` shows `checks.storage: full` meanwhile. Only operations that write declare it."},
}

var pathParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// openAPIPath converts an httprouter pattern to an OpenAPI path template.
func openAPIPath(p string) string { return pathParam.ReplaceAllString(p, "{$1}") }

// OpenAPI builds the document for svc's catalogue.
func OpenAPI(svc *capability.Service) map[string]any {
	caps := append(slices.Clone(svc.Capabilities()), svc.SessionCapabilities()...)
	paths := map[string]any{}
	var tags []any
	seenTag := map[string]bool{}
	for _, c := range caps {
		tag := groupTag(c.Group)
		if !seenTag[tag] {
			seenTag[tag] = true
			tags = append(tags, map[string]any{"name": tag, "description": fmt.Sprintf("Operations on %s.", pluralLabel(groupLabel(c.Group)))})
		}
		p := openAPIPath(c.Path)
		item, _ := paths[p].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[p] = item
		}
		item[strings.ToLower(c.Method)] = openAPIOperation(svc, c, tag)
	}
	errResponses := map[string]any{}
	for _, e := range errorStatuses {
		resp := map[string]any{
			"description": e.Description + " Codes: " + e.Codes + ".",
			"headers": map[string]any{
				"X-Request-Id": map[string]any{"$ref": "#/components/headers/X-Request-Id"},
				"Api-Version":  map[string]any{"$ref": "#/components/headers/Api-Version"},
			},
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorEnvelope"}}},
		}
		h := resp["headers"].(map[string]any)
		switch e.Status {
		case "401":
			h["WWW-Authenticate"] = map[string]any{"description": "`Bearer realm=\"earshot\"`.", "schema": map[string]any{"type": "string"}}
		case "429":
			h["Retry-After"] = map[string]any{"description": "Seconds to wait before retrying.", "schema": map[string]any{"type": "integer"}}
		}
		errResponses["Error"+e.Status] = resp
	}
	base := strings.TrimRight(svc.Config.BaseURL, "/")
	if base == "" {
		base = "/"
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "Earshot API",
			"version": capability.APIVersion,
			"summary": "Self-hosted brand-mention monitoring: monitors, mentions, alerts, webhooks and usage.",
			"description": "Every operation but the two session operations (log in, log out) is also an MCP tool of the same name at `/mcp` (and `earshot mcp` over stdio), taking the same fields as arguments. " +
				"Success is HTTP 200 with `{data, meta}`; errors are `{error: {code, message, param?}, meta}`. " +
				"Write operations accept an `Idempotency-Key` header (8-128 characters); a completed response is replayed for 24 hours with `meta.idempotencyReplayed: true`. " +
				"Per-capability reference: " + svc.DocsURL("") + ".",
			"license": map[string]any{"name": "Apache-2.0", "identifier": "Apache-2.0"},
		},
		"servers":  []any{map[string]any{"url": base, "description": "This Earshot server"}},
		"security": []any{map[string]any{"bearerAuth": []any{}}},
		"tags":     tags,
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{
					"type": "http", "scheme": "bearer",
					"description": "An API key (`esk_…`, scoped to one project and a set of scopes) or a session token from `POST /api/v1/auth/sessions`. Each operation names its required scope in `x-required-scope`.",
				},
			},
			"parameters": map[string]any{
				"IdempotencyKey": map[string]any{
					"name": "Idempotency-Key", "in": "header", "required": false,
					"description": "Makes a retry safe: the same key with the same request within 24 hours replays the first response (`meta.idempotencyReplayed: true`, header `Idempotent-Replayed: true`); with a different request it answers 409 `IDEMPOTENCY_KEY_REUSED`.",
					"schema":      map[string]any{"type": "string", "minLength": 8, "maxLength": 128},
				},
				"EarshotProject": map[string]any{
					"name": "Earshot-Project", "in": "header", "required": false,
					"description": "The project a session credential acts on (a user with one project may omit it). An API key is bound to its project; naming another answers 404.",
					"schema":      map[string]any{"type": "string", "format": "uuid"},
				},
			},
			"headers": map[string]any{
				"X-Request-Id": map[string]any{"description": "Equals `meta.requestId`.", "schema": map[string]any{"type": "string", "pattern": "^req_"}},
				"Api-Version":  map[string]any{"description": "The API version, `" + capability.APIVersion + "`.", "schema": map[string]any{"type": "string"}},
			},
			"responses": errResponses,
			"schemas": map[string]any{
				"Meta": map[string]any{
					"type":     "object",
					"required": []any{"capability", "requestId", "idempotencyReplayed", "docs"},
					"properties": map[string]any{
						"capability":          map[string]any{"type": "string", "description": "The capability (operation) name."},
						"requestId":           map[string]any{"type": "string", "description": "Request identifier, prefix `req_`."},
						"idempotencyReplayed": map[string]any{"type": "boolean", "description": "true when this is a replay of an earlier request with the same Idempotency-Key."},
						"docs":                map[string]any{"type": "string", "format": "uri", "description": "Reference page of the capability."},
					},
				},
				"ErrorMeta": map[string]any{
					"type":     "object",
					"required": []any{"capability", "requestId", "docs"},
					"properties": map[string]any{
						"capability":          map[string]any{"type": "string"},
						"requestId":           map[string]any{"type": "string"},
						"idempotencyReplayed": map[string]any{"type": "boolean", "description": "Present and true on a replayed stored error (402, 404, 409 CONFLICT)."},
						"docs":                map[string]any{"type": "string", "format": "uri"},
					},
				},
				"Error": map[string]any{
					"type":     "object",
					"required": []any{"code", "message"},
					"properties": map[string]any{
						"code": map[string]any{"type": "string", "description": "Stable code for programs.", "enum": []any{
							"VALIDATION_ERROR", "UNAUTHORIZED", "USAGE_LIMIT_REACHED", "FORBIDDEN", "NOT_FOUND", "CONFLICT",
							"IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE", "RATE_LIMITED", "METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE", "INTERNAL", "STORAGE_FULL"}},
						"message": map[string]any{"type": "string", "description": "For people."},
						"param":   map[string]any{"type": "string", "description": "The offending field, when there is one."},
					},
				},
				"ErrorEnvelope": map[string]any{
					"type":     "object",
					"required": []any{"error", "meta"},
					"properties": map[string]any{
						"error": map[string]any{"$ref": "#/components/schemas/Error"},
						"meta":  map[string]any{"$ref": "#/components/schemas/ErrorMeta"},
					},
				},
			},
		},
	}
}

func groupTag(g string) string {
	if g == "" {
		return "other"
	}
	return g
}

// pluralLabel: "story" → "stories", "category" → "categories", "key" → "keys".
func pluralLabel(s string) string {
	if strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ey") {
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

func groupLabel(g string) string {
	if g == "" {
		return "other resource"
	}
	return g
}

func openAPIOperation(svc *capability.Service, c *capability.Capability, tag string) map[string]any {
	var params []any
	byName := map[string]capability.Field{}
	for _, f := range c.Fields {
		byName[f.Name] = f
	}
	for _, m := range pathParam.FindAllStringSubmatch(c.Path, -1) {
		name := m[1]
		schema := map[string]any{"type": "string"}
		desc := ""
		if f, ok := byName[name]; ok {
			schema = fieldSchema(f)
			delete(schema, "description")
			desc = f.Doc
		}
		p := map[string]any{"name": name, "in": "path", "required": true, "schema": schema}
		if desc != "" {
			p["description"] = desc
		}
		params = append(params, p)
	}
	for _, f := range c.Fields {
		if f.In != "query" {
			continue
		}
		schema := fieldSchema(f)
		delete(schema, "description")
		p := map[string]any{"name": f.Name, "in": "query", "required": f.Required, "schema": schema}
		if f.Doc != "" {
			p["description"] = f.Doc
		}
		if schema["type"] == "array" {
			p["style"], p["explode"] = "form", false
		}
		params = append(params, p)
	}
	if !c.NoProject {
		params = append(params, map[string]any{"$ref": "#/components/parameters/EarshotProject"})
	}
	if c.Write {
		params = append(params, map[string]any{"$ref": "#/components/parameters/IdempotencyKey"})
	}
	desc := strings.TrimSpace(c.Description)
	if c.SessionOp {
		// Not an MCP tool, and no scope: a session operation makes or ends
		// the credential itself.
		desc += " Session operation: REST and the dashboard only, not an MCP tool."
	} else {
		desc += fmt.Sprintf("\n\nRequired scope: `%s`.", c.Scope)
		if c.SessionOnly {
			desc += " Session credentials only; API keys get 403."
		}
		if c.Write {
			desc += " Accepts `Idempotency-Key`."
		}
		desc += fmt.Sprintf(" MCP tool: `%s`. Reference: %s", c.Name, svc.DocsURL(c.Name))
	}
	summary := c.Title
	if summary == "" {
		summary = c.Name
	}
	security := []any{map[string]any{"bearerAuth": []any{}}}
	if c.Public {
		security = []any{}
	}
	op := map[string]any{
		"operationId": c.Name,
		"summary":     summary,
		"description": desc,
		"tags":        []any{tag},
		"security":    security,
		"responses":   openAPIResponses(c),
	}
	if c.Scope != "" {
		op["x-required-scope"] = c.Scope
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if c.Write && c.Idempotent {
		op["x-idempotent"] = true
	}
	body := inputSchema(c.Fields, func(f capability.Field) bool { return f.In == "body" })
	props := body["properties"].(map[string]any)
	if len(props) > 0 {
		_, required := body["required"]
		op["requestBody"] = map[string]any{
			"required": required,
			"content":  map[string]any{"application/json": map[string]any{"schema": body}},
		}
	}
	return op
}

func openAPIResponses(c *capability.Capability) map[string]any {
	var ok map[string]any
	if isStreamed(c) {
		ok = okResponse(nil)
		ok["description"] = "The CSV file (UTF-8, header row first)."
		ok["content"] = map[string]any{"text/csv": map[string]any{"schema": map[string]any{"type": "string"}}}
	} else {
		data := map[string]any{"type": "object"}
		if c.Out != nil {
			data = outputSchema(c.Out)
		}
		ok = okResponse(data)
	}
	out := map[string]any{"200": ok}
	hasBody := false
	for _, f := range c.Fields {
		hasBody = hasBody || f.In == "body"
	}
	for _, e := range errorStatuses {
		if e.Status == "415" && !hasBody || !mayAnswer(c, e.Status) {
			continue
		}
		out[e.Status] = map[string]any{"$ref": "#/components/responses/Error" + e.Status}
	}
	return out
}

// mayAnswer reports whether c can answer status. A session operation
// changes no project (no 402 or 409) and is outside the per-credential rate
// limit; logging in needs no credential (no 403, nor 404 for an
// Earshot-Project it cannot reach) and has the login limiter's 429.
func mayAnswer(c *capability.Capability, status string) bool {
	if status == "507" {
		return c.Write || c.SessionOp // reads store nothing
	}
	if !c.SessionOp {
		return true
	}
	switch status {
	case "402", "409":
		return false
	case "403", "404":
		return !c.Public
	case "429":
		return c.Public
	}
	return true
}

// okResponse is a 200 with the documented headers and, for data, the
// {data, meta} envelope around it.
func okResponse(data map[string]any) map[string]any {
	ok := map[string]any{
		"description": "Success.",
		"headers": map[string]any{
			"X-Request-Id": map[string]any{"$ref": "#/components/headers/X-Request-Id"},
			"Api-Version":  map[string]any{"$ref": "#/components/headers/Api-Version"},
		},
	}
	if data != nil {
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{
			"type": "object", "required": []any{"data", "meta"},
			"properties": map[string]any{"data": data, "meta": map[string]any{"$ref": "#/components/schemas/Meta"}},
		}}}
	}
	return ok
}

// openAPIHandler answers the document, built once: the catalogue is fixed
// at start-up.
func (s *Server) openAPIHandler() httprouter.Handle {
	var once sync.Once
	var doc []byte
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		once.Do(func() { doc, _ = json.MarshalIndent(OpenAPI(s.svc), "", "  ") })
		s.setHeaders(w, requestIDOf(r))
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write(doc)
	}
}
