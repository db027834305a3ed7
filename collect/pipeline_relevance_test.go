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

// TestPipelineOwnPosts: posts by the own-brand monitors' watched accounts
// and news published on the project's website are stored as own, not
// relevant, with the reason, and fire no mention.created; a competitor
// monitor's watched account is not the project's own.
func TestPipelineOwnPosts(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t) // website https://acme.example
	p := newTestPipeline(f, PipelineConfig{})
	now := time.Now().Add(-time.Hour)
	brand := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Keywords = []string{"Acme Projects", "acme.dev"}
		m.WatchAccounts = []string{"@acmehq"}
		m.Sources = []string{"x", "news"}
	})
	rival := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Name, m.GroupName = "Globex", "competitors"
		m.Keywords = []string{"Globex"}
		m.WatchAccounts = []string{"globexapp"}
		m.Sources = []string{"x"}
	})
	if _, err := p.Process(ctx, brand, "x", []Post{
		{Source: "x", ExternalID: "own", AuthorHandle: "AcmeHQ", Text: "Acme Projects 4.2 is out: timelines for everyone", PublishedAt: now},
		{Source: "x", ExternalID: "fan", AuthorHandle: "pm_jane", Text: "Acme Projects 4.2 timelines are great", PublishedAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	desc := "Acme Projects, the planning app. On Threads: @acme.threads."
	if _, err := f.st.UpdateProject(ctx, f.project.ID, store.ProjectPatch{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Process(ctx, brand, "threads", []Post{
		{Source: "threads", ExternalID: "desc", AuthorHandle: "acme.threads", Text: "Acme Projects 4.2 is live", PublishedAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Process(ctx, rival, "x", []Post{
		{Source: "x", ExternalID: "rival", AuthorHandle: "globexapp", Text: "Globex imports your Acme Projects boards in one click", PublishedAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Process(ctx, brand, "news", []Post{
		{Source: "news", ExternalID: "blog", URL: "https://acme.example/blog/42", AuthorHandle: "Priya N.", Text: "Acme Projects 4.2 release notes", PublishedAt: now},
		{Source: "news", ExternalID: "press", URL: "https://news.example/acme-projects", AuthorHandle: "News Co", Text: "Acme Projects ships timelines", PublishedAt: now},
		{Source: "news", ExternalID: "dev", URL: "https://docs.acme.dev/changelog", AuthorHandle: "", Text: "Acme Projects changelog", PublishedAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		source, id string
		own        bool
		reason     string
	}{
		{"x", "own", true, "own post: by @AcmeHQ"},
		{"threads", "desc", true, "own post: by @acme.threads"},
		{"x", "fan", false, "relevant"},
		{"x", "rival", false, "relevant"},
		{"news", "blog", true, "own post: published on acme.example"},
		{"news", "press", false, "relevant"},
		{"news", "dev", true, "own post: published on acme.dev"},
	} {
		m := mentionByExternalID(t, f.st, f.project.ID, tc.source, tc.id)
		if m == nil {
			t.Errorf("%s/%s not stored", tc.source, tc.id)
			continue
		}
		if m.Own != tc.own || m.IsRelevant == tc.own || !strings.HasPrefix(m.RelevanceReason, tc.reason) {
			t.Errorf("%s/%s: own %v, is_relevant %v, reason %q; want own %v, reason %q…", tc.source, tc.id, m.Own, m.IsRelevant, m.RelevanceReason, tc.own, tc.reason)
		}
	}
	if n := len(f.events(t, "mention.created")); n != 3 {
		t.Errorf("%d mention.created events, want 3 (fan, rival, press; own posts fire none)", n)
	}
}

func TestDescriptionHandles(t *testing.T) {
	got := descriptionHandles("Acme Projects (@acmehq on X, @acme.support on Threads). Mail help@acme.example or ping @acme_eng.")
	want := []string{"acmehq", "acme.support", "acme_eng"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("descriptionHandles = %q, want %q", got, want)
	}
}
