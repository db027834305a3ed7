package server_test

import (
	"encoding/csv"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestSortByUrgency: sort=urgency pages most urgent first, newest first
// among equals, every mention once; its cursors are bound to the order;
// export_mentions takes the same sort; sync mode refuses it.
func TestSortByUrgency(t *testing.T) {
	e := newEnv(t)
	end := time.Now().UTC().Add(-time.Minute)
	e.seedMentions(e.projA, nil, 40, end, func(i int, m *store.NewMention) {
		m.Urgency = []int{10, 90, 50, 90, 0}[i%5]
		m.Sentiment = []string{"negative", "neutral"}[i%2]
	})
	e.seedMentions(e.projB, nil, 10, end, func(i int, m *store.NewMention) { m.Urgency = 100 })
	check := func(query string, wantN int) []map[string]any {
		t.Helper()
		got := listAll(t, e, e.keyA, query, 3, nil)
		if len(got) != wantN {
			t.Fatalf("%s: %d mentions, want %d", query, len(got), wantN)
		}
		seen := map[string]bool{}
		for i, m := range got {
			if seen[m["id"].(string)] {
				t.Fatalf("%s: %s twice", query, m["id"])
			}
			seen[m["id"].(string)] = true
			if i == 0 {
				continue
			}
			prev := got[i-1]
			pu, u := prev["urgency"].(float64), m["urgency"].(float64)
			if u > pu || u == pu && m["published_at"].(string) > prev["published_at"].(string) {
				t.Fatalf("%s: row %d (urgency %v, %v) after (urgency %v, %v)", query, i, u, m["published_at"], pu, prev["published_at"])
			}
		}
		return got
	}
	all := check("sort=urgency", 40)
	if all[0]["urgency"].(float64) != 90 || all[39]["urgency"].(float64) != 0 {
		t.Fatalf("first %v last %v", all[0]["urgency"], all[39]["urgency"])
	}
	check("sort=urgency&sentiment=negative", 20)
	check("sort=urgency&min_urgency=50&date_preset=last_7_days", 24)
	// newest is the default, spelled out or not
	newest := listAll(t, e, e.keyA, "sort=newest", 7, nil)
	def := listAll(t, e, e.keyA, "", 7, nil)
	if strings.Join(ids(newest), ",") != strings.Join(ids(def), ",") || newest[0]["published_at"].(string) < newest[1]["published_at"].(string) {
		t.Fatal("sort=newest differs from the default order")
	}
	// A cursor of one order is refused by the other.
	d := e.do("GET", "/api/v1/mentions?sort=urgency&limit=2", e.keyA, nil).ok().data()
	c := url.QueryEscape(d["nextCursor"].(string))
	if p := e.do("GET", "/api/v1/mentions?limit=2&cursor="+c, e.keyA, nil).expect(400, "VALIDATION_ERROR").errParam(); p != "cursor" {
		t.Fatalf("param %q", p)
	}
	d = e.do("GET", "/api/v1/mentions?limit=2", e.keyA, nil).ok().data()
	e.do("GET", "/api/v1/mentions?sort=urgency&limit=2&cursor="+url.QueryEscape(d["nextCursor"].(string)), e.keyA, nil).expect(400, "VALIDATION_ERROR")
	// The default's cursor works with sort=newest spelled out.
	e.do("GET", "/api/v1/mentions?sort=newest&limit=2&cursor="+url.QueryEscape(d["nextCursor"].(string)), e.keyA, nil).ok()
	e.do("GET", "/api/v1/mentions?sort=oldest", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	if p := e.do("GET", "/api/v1/mentions?sort=urgency&collected_since=2026-01-01T00:00:00Z", e.keyA, nil).expect(400, "VALIDATION_ERROR").errParam(); p != "sort" {
		t.Fatalf("param %q", p)
	}
	// Export in the same order.
	r := e.do("GET", "/api/v1/exports/mentions?sort=urgency", e.keyA, nil)
	recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
	if err != nil || len(recs) != 41 {
		t.Fatalf("export: %d rows, %v", len(recs), err)
	}
	for i, rec := range recs[1:] {
		if rec[0] != all[i]["id"] {
			t.Fatalf("export row %d is %s, list has %s", i, rec[0], all[i]["id"])
		}
	}
}
