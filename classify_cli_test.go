package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func classifyCLI(t *testing.T, in string) (code int, out []map[string]any, raw []string, stderr string) {
	t.Helper()
	var o, e strings.Builder
	code = run(context.Background(), []string{"classify"}, strings.NewReader(in), &o, &e, func(string) string { return "" })
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
		case <-time.After(10 * time.Second):
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
