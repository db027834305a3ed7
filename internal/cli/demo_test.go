package cli

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/collect"
	"earshot/internal/replay"
	"earshot/store"
	"earshot/vocab"
)

// The demo, end to end below HTTP: prepareDemo seeds a fresh data dir, a
// scheduler runs the real collectors (through collect.DemoConfig) against the replay
// server, and mentions from every source (vocab.Sources, Bluesky and Mastodon
// included) are stored, classified.
func TestDemoCollectsFromAllSources(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), readyBound)
	defer cancel()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, replay, info := startDemo(t, ctx, st)
	if info.Email != "demo@earshot.local" || len(info.Password) < 8 || !strings.HasPrefix(info.APIKey, "esk_") ||
		info.ProjectID == "" || info.DashboardURL != "http://127.0.0.1:8080/" {
		t.Errorf("demo info: %+v", info)
	}
	if _, err := svc.Login(ctx, info.Email, info.Password, ""); err != nil {
		t.Errorf("the printed password does not log in: %v", err)
	}
	if p, err := svc.Authenticate(ctx, info.APIKey, "", ""); err != nil || p.ProjectID != info.ProjectID {
		t.Errorf("the printed API key: %+v %v", p, err)
	}
	if _, err := prepareDemo(ctx, svc, replay.URL); err == nil {
		t.Error("prepareDemo on a seeded data dir succeeded")
	}

	reg := collect.NewRegistry(demoCollectors(replay.URL), replay.Client())
	sched := collect.NewScheduler(st, reg, nil, collect.SchedulerConfig{Ledger: st.QuotaLedger(),
		Pipeline: collect.PipelineConfig{QuotaFunc: svc.Quota}}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	// The first scan is due at once: one round scans both monitors.
	start := time.Now()
	if n, err := sched.ScanDue(ctx); err != nil || n != 2 {
		t.Fatalf("first round scanned %d monitors: %v", n, err)
	}
	t.Logf("first scan of the demo took %v", time.Since(start).Round(time.Millisecond))

	ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: info.ProjectID}, nil, 10000)
	if err != nil {
		t.Fatal(err)
	}
	bySource := map[string]int{}
	categories := map[string]int{}
	relevant := 0
	for _, m := range ms {
		bySource[m.Source]++
		categories[m.Category]++
		if m.IsRelevant {
			relevant++
		}
		if m.Classifier == "" || m.Sentiment == "" || len(m.MonitorIDs) == 0 {
			t.Errorf("unclassified or unattributed mention: %+v", m)
		}
	}
	for _, src := range vocab.Sources {
		if bySource[src] == 0 {
			t.Errorf("no mentions from %s", src)
		}
	}
	t.Logf("%d mentions (%d relevant) by source %v, by category %v", len(ms), relevant, bySource, categories)
	if len(categories) < 3 {
		t.Errorf("the demo shows only categories %v", categories)
	}
	checkDemoRelevance(t, ms)
	checkDemoKinds(t, ms)

	// One story told in many places: the postmortem link shared on HN,
	// Reddit and X (different spellings of the URL) is one story.
	stories := map[string]map[string]bool{}
	for _, m := range ms {
		if m.StoryID != nil {
			if stories[*m.StoryID] == nil {
				stories[*m.StoryID] = map[string]bool{}
			}
			stories[*m.StoryID][m.Source] = true
		}
	}
	found := false
	for _, srcs := range stories {
		if srcs["hn"] && srcs["reddit"] && srcs["x"] {
			found = true
		}
	}
	if !found {
		t.Errorf("the demo shows no story across HN, Reddit and X: %v", stories)
	}

	mons, err := st.ListMonitors(ctx, info.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mons {
		var got []string
		for _, s := range m.SourceStatus {
			got = append(got, s.Source+"="+s.Status)
			if m.Name == "Acme" && s.Status != "ok" {
				t.Errorf("brand monitor source %s: %s %s %s", s.Source, s.Status, s.Detail, s.LastError)
			}
			if m.Name == "Globex" && (s.Status == "failing" || s.Status == "pending") {
				t.Errorf("competitor monitor source %s: %s %s %s", s.Source, s.Status, s.Detail, s.LastError)
			}
		}
		sort.Strings(got)
		t.Logf("monitor %s: %v", m.Name, got)
	}
}

// checkDemoKinds: the developer sources show more than one kind of post:
// a Stack Overflow answer (from /search/excerpts) besides the questions,
// a GitHub discussion (GraphQL) besides the issues, and a comment of each
// (the comments endpoints) that names the brand.
func checkDemoKinds(t *testing.T, ms []*store.Mention) {
	t.Helper()
	for _, want := range []string{"https://stackoverflow.com/a/78412077", "https://github.com/acme-inc/acme-cli/discussions/77",
		"https://github.com/acme-inc/acme-cli/issues/412#issuecomment-2089000013", "https://stackoverflow.com/a/78412077#comment138200011_78412077"} {
		found := false
		for _, m := range ms {
			found = found || m.URL == want
		}
		if !found {
			t.Errorf("the demo shows no %s", want)
		}
	}
}

