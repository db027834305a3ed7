package classify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOllama speaks the /api/chat protocol: one JSON object per reply when
// stream is false.
type fakeOllama struct {
	t        *testing.T
	mu       sync.Mutex
	requests []map[string]any
	inflight atomic.Int32
	maxIn    atomic.Int32
	// reply answers the n-th request (0-based): status, message content.
	reply func(n int) (int, string)
	delay time.Duration
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
		http.NotFound(w, r)
		return
	}
	cur := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		m := f.maxIn.Load()
		if cur <= m || f.maxIn.CompareAndSwap(m, cur) {
			break
		}
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("fake ollama: bad request body: %v", err)
	}
	f.mu.Lock()
	n := len(f.requests)
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	status, content := f.reply(n)
	w.Header().Set("Content-Type", "application/json")
	if status != http.StatusOK {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":%q}`, content)
		return
	}
	resp := map[string]any{
		"model": req["model"], "created_at": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "assistant", "content": content},
		"done":    true, "done_reason": "stop",
		"total_duration": 123456789, "prompt_eval_count": 400, "eval_count": 50, "eval_duration": 1000,
	}
	json.NewEncoder(w).Encode(resp)
}

func (f *fakeOllama) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

const goodAnswer = `{"category":"bug_report","sentiment":"negative","urgency":55,"ai_summary":"Sync fails after the update.","is_relevant":true,"category_reason":"sync is broken since the update","urgency_reason":"a defect, no data lost"}`

func newFake(t *testing.T, reply func(int) (int, string)) (*fakeOllama, *httptest.Server) {
	f := &fakeOllama{t: t, reply: reply}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestOllamaProtocolAndCost(t *testing.T) {
	f, srv := newFake(t, func(int) (int, string) { return 200, goodAnswer })
	o := NewOllama(OllamaConfig{Host: srv.URL, Model: "test-model", PricePer1KInput: 0.5, PricePer1KOutput: 2, HTTPClient: srv.Client()})
	if o.Name() != "ollama:test-model" {
		t.Errorf("Name = %q", o.Name())
	}
	cats := []CategoryInfo{{Category: "bug_report", Label: "Bug", Description: "broken things", Enabled: true},
		{Category: "testimonial", Label: "Praise", Enabled: false}}
	r, err := o.Classify(context.Background(), Input{Text: "Sync fails after the update", Keywords: []string{"Acme"},
		Project: Project{Name: "Acme", Description: "notes app"}, Categories: cats})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Category: "bug_report", Sentiment: "negative", Urgency: 55, Summary: "Sync fails after the update.", IsRelevant: true,
		Classifier: "ollama:test-model", InputTokens: 400, OutputTokens: 50, CostUSD: 400.0/1000*0.5 + 50.0/1000*2,
		CategoryReason: "bug_report: sync is broken since the update", UrgencyReason: "urgency 55: a defect, no data lost"}
	r.Reasons = nil
	if d := r.CostUSD - want.CostUSD; d > 1e-12 || d < -1e-12 {
		t.Errorf("CostUSD = %v, want %v", r.CostUSD, want.CostUSD)
	}
	r.CostUSD = want.CostUSD
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
	req := f.requests[0]
	if req["stream"] != false {
		t.Errorf("stream = %v, want false", req["stream"])
	}
	format, ok := req["format"].(map[string]any)
	if !ok {
		t.Fatalf("format missing or not a schema: %v", req["format"])
	}
	enum := format["properties"].(map[string]any)["category"].(map[string]any)["enum"].([]any)
	if fmt.Sprint(enum) != "[bug_report other]" {
		t.Errorf("category enum = %v, want only enabled categories", enum)
	}
	if opts, _ := req["options"].(map[string]any); opts["temperature"] != float64(0) {
		t.Errorf("options = %v, want temperature 0", req["options"])
	}
	if req["model"] != "test-model" {
		t.Errorf("model = %v", req["model"])
	}
	msgs := req["messages"].([]any)
	sys := msgs[0].(map[string]any)["content"].(string)
	for _, s := range []string{"Acme", "notes app", "bug_report (Bug): broken things"} {
		if !strings.Contains(sys, s) {
			t.Errorf("system prompt lacks %q", s)
		}
	}
	if strings.Contains(sys, "testimonial") {
		t.Error("system prompt offers a disabled category")
	}
	if o.Fallbacks() != 0 {
		t.Errorf("Fallbacks = %d", o.Fallbacks())
	}
}

