package collect

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"earshot/store"
)

func newTestPipeline(f *fixture, cfg PipelineConfig) *Pipeline {
	if cfg.ProjectTTL == 0 {
		cfg.ProjectTTL = -1 // read the project (and its triage) on every call
	}
	return NewPipeline(f.st, nil, cfg, quietLog(), nil)
}

func mentionByExternalID(t *testing.T, st *store.Store, projectID, source, id string) *store.Mention {
	t.Helper()
	ms, err := st.ListMentions(context.Background(), store.MentionFilter{ProjectID: projectID, Source: source}, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ExternalID == id {
			return m
		}
	}
	return nil
}

func TestPipelineMatching(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	now := time.Now().Add(-time.Hour)
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Keywords = []string{"Acme", "acme.example"}
		m.ExcludeKeywords = []string{"hiring"}
		m.WatchAccounts = []string{"@acme_team"}
	})
	posts := []Post{
		hnPost("1", "Tried ACME today, nice", now),   // keyword, any case
		hnPost("2", "acmecorp is unrelated", now),    // glued letters: no match
		hnPost("3", "Acme is hiring engineers", now), // excluded
		{Source: "hn", ExternalID: "4", Text: "our release notes are out", AuthorHandle: "Acme_Team", PublishedAt: now}, // watched account
		{Source: "hn", ExternalID: "5", Text: "we are hiring", AuthorHandle: "acme_team", PublishedAt: now},             // watched, but excluded
		hnPost("1", "Tried ACME today, nice", now),                                                                      // repeated in the batch
		hnPost("6", "see https://acme.example/pricing", now),                                                            // domain keyword
	}
	c, err := p.Process(ctx, m, "hn", posts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Fetched != 7 || c.Matched != 3 || c.New != 3 || c.Duplicates != 0 {
		t.Errorf("counts %+v, want fetched 7, matched 3 (1, 4, 6), new 3", c)
	}
	for _, id := range []string{"1", "4", "6"} {
		if mentionByExternalID(t, f.st, f.project.ID, "hn", id) == nil {
			t.Errorf("post %s not stored", id)
		}
	}
	// Review pages are watched: every review is taken, excludes still apply.
	rv := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Keywords = []string{"Globex"}
		m.ExcludeKeywords = []string{"spam"}
		m.ReviewURLs = []string{"https://example.com/reviews"}
	})
	c, err = p.Process(ctx, rv, "reviews", []Post{
		{Source: "reviews", ExternalID: "r1", Text: "Great tool, five stars", PublishedAt: now},
		{Source: "reviews", ExternalID: "r2", Text: "spam spam", PublishedAt: now},
	})
	if err != nil || c.Matched != 1 || c.New != 1 {
		t.Errorf("reviews: %+v %v", c, err)
	}
}

// One post matched by two monitors is one mention listing both monitors,
// counted once against the quota, with one mention.created event.
func TestPipelineDedupeAcrossMonitors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	brand := f.monitor(t, f.project.ID, nil)
	rival := f.monitor(t, f.project.ID, func(m *store.Monitor) { m.Name = "Rival"; m.Keywords = []string{"Globex"} })
	post := hnPost("42", "Switched from Globex to Acme last week, the Acme app is much faster", time.Now().Add(-time.Hour))

	c1, err := p.Process(ctx, brand, "hn", []Post{post})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := p.Process(ctx, rival, "hn", []Post{post})
	if err != nil {
		t.Fatal(err)
	}
	if c1.New != 1 || c2.New != 0 || c2.Duplicates != 1 {
		t.Errorf("first %+v, second %+v", c1, c2)
	}
	mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "42")
	if mn == nil || len(mn.MonitorIDs) != 2 || mn.MonitorIDs[0] != brand.ID || mn.MonitorIDs[1] != rival.ID || *mn.MonitorID != brand.ID {
		t.Fatalf("mention: %+v", mn)
	}
	for _, mid := range []string{brand.ID, rival.ID} {
		ms, _ := f.st.ListMentions(ctx, store.MentionFilter{ProjectID: f.project.ID, MonitorID: mid}, nil, 10)
		if len(ms) != 1 {
			t.Errorf("monitor %s filter finds %d mentions", mid, len(ms))
		}
	}
	u, _ := f.st.Usage(ctx, f.project.ID, store.PeriodStart(time.Now()))
	if u.MentionsUsed != 1 {
		t.Errorf("usage %d, want 1", u.MentionsUsed)
	}
	if evs := f.events(t, "mention.created"); len(evs) != 1 {
		t.Errorf("%d mention.created events, want 1", len(evs))
	}
	// Fetched again by the same monitor: nothing changes.
	c3, _ := p.Process(ctx, brand, "hn", []Post{post})
	if c3.New != 0 || c3.Duplicates != 1 {
		t.Errorf("refetch: %+v", c3)
	}
}

