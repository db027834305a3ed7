package collect

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// A person's corrections teach the project's classifier at once: the next
// post like the corrected ones gets their category and sentiment, in this
// project only.
func TestPipelineLearnsFromCorrections(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	kw := func(m *store.Monitor) { m.Keywords = []string{"Zentrix"} }
	m := f.monitor(t, f.project.ID, kw)
	at := time.Now().Add(-time.Hour)
	probe := "Zentrix courier left the parcel at the neighbour's door again today"

	ctrl := f.newProject(t, "Control")
	cm := f.monitor(t, ctrl.ID, kw)
	if _, err := p.Process(ctx, cm, "hn", []Post{hnPost("probe", probe, at)}); err != nil {
		t.Fatal(err)
	}
	before := mentionByExternalID(t, f.st, ctrl.ID, "hn", "probe")
	if before == nil || before.Category == "misinformation" {
		t.Fatalf("control: %+v", before)
	}

	taught := []string{"Zentrix courier left my parcel with the neighbour", "the Zentrix courier left the parcel at a neighbour's door"}
	var posts []Post
	for i, text := range taught {
		posts = append(posts, hnPost(fmt.Sprint("t", i), text, at))
	}
	if _, err := p.Process(ctx, m, "hn", posts); err != nil {
		t.Fatal(err)
	}
	for i := range taught {
		mn := mentionByExternalID(t, f.st, f.project.ID, "hn", fmt.Sprint("t", i))
		if _, err := f.st.CorrectMention(ctx, f.project.ID, mn.ID, "misinformation", "neutral"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Process(ctx, m, "hn", []Post{hnPost("probe", probe, at)}); err != nil {
		t.Fatal(err)
	}
	mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "probe")
	if mn == nil || mn.Category != "misinformation" || mn.Sentiment != "neutral" || !strings.Contains(mn.CategoryReason, "people filed as misinformation") {
		t.Fatalf("after corrections the probe is %+v", mn)
	}
	// The control project learned nothing.
	if _, err := p.Process(ctx, cm, "hn", []Post{hnPost("probe2", probe+"!", at)}); err != nil {
		t.Fatal(err)
	}
	if c := mentionByExternalID(t, f.st, ctrl.ID, "hn", "probe2"); c == nil || c.Category == "misinformation" {
		t.Errorf("control learned another project's corrections: %+v", c)
	}
}