func TestOllamaFallbacks(t *testing.T) {
	tests := []struct {
		name      string
		reply     func(int) (int, string)
		calls     int // requests expected
		fallback  bool
		wantCat   string
		timeout   time.Duration
		delay     time.Duration
		wantInTok int
	}{
		{"malformed JSON", func(int) (int, string) { return 200, "Sure! Here is the JSON: {category: bug" }, 3, true, "", 0, 0, 1200},
		{"enum violation", func(int) (int, string) {
			return 200, `{"category":"rant","sentiment":"negative","urgency":5,"ai_summary":"x","is_relevant":true}`
		}, 3, true, "", 0, 0, 1200},
		{"missing field", func(int) (int, string) { return 200, `{"category":"other","sentiment":"neutral"}` }, 3, true, "", 0, 0, 1200},
		{"disabled category is filed as other, not asked again", func(int) (int, string) {
			return 200, `{"category":"testimonial","sentiment":"positive","urgency":5,"ai_summary":"x","is_relevant":true}`
		}, 1, false, "other", 0, 0, 400},
		{"urgency out of range", func(int) (int, string) {
			return 200, `{"category":"other","sentiment":"neutral","urgency":900,"ai_summary":"x","is_relevant":true}`
		}, 3, true, "", 0, 0, 1200},
		{"server error then success", func(n int) (int, string) {
			if n == 0 {
				return 500, "boom"
			}
			return 200, goodAnswer
		}, 2, false, "bug_report", 0, 0, 400},
		{"model not found is not retried", func(int) (int, string) { return 404, "model 'x' not found" }, 1, true, "", 0, 0, 0},
		{"persistent 503", func(int) (int, string) { return 503, "overloaded" }, 3, true, "", 0, 0, 0},
		// A server that does not answer in time is not asked again: one
		// timeout opens the circuit breaker (TestOllamaCircuitBreaker).
		{"timeout", func(int) (int, string) { return 200, goodAnswer }, 1, true, "", 50 * time.Millisecond, time.Second, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, tc.reply)
			f.delay = tc.delay
			o := NewOllama(OllamaConfig{Host: srv.URL, Model: "m", Timeout: tc.timeout, HTTPClient: srv.Client(), PricePer1KInput: 1})
			cats := []CategoryInfo{{Category: "bug_report", Enabled: true}, {Category: "testimonial", Enabled: false}}
			r, err := o.Classify(context.Background(), Input{Text: "The Acme app crashes on start", Categories: cats})
			if err != nil {
				t.Fatal(err)
			}
			if got := f.count(); got != tc.calls {
				t.Errorf("requests = %d, want %d", got, tc.calls)
			}
			if tc.fallback {
				if r.Classifier != "builtin(fallback)" || o.Fallbacks() != 1 {
					t.Errorf("Classifier %q, Fallbacks %d; want builtin(fallback), 1", r.Classifier, o.Fallbacks())
				}
				if r.Category == "" || r.Summary == "" {
					t.Errorf("fallback result incomplete: %+v", r)
				}
			} else if r.Classifier != "ollama:m" || r.Category != tc.wantCat || o.Fallbacks() != 0 {
				t.Errorf("got %+v, fallbacks %d", r, o.Fallbacks())
			}
			if r.InputTokens != tc.wantInTok || r.CostUSD != float64(tc.wantInTok)/1000 {
				t.Errorf("tokens %d cost %v, want %d tokens", r.InputTokens, r.CostUSD, tc.wantInTok)
			}
		})
	}
}

