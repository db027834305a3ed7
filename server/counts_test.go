package server_test

import (
	"testing"
	"time"

	"earshot/store"
)

// TestViewCountsAndCountMentions: list_views counts each view's mentions
// (capped at 1000 with count_capped), count_mentions counts any filter up
// to its limit, both for the caller's project only.
func TestViewCountsAndCountMentions(t *testing.T) {
	e := newEnv(t)
	e.seedMentions(e.projA, nil, 1003, time.Now(), func(i int, m *store.NewMention) {
		m.Source = map[bool]string{true: "hn", false: "reddit"}[i%100 == 0] // 11 on hn, 10 of them with urgency ≥ 90
		m.Urgency = i % 101
	})
	e.seedMentions(e.projB, nil, 20, time.Now(), func(i int, m *store.NewMention) { m.Source = "hn" })
	for name, filters := range map[string]map[string]any{
		"all":    {},
		"hn":     {"source": "hn"},
		"urgent": {"source": "hn", "min_urgency": 90},
		"none":   {"source": "x"},
	} {
		e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": name, "filters": filters}).ok()
	}
	views := e.do("GET", "/api/v1/views", e.keyA, nil).ok().data()["views"].([]any)
	want := map[string][2]any{"all": {1000.0, true}, "hn": {11.0, false}, "urgent": {10.0, false}, "none": {0.0, false}}
	if len(views) != len(want) {
		t.Fatalf("%d views", len(views))
	}
	for _, v := range views {
		vm := v.(map[string]any)
		w := want[vm["name"].(string)]
		if vm["count"] != w[0] || vm["count_capped"] != w[1] || vm["id"] == nil || vm["filters"] == nil {
			t.Errorf("view %v: count %v capped %v, want %v %v", vm["name"], vm["count"], vm["count_capped"], w[0], w[1])
		}
	}
	for q, w := range map[string][2]any{
		"":                                 {1000.0, true},
		"limit=10000":                      {1003.0, false},
		"source=hn":                        {11.0, false},
		"source=hn&limit=5":                {5.0, true},
		"source=hn&limit=11":               {11.0, false},
		"source=hn&min_urgency=90":         {10.0, false},
		"status=done":                      {0.0, false},
		"search=number%2012&source=reddit": {11.0, false}, // 12, 120-129 (not 1200: 1003 posts)
	} {
		d := e.do("GET", "/api/v1/mention-count?"+q, e.keyA, nil).ok().data()
		if d["count"] != w[0] || d["count_capped"] != w[1] {
			t.Errorf("count_mentions?%s: %v %v, want %v %v", q, d["count"], d["count_capped"], w[0], w[1])
		}
	}
	e.do("GET", "/api/v1/mention-count?limit=0", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mention-count?sort=urgency", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	if d := e.do("GET", "/api/v1/mention-count?source=hn", e.keyB, nil).ok().data(); d["count"] != 20.0 {
		t.Fatalf("tenant B counts %v", d["count"])
	}
}
