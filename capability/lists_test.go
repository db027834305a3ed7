package capability_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"earshot/capability"
)

// TestExplicitEmptyLists: a list that must name something answers 400 when
// sent empty, while leaving it out still takes the documented default.
func TestExplicitEmptyLists(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, capability string
		args             map[string]any
		param, message   string
	}{
		{"key with no scopes", "create_api_key", map[string]any{"name": "ci", "scopes": []string{}},
			"scopes", "scopes must name at least one scope"},
		{"webhook with no events", "create_webhook", map[string]any{"url": "https://hooks.example.com/a", "events": []string{}},
			"events", "events must name at least one event"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(e.a, c.capability, "", c.args)
			wantErr(t, c.name, r, http.StatusBadRequest, "VALIDATION_ERROR", c.param)
			if r.Err.Message != c.message {
				t.Errorf("message %q, want %q", r.Err.Message, c.message)
			}
		})
	}

	t.Run("defaults when omitted", func(t *testing.T) {
		k := e.ok(e.a, "create_api_key", map[string]any{"name": "ci"})
		if got := k["scopes"].([]any); len(got) != 9 {
			t.Errorf("omitted scopes gave %v, want all nine", got)
		}
		w := e.ok(e.a, "create_webhook", map[string]any{"url": "https://hooks.example.com/b"})
		if got := w["events"].([]any); len(got) != 1 || got[0] != "mention.created" {
			t.Errorf("omitted events gave %v, want [mention.created]", got)
		}
	})
}

// TestWebhookURLMessages: a refused webhook URL says why without the
// resolver's address or Go's error text.
func TestWebhookURLMessages(t *testing.T) {
	e := newEnv(t)
	strict := capability.New(e.st, capability.Config{BaseURL: "http://earshot.test"}, slog.New(slog.DiscardHandler))
	e.svc = strict
	cases := []struct {
		name, capability string
		args             map[string]any
		param, message   string
	}{
		{"unresolvable host", "create_webhook", map[string]any{"url": "https://nx.invalid/hook"}, "url", "url: host nx.invalid does not resolve"},
		{"loopback", "create_webhook", map[string]any{"url": "https://127.0.0.1/hook"}, "url",
			"url: 127.0.0.1 is a loopback address; webhooks must reach a public address"},
		{"http", "create_webhook", map[string]any{"url": "http://nx.invalid/hook"}, "url", "url: https is required"},
		{"alert target", "create_alert", map[string]any{"name": "a", "channel": "slack", "target": "https://nx.invalid/hook"},
			"target", "target: host nx.invalid does not resolve"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.call(e.a, c.capability, "", c.args)
			wantErr(t, c.name, r, http.StatusBadRequest, "VALIDATION_ERROR", c.param)
			// Without a network the resolver may fail otherwise than "no
			// such host": then the host "could not be resolved".
			msg := strings.Replace(r.Err.Message, "could not be resolved", "does not resolve", 1)
			if msg != c.message {
				t.Errorf("message %q, want %q", r.Err.Message, c.message)
			}
			for _, leak := range []string{"lookup", ":53", "invalid webhook URL"} {
				if strings.Contains(r.Err.Message, leak) {
					t.Errorf("message %q exposes %q", r.Err.Message, leak)
				}
			}
		})
	}
}
