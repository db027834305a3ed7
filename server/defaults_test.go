package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestToolDefaultsAreTheDocumentedOnes: a field left out of a request gets
// the default its schema documents (the default tag, applied by the
// catalogue's decoder), over REST and over MCP alike.
func TestToolDefaultsAreTheDocumentedOnes(t *testing.T) {
	e := newAgentsEnv(t)
	cs := e.inMemory(e.key)
	for _, tc := range []struct {
		tool, path string
		body       map[string]any
		want       []string // fields with a default, left out of body
	}{
		{"create_monitor", "/api/v1/monitors", map[string]any{"name": "Acme", "keywords": []string{"acme"}},
			[]string{"query_mode", "backfill_hours", "scan_interval_minutes"}},
		{"create_alert", "/api/v1/alerts", map[string]any{"name": "Urgent", "channel": "email", "target": "ops@example.com"},
			[]string{"min_urgency", "active", "digest", "trigger"}},
	} {
		props := findTool(t, cs, tc.tool).InputSchema.(map[string]any)["properties"].(map[string]any)
		documented := map[string]any{}
		for _, f := range tc.want {
			p, _ := props[f].(map[string]any)
			if p["default"] == nil {
				t.Fatalf("%s.%s: the schema documents no default", tc.tool, f)
			}
			documented[f] = p["default"]
		}
		status, rest := e.rest("POST", tc.path, e.key, tc.body)
		if status != 201 && status != 200 {
			t.Fatalf("%s over REST: %d %v", tc.tool, status, rest)
		}
		a := callTool(t, cs, tc.tool, tc.body)
		if a.isError {
			t.Fatalf("%s over MCP: %v", tc.tool, a.env)
		}
		for binding, data := range map[string]map[string]any{"REST": rest["data"].(map[string]any), "MCP": a.data()} {
			for f, def := range documented {
				if got := data[f]; fmt.Sprint(got) != fmt.Sprint(def) {
					t.Errorf("%s over %s: %s = %v, documented default %v", tc.tool, binding, f, got, def)
				}
			}
		}
	}
	// The OpenAPI document states the same defaults.
	var doc map[string]any
	res, err := e.http.Client().Get(e.http.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&doc)
	res.Body.Close()
	schema := doc["paths"].(map[string]any)["/api/v1/monitors"].(map[string]any)["post"].(map[string]any)["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	b, _ := json.Marshal(schema)
	for _, want := range []string{`"default":"any"`, `"default":24`, `"default":15`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("OpenAPI create_monitor body schema lacks %s: %s", want, b)
		}
	}
}

// An update's left-out field means "unchanged": a default there would
// overwrite the stored value on every PATCH, so no PATCH input has one.
func TestToolDefaultsNotOnUpdates(t *testing.T) {
	e := newAgentsEnv(t)
	for _, c := range e.svc.Capabilities() {
		if c.Method != "PATCH" {
			continue
		}
		for _, f := range c.Fields {
			if f.Default != "" {
				t.Errorf("%s.%s has default %q", c.Name, f.Name, f.Default)
			}
		}
	}
}
