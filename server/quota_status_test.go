package server_test

import (
	"context"
	"testing"
	"time"

	"earshot/store"
)

// Issue 23: a source whose new posts the quota drops says so in
// source_status (quota_reached, with the count) until a scan stores a new
// post again; the count stays for the period.
func TestSourceStatusQuotaReached(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A", "keywords": []string{"acme"}, "sources": []string{"hn", "reddit"}}).ok().data()
	id := m["id"].(string)
	scan := func(at time.Time, newPosts, dropped int) {
		t.Helper()
		ok := at
		rec := store.SourceRecord{MonitorID: id, Source: "hn", Status: "ok", LastOKAt: &ok, Scans: 1}
		if err := e.st.SaveSourceResult(ctx, rec, &store.ScanRecord{MonitorID: id, Source: "hn", StartedAt: at, FinishedAt: at,
			Fetched: newPosts + dropped, Matched: newPosts + dropped, New: newPosts, DroppedQuota: dropped}, nil); err != nil {
			t.Fatal(err)
		}
	}
	hn := func() map[string]any {
		t.Helper()
		for _, s := range e.do("GET", "/api/v1/monitors/"+id, e.keyA, nil).ok().data()["source_status"].([]any) {
			if s := s.(map[string]any); s["source"] == "hn" {
				return s
			}
		}
		t.Fatal("no hn in source_status")
		return nil
	}
	now := time.Now().UTC()
	scan(now.Add(-2*time.Second), 3, 0)
	if s := hn(); s["status"] != "ok" || s["quota_dropped"] != nil {
		t.Fatalf("before any drop: %v", s)
	}
	scan(now.Add(-time.Second), 0, 4)
	if s := hn(); s["status"] != "quota_reached" || s["quota_dropped"] != float64(4) {
		t.Fatalf("after a drop: %v", s)
	}
	scan(now, 2, 0) // the plan was raised: new posts are stored again
	if s := hn(); s["status"] != "ok" || s["quota_dropped"] != float64(4) {
		t.Fatalf("after a stored post: %v", s)
	}
}
