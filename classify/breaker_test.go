package classify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// schemaOllama is a fake Ollama that enforces the JSON schema the client
// sends: it answers /api/chat with the canned answer only if that answer
// satisfies the request's "format" schema (types, enums, bounds,
// required fields), and fails the test otherwise. down makes it drop every
// connection, as a crashed server would.
type schemaOllama struct {
	t      *testing.T
	answer map[string]any
	models []string
	down   atomic.Bool
	chats  atomic.Int32
	mu     sync.Mutex
	system string
}

func (f *schemaOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.down.Load() {
		hj, ok := w.(http.Hijacker)
		if !ok {
			f.t.Fatal("no hijacker")
		}
		c, _, _ := hj.Hijack()
		c.Close()
		return
	}
	switch r.URL.Path {
	case "/api/tags":
		var ms []map[string]any
		for _, m := range f.models {
			ms = append(ms, map[string]any{"name": m, "model": m})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": ms})
	case "/api/chat":
		f.chats.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Format   map[string]any `json:"format"`
			Messages []struct{ Content string }
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Format == nil {
			f.t.Errorf("chat request without a JSON schema format: %v %s", err, body)
			http.Error(w, `{"error":"no format"}`, 400)
			return
		}
		if len(req.Messages) > 0 {
			f.mu.Lock()
			f.system = req.Messages[0].Content
			f.mu.Unlock()
		}
		content, _ := json.Marshal(f.answer)
		var answer map[string]any
		json.Unmarshal(content, &answer)
		if err := validateSchema(req.Format, answer); err != nil {
			f.t.Errorf("fake ollama: the answer breaks the client's schema: %v", err)
			http.Error(w, `{"error":"schema"}`, 500)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"model": "m", "message": map[string]any{"role": "assistant", "content": string(content)},
			"done": true, "prompt_eval_count": 10, "eval_count": 5})
	default:
		http.NotFound(w, r)
	}
}

// validateSchema checks v against the subset of JSON Schema the client
// uses: an object with typed properties, enums, bounds and required keys,
// and no properties beyond those listed.
func validateSchema(schema map[string]any, v map[string]any) error {
	if schema["type"] != "object" {
		return fmt.Errorf("schema type %v", schema["type"])
	}
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	for _, k := range req {
		if _, ok := v[k.(string)]; !ok {
			return fmt.Errorf("missing required %q", k)
		}
	}
	for k, val := range v {
		p, ok := props[k].(map[string]any)
		if !ok {
			return fmt.Errorf("property %q not in the schema", k)
		}
		switch p["type"] {
		case "string":
			s, ok := val.(string)
			if !ok {
				return fmt.Errorf("%q is not a string", k)
			}
			if ml, ok := p["maxLength"].(float64); ok && float64(utf8.RuneCountInString(s)) > ml {
				return fmt.Errorf("%q longer than %v", k, ml)
			}
			if enum, ok := p["enum"].([]any); ok && !slices.Contains(enum, any(s)) {
				return fmt.Errorf("%q = %q not in %v", k, s, enum)
			}
		case "integer":
			n, ok := val.(float64)
			if !ok || n != float64(int(n)) {
				return fmt.Errorf("%q is not an integer", k)
			}
			if lo, ok := p["minimum"].(float64); ok && n < lo {
				return fmt.Errorf("%q below %v", k, lo)
			}
			if hi, ok := p["maximum"].(float64); ok && n > hi {
				return fmt.Errorf("%q above %v", k, hi)
			}
		case "boolean":
			if _, ok := val.(bool); !ok {
				return fmt.Errorf("%q is not a boolean", k)
			}
		default:
			return fmt.Errorf("%q has type %v", k, p["type"])
		}
	}
	return nil
}