// checkDemoRelevance: the demo shows relevance that understands the brand.
// Its recording holds name collisions (another company called Acme, the
// ACME certificate protocol, the cartoon's Acme Corporation, "the acme
// of") and posts by the brand's own accounts and blog: they are stored,
// but not as relevant, each with its reason, while the brand's real
// mentions stay relevant.
func checkDemoRelevance(t *testing.T, ms []*store.Mention) {
	t.Helper()
	byText := func(part string) *store.Mention {
		for _, m := range ms {
			if strings.Contains(m.Text, part) {
				return m
			}
		}
		t.Errorf("no demo mention contains %q", part)
		return nil
	}
	for _, tc := range []struct {
		text     string
		relevant bool
		own      bool
		reason   string
	}{
		{"Acme Brick reports record quarter", false, false, "not relevant: 'Acme Brick' looks like another name"},
		{"Acme Hardware on Main St", false, false, "not relevant: 'Acme Hardware' looks like another name"},
		{"Renewed 40 certs with an ACME client", false, false, "not relevant: 'ACME' in capitals"},
		{"ACME anvils never get old", false, false, "not relevant: 'ACME' in capitals"},
		{"The acme of sourdough", false, false, "not relevant: 'the acme' is the common word"},
		{"TIL the Road Runner Acme Corporation", false, false, "not relevant: 'Acme Corporation' looks like another name"},
		{"To be clear: Acme is not being acquired", false, true, "own post: by @acmehq"},
		{"Show HN: Acme CLI", false, true, "own post: by @acme_eng"},
		{"the fix for long projects ships today", false, true, "own post: by @acme_support"},
		{"What's new in Acme: May release", false, true, "own post: by @Acme"},
		{"Incident report: login outage on May 3", false, true, "own post: published on acme.example"},
		{"We're hiring! Support engineers", false, true, "own post: by LinkedIn organization"},
		{"acme down again??", true, false, "relevant: 'acme' next to 'down'"},
		{"Is @acmehq down?", true, false, "relevant: names @acmehq"},
		{"Acme support got back to me in 6 minutes", true, false, "relevant: 'Acme' next to 'support'"},
		{"Acme 4.2 finally makes timelines usable", true, false, "relevant: 'Acme' with a version number"},
		{"La app Acme llega a M", true, false, "relevant: 'Acme' next to 'app'"},
	} {
		m := byText(tc.text)
		if m == nil {
			continue
		}
		if m.IsRelevant != tc.relevant || m.Own != tc.own || !strings.HasPrefix(m.RelevanceReason, tc.reason) {
			t.Errorf("%q: is_relevant %v, own %v, reason %q; want %v, %v, %q…", tc.text, m.IsRelevant, m.Own, m.RelevanceReason, tc.relevant, tc.own, tc.reason)
		}
	}
	var own, irrelevant int
	for _, m := range ms {
		switch {
		case m.Own:
			own++
		case !m.IsRelevant:
			irrelevant++
		}
		if m.RelevanceReason == "" {
			t.Errorf("%q has no relevance reason", m.Text)
		}
	}
	t.Logf("%d own posts, %d name collisions or other irrelevant posts, %d mentions", own, irrelevant, len(ms))
	for _, m := range ms {
		if !m.IsRelevant && testing.Verbose() {
			t.Logf("  %s %-60.60q %s", m.Source, m.Text, m.RelevanceReason)
		}
	}
	if own < 8 || irrelevant < 12 {
		t.Errorf("the demo shows %d own posts and %d irrelevant ones; want at least 8 and 12", own, irrelevant)
	}
}

// startDemo prepares the demo installation in st as `earshot demo` does:
// the service with the demo's plans, a local replay server of the recorded
// platform responses (closed when t ends), the demo user, project and key.
func startDemo(t *testing.T, ctx context.Context, st *store.Store) (*capability.Service, *httptest.Server, *DemoInfo) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := capability.New(st, capability.Config{BaseURL: "http://127.0.0.1:8080",
		PlanQuotas: map[string]int{"trial": 1000, "starter": 10000, "growth": 50000, "unlimited": 0}}, log)
	replaySrv := httptest.NewServer(replay.NewHandler())
	t.Cleanup(replaySrv.Close)
	info, err := prepareDemo(ctx, svc, replaySrv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return svc, replaySrv, info
}
