package store_test

import (
	"context"
	"testing"
	"time"

	"earshot/store"
)

func TestRestartCollection(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "r@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	m := &store.Monitor{ProjectID: p.ID, Name: "M", Keywords: []string{"a"}, QueryMode: "any", Sources: []string{"hn"}, GroupName: "custom", Active: true,
		ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := st.CreateMonitor(ctx, m); err != nil {
		t.Fatal(err)
	}
	ok := time.Now()
	if err := st.SaveSourceResult(ctx, store.SourceRecord{MonitorID: m.ID, Source: "hn", State: "12345", Status: "ok", LastOKAt: &ok}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.RestartCollection(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	rec, err := st.SourceState(ctx, m.ID, "hn")
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != "" || rec.LastOKAt != nil || rec.Status != "ok" {
		t.Fatalf("after restart: %+v", rec)
	}
}