func TestOllamaBoundedConcurrency(t *testing.T) {
	f, srv := newFake(t, func(int) (int, string) { return 200, goodAnswer })
	f.delay = 20 * time.Millisecond
	o := NewOllama(OllamaConfig{Host: srv.URL, Concurrency: 2, HTTPClient: srv.Client()})
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := o.Classify(context.Background(), Input{Text: "x"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if m := f.maxIn.Load(); m > 2 {
		t.Errorf("%d requests in flight, limit 2", m)
	}
	if o.Calls() != 10 {
		t.Errorf("Calls = %d", o.Calls())
	}
}

func TestOllamaCancelledContext(t *testing.T) {
	_, srv := newFake(t, func(int) (int, string) { return 200, goodAnswer })
	o := NewOllama(OllamaConfig{Host: srv.URL, HTTPClient: srv.Client()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Classify(ctx, Input{Text: "x"}); err == nil {
		t.Error("want an error for a cancelled context")
	}
}

func TestOllamaSummaryCleaned(t *testing.T) {
	long := strings.Repeat("very long summary ", 30)
	_, srv := newFake(t, func(int) (int, string) {
		b, _ := json.Marshal(map[string]any{"category": "other", "sentiment": "neutral", "urgency": 1, "ai_summary": "<b>line</b>\n" + long, "is_relevant": true})
		return 200, string(b)
	})
	o := NewOllama(OllamaConfig{Host: srv.URL, HTTPClient: srv.Client()})
	r, _ := o.Classify(context.Background(), Input{Text: "x"})
	if strings.ContainsAny(r.Summary, "<>\n") || len([]rune(r.Summary)) > MaxSummaryRunes {
		t.Errorf("summary not cleaned: %q", r.Summary)
	}
}

// The variables behind Config are read and checked by main
// (TestClassifierVariables there); this is what each Config builds.
func TestNew(t *testing.T) {
	// The default is auto: with no Ollama answering, the built-in
	// classifier (a closed listener stands for "no Ollama here").
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c, err := New(Config{Ollama: OllamaConfig{Host: dead.URL}})
	if err != nil || c.Name() != "builtin" || Describe(c).Mode != "auto" {
		t.Errorf("default: %v %v", c, err)
	}
	if c, _ := New(Config{Kind: "builtin"}); c.Name() != "builtin" || Describe(c).Mode != "builtin" {
		t.Errorf("builtin: %v", c)
	}
	c, err = New(Config{Kind: "ollama", Ollama: OllamaConfig{Host: "10.0.0.5", PricePer1KInput: 0.1}})
	if err != nil || c.Name() != "ollama:"+DefaultOllamaModel {
		t.Fatalf("ollama: %v %v", c, err)
	}
	if o := c.(*Ollama); o.cfg.PricePer1KInput != 0.1 || parseOllamaHost(o.cfg.Host).String() != "http://10.0.0.5:11434" {
		t.Errorf("config %+v", o.cfg)
	}
	c, _ = New(Config{Kind: "ollama", Ollama: OllamaConfig{Model: "qwen3:4b"}})
	if c.Name() != "ollama:qwen3:4b" {
		t.Errorf("model: %s", c.Name())
	}
	if _, err := New(Config{Kind: "gpt"}); err == nil {
		t.Error("New accepted an unknown kind")
	}
}

// Text given on its own (`earshot classify`) that names no brand term is
// not relevant, even when the model says it is.
func TestOllamaUnsourcedNeedsABrandTerm(t *testing.T) {
	_, srv := newFake(t, func(int) (int, string) { return 200, goodAnswer })
	o := NewOllama(OllamaConfig{Host: srv.URL, HTTPClient: srv.Client()})
	for _, tc := range []struct {
		text string
		want bool
	}{{"hi Zentro, great weather", false}, {"Acme sync fails after the update", true}} {
		r, err := o.Classify(context.Background(), Input{Text: tc.text, Keywords: []string{"Acme"}, Project: Project{Name: "Acme Projects"}, Unsourced: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.IsRelevant != tc.want || !tc.want && r.RelevanceReason == "" {
			t.Errorf("%q: relevant %v (%q), want %v", tc.text, r.IsRelevant, r.RelevanceReason, tc.want)
		}
	}
}