// Quota edges: reaching the quota exactly drops nothing and says nothing;
// the first post over it is dropped (counted) and emits
// usage.quota_reached; later drops in the period emit nothing more.
//
// Drops are never silent: exactly one WARN line per project and period
// (with the project, plan, quota and period), and the source's status says
// quota_reached with the count.
func TestPipelineQuota(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	if err := f.st.SetPlan(ctx, f.project.ID, "starter"); err != nil {
		t.Fatal(err)
	}
	var logBuf syncBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	p := NewPipeline(f.st, nil, PipelineConfig{ProjectTTL: -1, QuotaFunc: func(plan string) int {
		if plan != "starter" {
			t.Errorf("quota asked for plan %q", plan)
		}
		return 3
	}}, log, nil)
	m := f.monitor(t, f.project.ID, nil)
	at := time.Now().Add(-time.Hour)
	batch := func(ids ...int) []Post {
		var out []Post
		for _, id := range ids {
			out = append(out, hnPost(fmt.Sprint(id), fmt.Sprintf("The Acme app release %d is out", id), at))
		}
		return out
	}
	c, err := p.Process(ctx, m, "hn", batch(1, 2, 3))
	if err != nil || c.New != 3 || c.DroppedQuota != 0 {
		t.Fatalf("at quota: %+v %v", c, err)
	}
	if evs := f.events(t, "usage.quota_reached"); len(evs) != 0 {
		t.Errorf("usage.quota_reached at exactly the quota")
	}
	if strings.Contains(logBuf.String(), "quota reached") {
		t.Errorf("a WARN at exactly the quota: %s", logBuf.String())
	}
	c, err = p.Process(ctx, m, "hn", batch(4))
	if err != nil || c.New != 0 || c.DroppedQuota != 1 {
		t.Fatalf("one over: %+v %v", c, err)
	}
	c, err = p.Process(ctx, m, "hn", batch(5, 6, 1))
	if err != nil || c.New != 0 || c.DroppedQuota != 2 || c.Duplicates != 1 {
		t.Fatalf("more over: %+v %v", c, err)
	}
	evs := f.events(t, "usage.quota_reached")
	if len(evs) != 1 {
		t.Fatalf("%d usage.quota_reached events, want 1", len(evs))
	}
	u, _ := f.st.Usage(ctx, f.project.ID, store.PeriodStart(time.Now()))
	if u.MentionsUsed != 3 || u.Dropped != 3 {
		t.Errorf("usage %+v", u)
	}
	// The scan row says how many were dropped.
	hn := &fakeCollector{source: "hn", fetch: func(context.Context, Query) (Batch, error) { return Batch{Posts: batch(7, 8)}, nil }}
	s := NewScheduler(f.st, registryOf(hn), nil, SchedulerConfig{Pipeline: PipelineConfig{QuotaFunc: func(string) int { return 3 }}}, log, nil)
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	scans, _ := f.st.RecentScans(ctx, m.ID, 1)
	if len(scans) != 1 || scans[0].DroppedQuota != 2 || scans[0].Matched != 2 {
		t.Errorf("scan row: %+v", scans)
	}
	// One WARN for the period, however many batches dropped posts.
	var warns []string
	for _, line := range strings.Split(logBuf.String(), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "quota reached") {
			warns = append(warns, line)
		}
	}
	if len(warns) != 1 {
		t.Fatalf("%d quota WARN lines, want 1:\n%s", len(warns), logBuf.String())
	}
	for _, want := range []string{"project_id=" + f.project.ID, "plan=starter", "quota=3", "period_start=" + store.PeriodStart(time.Now())} {
		if !strings.Contains(warns[0], want) {
			t.Errorf("WARN line lacks %q: %s", want, warns[0])
		}
	}
	// The source's status: quota_reached, with the posts its scans dropped.
	got, err := f.st.Monitor(ctx, f.project.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var hnStatus store.SourceStatus
	for _, st := range got.SourceStatus {
		if st.Source == "hn" {
			hnStatus = st
		}
	}
	if hnStatus.Status != "quota_reached" || hnStatus.QuotaDropped != 2 || !strings.Contains(hnStatus.Detail, "2 new posts dropped") {
		t.Errorf("source status %+v", got.SourceStatus)
	}
}

