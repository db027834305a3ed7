package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// A working source with a note (Bluesky without credentials is live only)
// shows the note on the monitors page.
func TestMonitorsPageShowsOkSourceNote(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	m := &store.Monitor{ProjectID: e.proj.ID, Name: "Brand", Keywords: []string{"Acme"}, QueryMode: "any", Sources: []string{"bluesky", "mastodon"},
		Active: true, ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "my_brand"}
	if err := e.st.CreateMonitor(ctx, m); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	note := "Jetstream (no Bluesky credentials): live only"
	if err := e.st.SaveSourceResult(ctx, store.SourceRecord{MonitorID: m.ID, Source: "bluesky", Status: "ok", Detail: note, LastOKAt: &now, Scans: 1}, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/monitors")
	if !strings.Contains(body, note) || !strings.Contains(body, ">Bluesky<") || !strings.Contains(body, ">Mastodon<") {
		t.Errorf("monitors page lacks the Bluesky note or the source names:\n%s", body)
	}
}

// A degraded source (it read posts and could store none) shows why on the
// monitors page, with the last scan's summary; the new developer sources
// have their names (issue 27).
func TestMonitorsPageShowsDegradedScanSummary(t *testing.T) {
	e, c := ownerClient(t, 0)
	ctx := context.Background()
	m := &store.Monitor{ProjectID: e.proj.ID, Name: "Brand", Keywords: []string{"Acme"}, QueryMode: "any", Sources: []string{"reviews", "github", "stackoverflow", "discourse", "devto"},
		Active: true, ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "my_brand"}
	if err := e.st.CreateMonitor(ctx, m); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	sum := &store.ScanSummary{Read: 50, Skipped: map[string]int{"no date": 50}}
	if err := e.st.SaveSourceResult(ctx, store.SourceRecord{MonitorID: m.ID, Source: "reviews", Status: "degraded", Detail: sum.String(), LastOKAt: &now, Scans: 1, LastScan: sum}, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/monitors")
	for _, want := range []string{"Degraded", "read 50, stored 0, skipped 50: no date", ">GitHub<", ">Stack Overflow<", ">Discourse<", ">DEV<"} {
		if !strings.Contains(body, want) {
			t.Errorf("monitors page lacks %q", want)
		}
	}
}
