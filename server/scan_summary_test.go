package server_test

import (
	"context"
	"testing"
	"time"

	"earshot/store"
)

// Issue 27: source_status carries the last scan's summary over REST (and
// a degraded source says why), and a Google Play review URL is refused
// with what is supported.
func TestSourceStatusLastScanREST(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A", "keywords": []string{"acme"}, "sources": []string{"reviews", "github"}}).ok().data()
	id := m["id"].(string)
	now := time.Now().UTC()
	sum := &store.ScanSummary{Read: 50, Skipped: map[string]int{"no date": 50}}
	if err := e.st.SaveSourceResult(ctx, store.SourceRecord{MonitorID: id, Source: "reviews", Status: "degraded", Detail: sum.String(), LastOKAt: &now, Scans: 1, LastScan: sum},
		&store.ScanRecord{MonitorID: id, Source: "reviews", StartedAt: now, FinishedAt: now, Read: 50, Skipped: sum.Skipped}, nil); err != nil {
		t.Fatal(err)
	}
	var rev map[string]any
	for _, s := range e.do("GET", "/api/v1/monitors/"+id, e.keyA, nil).ok().data()["source_status"].([]any) {
		if s := s.(map[string]any); s["source"] == "reviews" {
			rev = s
		}
	}
	ls, _ := rev["last_scan"].(map[string]any)
	if rev["status"] != "degraded" || ls == nil || ls["summary"] != "read 50, stored 0, skipped 50: no date" || ls["read"] != float64(50) ||
		ls["skipped"] != float64(50) || ls["skip_reasons"].(map[string]any)["no date"] != float64(50) {
		t.Fatalf("reviews status %v", rev)
	}
	r := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "B", "review_urls": []string{"https://play.google.com/store/apps/details?id=com.acme"}})
	if r.status != 400 || r.errCode() != "VALIDATION_ERROR" || r.errParam() != "review_urls[0]" {
		t.Fatalf("play url: %d %s", r.status, r.raw)
	}
}
