package collect

import (
	"context"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestPipelineStoresReasons: the classifier's reasons reach the stored
// mention.
func TestPipelineStoresReasons(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Keywords = []string{"acme.example"} })
	if _, err := p.Process(ctx, m, "hn", []Post{hnPost("1", "acme.example login is broken for everyone", time.Now())}); err != nil {
		t.Fatal(err)
	}
	got := mentionByExternalID(t, f.st, f.project.ID, "hn", "1")
	if got == nil {
		t.Fatal("not stored")
	}
	if !got.IsRelevant || !strings.HasPrefix(got.RelevanceReason, "relevant") {
		t.Errorf("is_relevant %v, relevance_reason %q", got.IsRelevant, got.RelevanceReason)
	}
}
