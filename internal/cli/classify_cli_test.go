package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func classifyCLI(t *testing.T, in string) (code int, out []map[string]any, raw []string, stderr string) {
	t.Helper()
	var o, e strings.Builder
	// The default classifier is auto; a closed listener stands for "no
	// Ollama on this machine", so the built-in classifier answers.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	env := map[string]string{"OLLAMA_HOST": dead.URL}
	code = run(context.Background(), []string{"classify"}, strings.NewReader(in), &o, &e, func(k string) string { return env[k] })
	for _, l := range strings.Split(strings.TrimRight(o.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line is not JSON: %q", l)
		}
		out, raw = append(out, m), append(raw, l)
	}
	return code, out, raw, e.String()
}

// One output line per input line, in order; a failed line is answered with
// an error line and makes the exit code 1, with a count on stderr. Unknown
// fields and sources are per-line errors; id may be left out.
func TestClassifyCommand(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"a","text":"The app crashes on start","source":"reddit","keywords":["acme"]}`,
		`{"text":"Please add a dark mode to Acme"}`,
		``,
		`{"id":"src","text":"Acme is great","source":"facebook"}`,
		`{"id":"field","txt":"Acme is great"}`,
		`not json`,
		`{"id":7,"text":"Acme is down, outage everywhere","source":"hn"}`,
	}, "\n")
	code, out, raw, stderr := classifyCLI(t, in)
	if code != 1 || !strings.Contains(stderr, "classify: 3 of 6 lines failed") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if len(out) != 6 {
		t.Fatalf("%d output lines for 6 input lines: %q", len(out), raw)
	}
	wantIDs := []any{"a", nil, "src", "field", nil, float64(7)}
	for i, m := range out {
		if id, ok := m["id"]; !ok || id != wantIDs[i] {
			t.Errorf("line %d: id %v, want %v", i+1, m["id"], wantIDs[i])
		}
	}
	for _, i := range []int{0, 1, 5} {
		if out[i]["error"] != nil || out[i]["category"] == nil || out[i]["is_relevant"] == nil {
			t.Errorf("line %d not classified: %s", i+1, raw[i])
		}
	}
	if !strings.HasPrefix(raw[1], `{"id":null,`) {
		t.Errorf("a line without id is answered without \"id\": null: %s", raw[1])
	}
	for i, want := range map[int]string{2: `unknown source "facebook"`, 3: `unknown field "txt"`, 4: "invalid JSON"} {
		if e, _ := out[i]["error"].(string); !strings.Contains(e, want) {
			t.Errorf("line %d: error %q, want %q", i+1, e, want)
		}
	}

	if code, out, _, stderr := classifyCLI(t, `{"id":1,"text":"Acme rocks","source":"x"}`+"\n"+`{"id":2,"text":"hello"}`+"\n"); code != 0 || len(out) != 2 || stderr != "" {
		t.Errorf("all good: exit %d, %d lines, stderr %q", code, len(out), stderr)
	}
}

// Each answer is written before the next line is read, so a pipeline (or a
// human at a terminal) sees results as they come.
func TestClassifyStreams(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"classify"}, inR, outW, io.Discard, func(string) string { return "" })
		outW.Close()
	}()
	answers := bufio.NewScanner(outR)
	for i, line := range []string{`{"id":1,"text":"Acme crashes"}`, `{"id":2,"source":"nope","text":"x"}`, `{"id":3,"text":"Acme is nice"}`} {
		got := make(chan string, 1)
		go func() {
			answers.Scan()
			got <- answers.Text()
		}()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case a := <-got:
			if !strings.HasPrefix(a, `{"id":`+string(rune('1'+i))) {
				t.Errorf("answer %d: %s", i+1, a)
			}
		case <-time.After(readyBound):
			t.Fatalf("no answer to line %d before the next line", i+1)
		}
	}
	inW.Close()
	if code := <-done; code != 1 {
		t.Errorf("exit %d with one failed line", code)
	}
}

// With --classifier ollama, a line Ollama did not answer is still
// classified (by the built-in rules) and stderr says which and why; a bad
// classifier setting is a usage error.
func TestClassifyOllamaFallbackIsReported(t *testing.T) {
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }))
	defer dead.Close()
	env := map[string]string{"OLLAMA_HOST": dead.URL, "EARSHOT_OLLAMA_RETRIES": "0"}
	var o, e strings.Builder
	code := run(context.Background(), []string{"classify", "--classifier", "ollama"}, strings.NewReader(`{"id":1,"text":"Acme crashes on start"}`+"\n"),
		&o, &e, func(k string) string { return env[k] })
	if code != 0 || !strings.Contains(o.String(), `"category"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, o.String(), e.String())
	}
	if !strings.Contains(e.String(), "line 1: ollama failed") || !strings.Contains(e.String(), "built-in classifier") {
		t.Errorf("stderr does not report the fallback: %q", e.String())
	}
	env["EARSHOT_OLLAMA_TIMEOUT"] = "soon"
	o.Reset()
	e.Reset()
	if code := run(context.Background(), []string{"classify", "--classifier", "ollama"}, strings.NewReader(""), &o, &e, func(k string) string { return env[k] }); code != 2 {
		t.Errorf("bad EARSHOT_OLLAMA_TIMEOUT: exit %d, stderr %q", code, e.String())
	}
}