func newSchemaOllama(t *testing.T) (*schemaOllama, *httptest.Server) {
	f := &schemaOllama{t: t, models: []string{"llama3.2:latest"}, answer: map[string]any{
		"category": "complaint", "sentiment": "negative", "urgency": 62, "ai_summary": "The order never arrived.",
		"is_relevant": true, "category_reason": "a service failure told as fact: \"never arrived\"", "urgency_reason": "an unresolved order",
	}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestOllamaSchemaAndBrandContext(t *testing.T) {
	f, srv := newSchemaOllama(t)
	o := NewOllama(OllamaConfig{Host: srv.URL, HTTPClient: srv.Client()})
	r, err := o.Classify(context.Background(), Input{Text: "@acme my order never arrived", Keywords: []string{"acme", "acme shop"},
		Project: Project{Name: "Acme", Website: "https://acme.example", Terms: []string{"acme cloud", "@acmehq"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Classifier != "ollama:llama3.2" || r.Category != "complaint" || r.Urgency != 62 ||
		r.CategoryReason != `complaint: a service failure told as fact: "never arrived"` || r.UrgencyReason != "urgency 62: an unresolved order" {
		t.Errorf("result %+v", r)
	}
	for _, s := range []string{"Brand/project: Acme", "Website: https://acme.example", "Monitored keywords: acme, acme shop", "acme cloud, @acmehq"} {
		if !strings.Contains(f.system, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
	// Praise is never urgent, whatever the model says.
	f.answer["category"], f.answer["sentiment"], f.answer["urgency"] = "testimonial", "positive", 80
	if r, _ := o.Classify(context.Background(), Input{Text: "Acme support fixed it in minutes"}); r.Urgency >= 50 {
		t.Errorf("praise urgency %d", r.Urgency)
	}
	// An answer outside the schema (a category the project turned off is
	// not in the enum) is caught by the fake: the client's schema and the
	// fake agree on what the client asked for.
	f.answer["category"] = "misinformation"
	var sch map[string]any
	json.Unmarshal(o.schema(enabledCategories([]CategoryInfo{{Category: "complaint", Enabled: true}})), &sch)
	if err := validateSchema(sch, f.answer); err == nil {
		t.Error("schema accepted a disabled category")
	}
}

// A dead Ollama costs one failed request, not one per post: the breaker
// opens, posts go to the built-in classifier, a probe after the cooldown
// finds it still down (cooldown doubles), a later probe finds it back.
func TestOllamaCircuitBreaker(t *testing.T) {
	f, srv := newSchemaOllama(t)
	o := NewOllama(OllamaConfig{Host: srv.URL, HTTPClient: srv.Client(), BreakerCooldown: time.Minute})
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o.breaker.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	ctx := context.Background()

	f.down.Store(true)
	for i := 0; i < 20; i++ {
		r, err := o.Classify(ctx, Input{Text: "@acme my order never arrived"})
		if err != nil || r.Classifier != FallbackName || r.Category != "complaint" {
			t.Fatalf("post %d: %+v %v", i, r, err)
		}
	}
	if c := o.Calls(); c != 1 {
		t.Errorf("%d requests to a dead Ollama, want 1", c)
	}
	st := Describe(o)
	if st.Breaker == nil || st.Breaker.State != "open" || !st.Breaker.OpenUntil.Equal(now.Add(time.Minute)) || st.Fallbacks != 20 || st.Breaker.LastError == "" {
		t.Errorf("status %+v %+v", st, st.Breaker)
	}

	advance(61 * time.Second) // half-open: one probe, still down
	o.Classify(ctx, Input{Text: "x"})
	o.Classify(ctx, Input{Text: "x"})
	if c := o.Calls(); c != 2 {
		t.Errorf("calls after the first probe = %d, want 2", c)
	}
	if st := Describe(o); st.Breaker.State != "open" || !st.Breaker.OpenUntil.Equal(now.Add(2*time.Minute)) {
		t.Errorf("after a failed probe: %+v (want open for 2m)", st.Breaker)
	}

	f.down.Store(false)
	advance(time.Minute)
	if r, _ := o.Classify(ctx, Input{Text: "x"}); r.Classifier == "ollama:llama3.2" {
		t.Error("probed before the doubled cooldown ended")
	}
	advance(61 * time.Second)
	if r, _ := o.Classify(ctx, Input{Text: "x"}); r.Classifier != "ollama:llama3.2" {
		t.Errorf("probe after recovery answered by %s", r.Classifier)
	}
	if r, _ := o.Classify(ctx, Input{Text: "x"}); r.Classifier != "ollama:llama3.2" || Describe(o).Breaker.State != "closed" {
		t.Errorf("after recovery: %s, %+v", r.Classifier, Describe(o).Breaker)
	}
}

// A slow Ollama costs one timeout for a batch, not one per post.
func TestOllamaTimeoutOpensBreaker(t *testing.T) {
	f, srv := newFake(t, func(int) (int, string) { return 200, goodAnswer })
	f.delay = 2 * time.Second
	o := NewOllama(OllamaConfig{Host: srv.URL, HTTPClient: srv.Client(), Timeout: 100 * time.Millisecond})
	start := time.Now()
	for i := 0; i < 10; i++ {
		if r, _ := o.Classify(context.Background(), Input{Text: "x"}); r.Classifier != FallbackName {
			t.Fatalf("post %d answered by %s", i, r.Classifier)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("10 posts took %v with a 100ms timeout", d)
	}
	if f.count() != 1 {
		t.Errorf("%d requests, want 1", f.count())
	}
}

func TestNewAutoDetects(t *testing.T) {
	f, srv := newSchemaOllama(t)
	c, err := New(Config{Ollama: OllamaConfig{Host: srv.URL}})
	if err != nil || c.Name() != "ollama:llama3.2" || Describe(c).Mode != "auto" {
		t.Fatalf("auto with Ollama up: %v %v %+v", c, err, Describe(c))
	}
	f.models = []string{"qwen3:4b"}
	c, _ = New(Config{Kind: "auto", Ollama: OllamaConfig{Host: srv.URL}})
	if st := Describe(c); c.Name() != "builtin" || !strings.Contains(st.Detail, "ollama pull llama3.2") {
		t.Errorf("auto without the model: %s %+v", c.Name(), st)
	}
	f.down.Store(true)
	c, _ = New(Config{Ollama: OllamaConfig{Host: srv.URL}})
	if st := Describe(c); c.Name() != "builtin" || st.Mode != "auto" || !strings.Contains(st.Detail, "does not answer") {
		t.Errorf("auto with Ollama down: %s %+v", c.Name(), st)
	}
	if f.chats.Load() != 0 {
		t.Error("detection sent a chat request")
	}
}