// syncBuffer is a bytes.Buffer a logger may write from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPipelineDisabledCategoryIsOther(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	m := f.monitor(t, f.project.ID, nil)
	text := "The Acme app crashes every time I open the board view, error 500. Please fix this bug"
	if _, err := p.Process(ctx, m, "hn", []Post{hnPost("1", text, time.Now())}); err != nil {
		t.Fatal(err)
	}
	if mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "1"); mn == nil || mn.Category != "bug_report" {
		t.Fatalf("with bug_report enabled: %+v", mn)
	}
	off := false
	if _, err := f.st.UpdateCategory(ctx, f.project.ID, "bug_report", nil, nil, &off); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Process(ctx, m, "hn", []Post{hnPost("2", text, time.Now())}); err != nil {
		t.Fatal(err)
	}
	if mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "2"); mn == nil || mn.Category != "other" {
		t.Fatalf("with bug_report disabled: %+v", mn)
	}
}

// Mentions the team ignored teach the project's relevance model: a new,
// similar post is stored as not relevant and fires no mention.created.
func TestPipelineRelevanceModelFromTriage(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	// A distinctive name: the rules alone take every post naming it, so
	// only triage can teach that the cartoon posts are not about the brand.
	zentrix := func(m *store.Monitor) { m.Keywords = []string{"Zentrix"} }
	m := f.monitor(t, f.project.ID, zentrix)
	at := time.Now().Add(-time.Hour)
	probe := "Watching old cartoons: the Zentrix anvil falls on the coyote again"

	// Control: a project without triage finds the probe relevant.
	ctrl := f.newProject(t, "Control")
	cm := f.monitor(t, ctrl.ID, zentrix)
	if _, err := p.Process(ctx, cm, "hn", []Post{hnPost("probe", probe, at)}); err != nil {
		t.Fatal(err)
	}
	if mn := mentionByExternalID(t, f.st, ctrl.ID, "hn", "probe"); mn == nil || !mn.IsRelevant {
		t.Fatalf("control: %+v", mn)
	}

	cartoons := []string{"Zentrix anvil coyote cartoon roadrunner", "the coyote ordered another Zentrix rocket in the cartoon",
		"Zentrix dynamite cartoon coyote episode", "cartoon coyote Zentrix catalog gag roadrunner", "Zentrix anvil again, poor coyote cartoon"}
	var posts []Post
	for i, text := range cartoons {
		posts = append(posts, hnPost(fmt.Sprint("c", i), text, at))
	}
	posts = append(posts, hnPost("good", "The Zentrix board view is great for our team", at))
	if _, err := p.Process(ctx, m, "hn", posts); err != nil {
		t.Fatal(err)
	}
	for i := range cartoons {
		mn := mentionByExternalID(t, f.st, f.project.ID, "hn", fmt.Sprint("c", i))
		if _, err := f.st.UpdateMentionStatus(ctx, f.project.ID, mn.ID, "ignored"); err != nil {
			t.Fatal(err)
		}
	}
	good := mentionByExternalID(t, f.st, f.project.ID, "hn", "good")
	if _, err := f.st.UpdateMentionStatus(ctx, f.project.ID, good.ID, "reviewed"); err != nil {
		t.Fatal(err)
	}
	before := len(f.events(t, "mention.created"))
	c, err := p.Process(ctx, m, "hn", []Post{hnPost("probe", probe, at)})
	if err != nil || c.New != 1 || c.Irrelevant != 1 {
		t.Fatalf("probe: %+v %v", c, err)
	}
	mn := mentionByExternalID(t, f.st, f.project.ID, "hn", "probe")
	if mn == nil || mn.IsRelevant {
		t.Fatalf("after triage the probe is %+v, want stored and not relevant", mn)
	}
	if after := len(f.events(t, "mention.created")); after != before {
		t.Errorf("an irrelevant mention fired mention.created (%d -> %d)", before, after)
	}
}
