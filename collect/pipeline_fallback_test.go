package collect

import (
	"context"
	"strings"
	"testing"
	"time"

	"earshot/classify"
	"earshot/metrics"
)

// fallbackClassifier answers like the Ollama classifier when the model
// failed: the built-in result, marked as a fallback.
type fallbackClassifier struct{ classify.Builtin }

func (fallbackClassifier) Name() string { return "ollama:test" }

func (f fallbackClassifier) Classify(ctx context.Context, in classify.Input) (classify.Result, error) {
	r, err := f.Builtin.Classify(ctx, in)
	r.Classifier = classify.FallbackName
	r.Reasons = append(r.Reasons, "ollama failed: model output misses a required field")
	return r, err
}

// A post the model failed on is stored with classifier builtin(fallback)
// and counted as a fallback, not as an ok call.
func TestPipelineCountsFallbacks(t *testing.T) {
	f := newFixture(t)
	reg := metrics.New()
	p := NewPipeline(f.st, fallbackClassifier{*classify.NewBuiltin()}, PipelineConfig{ProjectTTL: -1}, quietLog(), reg)
	m := f.monitor(t, f.project.ID, nil)
	if _, err := p.Process(context.Background(), m, "hn", []Post{hnPost("1", "The Acme app crashes on start", time.Now())}); err != nil {
		t.Fatal(err)
	}
	if mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "1"); mn == nil || mn.Classifier != classify.FallbackName {
		t.Fatalf("stored %+v", mn)
	}
	var b strings.Builder
	reg.WriteText(&b)
	if !strings.Contains(b.String(), `earshot_classifier_calls_total{classifier="ollama:test",outcome="fallback"} 1`) {
		t.Errorf("metrics:\n%s", b.String())
	}
}

// panicky is a classifier that panics, as a bug on one odd post would.
type panicky struct{}

func (panicky) Name() string { return "panicky" }
func (panicky) Classify(context.Context, classify.Input) (classify.Result, error) {
	panic("boom")
}

// A classifier that panics does not stop the process: the built-in one
// answers, and if it panics too the post is kept unclassified.
func TestPipelineSurvivesClassifierPanic(t *testing.T) {
	f := newFixture(t)
	p := NewPipeline(f.st, panicky{}, PipelineConfig{ProjectTTL: -1}, quietLog(), nil)
	m := f.monitor(t, f.project.ID, nil)
	if _, err := p.Process(context.Background(), m, "hn", []Post{hnPost("1", "The Acme app crashes on start", time.Now())}); err != nil {
		t.Fatal(err)
	}
	if mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "1"); mn == nil || mn.Classifier != classify.FallbackName {
		t.Fatalf("after a panic: %+v", mn)
	}
	p.fallback = panicky{}
	if _, err := p.Process(context.Background(), m, "hn", []Post{hnPost("2", "The Acme app crashes on start", time.Now())}); err != nil {
		t.Fatal(err)
	}
	if mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "2"); mn == nil || mn.Classifier != "none" || mn.Category != "other" {
		t.Fatalf("after two panics: %+v", mn)
	}
}
