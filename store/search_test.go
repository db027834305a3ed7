package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestSearchSemantics: the search grammar (package search) selects the
// same mentions on both backends (SQLite: FTS5 candidates, then
// earshot_match; PostgreSQL: LIKE over text_folded through pg_trgm, then a
// word-boundary regex), as its in-memory Match does, and pages follow the
// list's order (newest first, id breaking ties) whether the search is rare,
// common or shorter than a trigram, before and after the SQLite indexer ran.
func TestSearchSemantics(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	texts := []string{
		"Die Straße ist gesperrt", "STRASSE voll", "ÉCOLE fermée", "une école ouverte",
		"50% off today", "500 off", "a_b test", "axb test", `back\slash`, "backslash",
		"Acme outage again", "ACME OUTAGES", "acme", "ac", "nothing here",
		"routage", "the service outage postmortem", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage",
	}
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	var batch []store.NewMention
	for i := range 120 {
		text := texts[i%len(texts)]
		// Ties in publication time: the id orders them.
		at := base.Add(time.Duration(i/3) * time.Minute)
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprint("s", i), Text: text, PublishedAt: at,
			IsRelevant: true, Category: "other", Sentiment: "neutral"})
	}
	if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := st.IngestMentions(ctx, other.ID, 0, batch[:15]); err != nil {
		t.Fatal(err)
	}
	all := listAll(t, st, store.MentionFilter{ProjectID: p.ID}, 1000)
	cases := map[string][]string{ // search → texts it must find
		"strasse":               {"Die Straße ist gesperrt", "STRASSE voll"},
		"STRAßE":                {"Die Straße ist gesperrt", "STRASSE voll"},
		"école":                 {"ÉCOLE fermée", "une école ouverte"},
		"50":                    {"50% off today", "500 off", "acme.com returns 500s 🔥outage"},
		"a_b":                   {"a_b test"}, // the phrase a b
		`back\slash`:            {`back\slash`},
		"acme":                  {"Acme outage again", "ACME OUTAGES", "acme", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage"},
		"ac":                    {"Acme outage again", "ACME OUTAGES", "acme", "ac", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage"},
		"outage":                {"Acme outage again", "ACME OUTAGES", "the service outage postmortem", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage"},
		"outages":               {"Acme outage again", "ACME OUTAGES", "the service outage postmortem", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage"},
		`"outages"`:             {"ACME OUTAGES"},
		`"service outage"`:      {"the service outage postmortem"},
		"acme -outage":          {"acme"},
		"postmortem OR refund":  {"the service outage postmortem", "refunded in a day; «acme» “outage”…"},
		"acme outage OR refund": {"Acme outage again", "ACME OUTAGES", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage"},
		"(a OR ac) -acme":       {"a_b test", "axb test", "ac"},
		"acme.com":              {"acme.com returns 500s 🔥outage"},
		"500":                   {"500 off", "acme.com returns 500s 🔥outage"},
		"zzqq":                  nil,
		"source:x -zzqq":        texts,
		"source:reddit OR acme": {"Acme outage again", "ACME OUTAGES", "acme", "refunded in a day; «acme» “outage”…", "acme.com returns 500s 🔥outage"},
	}
	check := func(when string) {
		for search, want := range cases {
			var wantIDs []string
			for _, m := range all { // all is in list order
				if slices.Contains(want, m.Text) {
					wantIDs = append(wantIDs, m.ID)
				}
			}
			f := store.MentionFilter{ProjectID: p.ID, Search: search}
			for _, m := range all {
				if f.Match(m) != slices.Contains(wantIDs, m.ID) {
					t.Errorf("%s: Match(%q) on %q = %v, not what the table says", when, search, m.Text, f.Match(m))
				}
			}
			for _, limit := range []int{3, 1000} {
				got := ids(listAll(t, st, f, limit))
				if !slices.Equal(got, wantIDs) {
					t.Errorf("%s: search %q (pages of %d): %d mentions, want %d in list order", when, search, limit, len(got), len(wantIDs))
				}
			}
			n, err := st.CountMentions(ctx, f, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(wantIDs) {
				t.Errorf("%s: count of %q = %d, want %d", when, search, n, len(wantIDs))
			}
			buckets, err := st.MentionCounts(ctx, f, []time.Time{base.Add(-time.Minute), base.Add(20 * time.Minute), base.Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if got := buckets[0].Total + buckets[1].Total; got != len(wantIDs) {
				t.Errorf("%s: stats of %q count %d, want %d", when, search, got, len(wantIDs))
			}
		}
	}
	check("before indexing")
	for {
		n, err := st.IndexSearch(ctx, 50)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if n, err := st.PendingSearch(ctx); err != nil || n != 0 {
		t.Fatalf("pending after indexing: %d %v", n, err)
	}
	check("after indexing")
	// A match's text is the stored text, not the folded one.
	ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: p.ID, Search: "école"}, nil, 1)
	if err != nil || len(ms) != 1 || !strings.Contains(ms[0].Text, "école") && !strings.Contains(ms[0].Text, "ÉCOLE") {
		t.Fatalf("newest école match %v %v", ms, err)
	}
}