// auto finds a local Ollama and uses it; every output line says which
// classifier answered; --brand, --website and --keywords reach the prompt.
// An Ollama that goes away costs one failed request for a whole batch (the
// circuit breaker), and stderr says so once, not once per line.
func TestClassifyAutoOllamaAndBrand(t *testing.T) {
	var chats atomic.Int32
	var down atomic.Bool
	var prompt atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			if r.URL.Path == "/api/chat" {
				chats.Add(1)
			}
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`)
		case "/api/chat":
			chats.Add(1)
			var req struct{ Messages []struct{ Content string } }
			json.NewDecoder(r.Body).Decode(&req)
			prompt.Store(req.Messages[0].Content)
			answer := `{"category":"complaint","sentiment":"negative","urgency":60,"ai_summary":"Order missing.","is_relevant":true,"category_reason":"never arrived","urgency_reason":"unresolved order"}`
			json.NewEncoder(w).Encode(map[string]any{"model": "llama3.2", "message": map[string]any{"role": "assistant", "content": answer}, "done": true})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := map[string]string{"OLLAMA_HOST": srv.URL}
	var o, e strings.Builder
	code := run(context.Background(), []string{"classify", "--brand", "Acme", "--website", "https://acme.example", "--keywords", "acme,acme shop"},
		strings.NewReader(`{"id":1,"text":"@acme my order never arrived"}`+"\n"), &o, &e, func(k string) string { return env[k] })
	var out map[string]any
	if err := json.Unmarshal([]byte(o.String()), &out); code != 0 || err != nil {
		t.Fatalf("exit %d, %v, stdout %q, stderr %q", code, err, o.String(), e.String())
	}
	if out["classifier"] != "ollama:llama3.2" || out["category"] != "complaint" || out["category_reason"] != "complaint: never arrived" {
		t.Errorf("line %v", out)
	}
	p, _ := prompt.Load().(string)
	for _, s := range []string{"Brand/project: Acme", "Website: https://acme.example", "Monitored keywords: acme, acme shop"} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q", s)
		}
	}
	if !strings.Contains(e.String(), "ollama:llama3.2 classifier") {
		t.Errorf("stderr does not say auto chose Ollama: %q", e.String())
	}

	// Ollama dies: 50 lines cost one request, every line is still answered
	// and says builtin(fallback), stderr reports the reason once and a count.
	down.Store(true)
	before := chats.Load()
	var in strings.Builder
	for i := 0; i < 50; i++ {
		in.WriteString(`{"text":"Acme support never answered"}` + "\n")
	}
	o.Reset()
	e.Reset()
	code = run(context.Background(), []string{"classify", "--classifier", "ollama"}, strings.NewReader(in.String()), &o, &e, func(k string) string { return env[k] })
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if code != 0 || len(lines) != 50 || !strings.Contains(lines[49], `"classifier":"builtin(fallback)"`) {
		t.Fatalf("exit %d, %d lines, last %q", code, len(lines), lines[len(lines)-1])
	}
	if n := chats.Load() - before; n != 1 {
		t.Errorf("%d chat requests reached a dead server, want 1", n)
	}
	if c := strings.Count(e.String(), "answered by the built-in classifier\n"); c > 2 || !strings.Contains(e.String(), "50 of 50 lines answered by the built-in classifier") {
		t.Errorf("stderr: %q", e.String())
	}
}
