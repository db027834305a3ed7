package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// earshot eval scores the built-in classifier on a labelled CSV: per-class
// P/R/F1 and a confusion table for each labelled task, and time and cost.
func TestEvalBuiltinCSV(t *testing.T) {
	code, out, errs := runCLI(t, nil, "eval", "--file", "internal/cli/testdata/eval/posts.csv", "--keywords", "Acme", "--ollama", "off")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"earshot eval: 6 labelled posts",
		"sentiment (n=5)", "category (n=5)", "relevant (n=6)",
		"builtin P/R/F1", "complaint", "sentiment, builtin confusion (rows gold, columns predicted):",
		"time and cost:", "no calls, no tokens, $0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ollama") {
		t.Errorf("--ollama off still scored Ollama:\n%s", out)
	}
}

// With an Ollama (a fake one here), both are scored side by side, with the
// calls and tokens Ollama cost; --json prints the same as JSON.
func TestEvalOllamaSideBySideJSON(t *testing.T) {
	var chats atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`)
		case "/api/chat":
			chats.Add(1)
			// A classifier that calls everything a complaint.
			answer := `{"category":"complaint","sentiment":"negative","urgency":60,"ai_summary":"x","is_relevant":true,"category_reason":"r","urgency_reason":"u"}`
			json.NewEncoder(w).Encode(map[string]any{"model": "llama3.2", "message": map[string]any{"role": "assistant", "content": answer},
				"done": true, "prompt_eval_count": 100, "eval_count": 20})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	env := map[string]string{"OLLAMA_HOST": srv.URL}
	code, out, errs := runCLI(t, env, "eval", "--file", "internal/cli/testdata/eval/posts.jsonl", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var got evalOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Posts != 3 || len(got.Classifiers) != 2 || got.Classifiers[0].Classifier != "builtin" || got.Classifiers[1].Classifier != "ollama:llama3.2" {
		t.Fatalf("classifiers %+v", got)
	}
	b, o := got.Classifiers[0], got.Classifiers[1]
	if o.Calls != 3 || chats.Load() != 3 || o.InputTokens != 300 || o.OutputTokens != 60 {
		t.Errorf("ollama cost: calls %d (server saw %d), tokens %d/%d", o.Calls, chats.Load(), o.InputTokens, o.OutputTokens)
	}
	if b.Calls != 0 || b.InputTokens != 0 {
		t.Errorf("builtin cost %+v", b)
	}
	// The fake calls everything a complaint: category accuracy 1/2, and
	// the off-topic post relevant (relevance accuracy 0); builtin gets both
	// categories and the relevance right.
	if oc := o.Tasks["category"]; oc.N != 2 || oc.Accuracy != 0.5 {
		t.Errorf("ollama category %+v", oc)
	}
	if orel := o.Tasks["relevant"]; orel.N != 1 || orel.Accuracy != 0 {
		t.Errorf("ollama relevance %+v", orel)
	}
	if bc, br := b.Tasks["category"], b.Tasks["relevant"]; bc.Accuracy != 1 || br.Accuracy != 1 {
		t.Errorf("builtin category %+v relevance %+v", bc, br)
	}
	// Classes that occur (in the labels or any answer), the same for both.
	if l, c := o.Tasks["category"].Labels, o.Tasks["category"].Confuse; strings.Join(l, ",") != "complaint,testimonial" || c[1][0] != 1 || c[1][1] != 0 {
		t.Errorf("ollama confusion %v %v", l, c)
	}

	// The text form puts them side by side.
	code, out, errs = runCLI(t, env, "eval", "--file", "internal/cli/testdata/eval/posts.jsonl")
	if code != 0 || !strings.Contains(out, "builtin P/R/F1") || !strings.Contains(out, "ollama:llama3.2 P/R/F1") || !strings.Contains(out, "3 calls, 0 fallbacks, 300 input + 60 output tokens") {
		t.Errorf("exit %d, stderr %q, out:\n%s", code, errs, out)
	}
}

// Bad input is a usage error (exit 2) that names the row.
func TestEvalBadInput(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"text,category\nhello,praise\n", `row 2: unknown category "praise"`},
		{"category\ncomplaint\n", `no "text" column`},
		{"text,relevant\nhello,maybe\n", `relevant must be true or false`},
		{"text\nhello\n", "no label"},
	} {
		var o, e strings.Builder
		code := run(context.Background(), []string{"eval", "--file", "-", "--format", "csv", "--ollama", "off"}, strings.NewReader(tc.in), &o, &e, func(string) string { return "" })
		if code != 2 || !strings.Contains(e.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.in, code, e.String(), tc.want)
		}
	}
	if code, _, errs := runCLI(t, nil, "eval"); code != 2 || !strings.Contains(errs, "--file is required") {
		t.Errorf("no --file: exit %d, %q", code, errs)
	}
}
