package main

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
	"earshot/store"
)

// The demo, end to end below HTTP: prepareDemo seeds a fresh data dir, a
// scheduler runs the real collectors (through demoEnv) against the replay
// server, and mentions from every source (collect.Sources, Bluesky and Mastodon
// included) are stored, classified.
func TestDemoCollectsFromAllSources(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := capability.New(st, capability.Config{BaseURL: "http://127.0.0.1:8080",
		PlanQuotas: map[string]int{"trial": 1000, "starter": 10000, "growth": 50000, "unlimited": 0}}, log)
	replay := httptest.NewServer(collect.NewReplayHandler())
	defer replay.Close()

	info, err := prepareDemo(ctx, svc, replay.URL)
	if err != nil {
		t.Fatal(err)
	}
	if info.Email != "demo@earshot.local" || len(info.Password) < 8 || !strings.HasPrefix(info.APIKey, "esk_") ||
		info.ProjectID == "" || info.DashboardURL != "http://127.0.0.1:8080/" {
		t.Errorf("demo info: %+v", info)
	}
	if _, err := svc.Login(ctx, info.Email, info.Password); err != nil {
		t.Errorf("the printed password does not log in: %v", err)
	}
	if p, err := svc.Authenticate(ctx, info.APIKey, "", ""); err != nil || p.ProjectID != info.ProjectID {
		t.Errorf("the printed API key: %+v %v", p, err)
	}
	if _, err := prepareDemo(ctx, svc, replay.URL); err == nil {
		t.Error("prepareDemo on a seeded data dir succeeded")
	}

	reg := collect.NewRegistry(demoEnv(replay.URL), replay.Client())
	sched := collect.NewScheduler(st, reg, nil, collect.SchedulerConfig{Ledger: st.QuotaLedger(),
		Pipeline: collect.PipelineConfig{QuotaFunc: svc.Quota}}, log, nil)
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
	for _, src := range collect.Sources {
		if bySource[src] == 0 {
			t.Errorf("no mentions from %s", src)
		}
	}
	t.Logf("%d mentions (%d relevant) by source %v, by category %v", len(ms), relevant, bySource, categories)
	if len(categories) < 3 {
		t.Errorf("the demo shows only categories %v", categories)
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
