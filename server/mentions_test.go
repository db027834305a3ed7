package server_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

func listAll(t *testing.T, e *env, token, query string, limit int, between func(page int)) []map[string]any {
	t.Helper()
	var out []map[string]any
	cursor := ""
	for page := 0; ; page++ {
		q := query
		if q != "" {
			q += "&"
		}
		q += fmt.Sprintf("limit=%d", limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		d := e.do("GET", "/api/v1/mentions?"+q, token, nil).ok().data()
		items := d["items"].([]any)
		if len(items) > limit {
			t.Fatalf("page of %d > limit %d", len(items), limit)
		}
		for _, it := range items {
			out = append(out, it.(map[string]any))
		}
		if d["hasMore"] != true {
			if d["nextCursor"] != nil {
				t.Fatalf("nextCursor %v with hasMore false", d["nextCursor"])
			}
			return out
		}
		cursor = d["nextCursor"].(string)
		if between != nil {
			between(page)
		}
		if page > 10000 {
			t.Fatal("paging does not end")
		}
	}
}

func ids(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it["id"].(string)
	}
	return out
}

func TestMentionPagingVisitsEveryRowOnce(t *testing.T) {
	e := newEnv(t)
	end := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	seeded := e.seedMentions(e.projA, nil, 60, end, func(i int, m *store.NewMention) {
		if i%3 == 0 { // ties on published_at
			m.PublishedAt = end.Add(-time.Duration(i/3) * time.Hour)
		}
	})
	want := map[string]bool{}
	for _, m := range seeded {
		want[m.ID] = true
	}
	for _, limit := range []int{1, 3, 100} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			n := 0
			got := listAll(t, e, e.keyA, "", limit, func(page int) {
				if page%5 == 0 { // rows newer and older than the walk arrive mid-walk
					n++
					e.seedMentions(e.projA, nil, 2, end.Add(time.Duration(limit*1000+n)*time.Hour), func(i int, m *store.NewMention) {
						m.ExternalID = fmt.Sprintf("mid-%d-%d-%d", limit, n, i)
						if i == 1 {
							m.PublishedAt = end.Add(-1000 * time.Hour)
						}
					})
				}
			})
			seen := map[string]bool{}
			for i, it := range got {
				id := it["id"].(string)
				if seen[id] {
					t.Fatalf("row %s visited twice", id)
				}
				seen[id] = true
				if i > 0 { // newest first by (published_at, id)
					prev := got[i-1]
					if prev["published_at"].(string) < it["published_at"].(string) ||
						(prev["published_at"] == it["published_at"] && prev["id"].(string) < id) {
						t.Fatalf("order broken at %d", i)
					}
				}
			}
			for id := range want {
				if !seen[id] {
					t.Fatalf("row %s never visited", id)
				}
			}
		})
	}
}

func TestMentionFilters(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	mon := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "M1", "keywords": []string{"acme"}}).ok().data()["id"].(string)
	mon2 := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "M2", "keywords": []string{"acme"}}).ok().data()["id"].(string)
	now := time.Now().UTC()
	sources := []string{"x", "reddit", "hn", "news"}
	cats := []string{"bug_report", "complaint", "testimonial", "other"}
	sents := []string{"positive", "neutral", "negative"}
	all := e.seedMentions(e.projA, []string{mon}, 120, now.Add(-time.Minute), func(i int, m *store.NewMention) {
		m.Source = sources[i%4]
		m.Category = cats[(i/4)%4]
		m.Sentiment = sents[i%3]
		m.Urgency = (i * 7) % 101
		m.AuthorHandle = fmt.Sprintf("author%d", i%5)
		m.PublishedAt = now.Add(-time.Duration(i)*6*time.Hour - 30*time.Minute) // 30 days, off the preset boundaries
		m.IsRelevant = i%10 != 0
		if i%2 == 0 {
			m.MonitorIDs = []string{mon2, mon}
		}
	})
	// another tenant's mentions never appear
	e.seedMentions(e.projB, nil, 30, now, nil)
	for i, m := range all[:10] {
		st := []string{"reviewed", "done", "ignored"}[i%3]
		if _, err := e.st.UpdateMentionStatus(ctx, e.projA.ID, m.ID, st); err != nil {
			t.Fatal(err)
		}
	}
	// expected results computed from the seeded rows, not from the API
	type pred func(m *store.Mention) bool
	ref := map[string]*store.Mention{}
	for _, m := range all {
		ref[m.ID] = m
	}
	status := map[string]string{}
	for i, m := range all[:10] {
		status[m.ID] = []string{"reviewed", "done", "ignored"}[i%3]
	}
	statusOf := func(m *store.Mention) string {
		if s, ok := status[m.ID]; ok {
			return s
		}
		return "new"
	}
	cases := []struct {
		query string
		p     pred
	}{
		{"", func(*store.Mention) bool { return true }},
		{"source=x", func(m *store.Mention) bool { return m.Source == "x" }},
		{"category=complaint", func(m *store.Mention) bool { return m.Category == "complaint" }},
		{"sentiment=negative", func(m *store.Mention) bool { return m.Sentiment == "negative" }},
		{"status=new", func(m *store.Mention) bool { return statusOf(m) == "new" }},
		{"status=ignored", func(m *store.Mention) bool { return statusOf(m) == "ignored" }},
		{"min_urgency=70", func(m *store.Mention) bool { return m.Urgency >= 70 }},
		{"max_urgency=20", func(m *store.Mention) bool { return m.Urgency <= 20 }},
		{"min_urgency=30&max_urgency=40", func(m *store.Mention) bool { return m.Urgency >= 30 && m.Urgency <= 40 }},
		{"author_handle=author3", func(m *store.Mention) bool { return m.AuthorHandle == "author3" }},
		{"author_handle=%40author3", func(m *store.Mention) bool { return m.AuthorHandle == "author3" }},
		{"monitor_id=" + mon2, func(m *store.Mention) bool { return len(m.MonitorIDs) == 2 }},
		{"monitor_id=" + mon, func(m *store.Mention) bool { return true }},
		{"is_relevant=false", func(m *store.Mention) bool { return !m.IsRelevant }},
		{"date_preset=last_7_days", func(m *store.Mention) bool { return m.PublishedAt >= store.FormatTime(now.AddDate(0, 0, -7)) }},
		{"date_preset=last_24_hours", func(m *store.Mention) bool { return m.PublishedAt >= store.FormatTime(now.Add(-24*time.Hour)) }},
		{"since=" + url.QueryEscape(store.FormatTime(now.AddDate(0, 0, -3))) + "&until=" + url.QueryEscape(store.FormatTime(now.AddDate(0, 0, -1))),
			func(m *store.Mention) bool {
				return m.PublishedAt >= store.FormatTime(now.AddDate(0, 0, -3)) && m.PublishedAt < store.FormatTime(now.AddDate(0, 0, -1))
			}},
		{"date_preset=last_24_hours&since=" + url.QueryEscape(store.FormatTime(now.AddDate(0, 0, -2))), // since overrides the preset
			func(m *store.Mention) bool { return m.PublishedAt >= store.FormatTime(now.AddDate(0, 0, -2)) }},
		{"source=reddit&sentiment=positive&min_urgency=50", func(m *store.Mention) bool {
			return m.Source == "reddit" && m.Sentiment == "positive" && m.Urgency >= 50
		}},
		{"category=bug_report&status=new&monitor_id=" + mon2, func(m *store.Mention) bool {
			return m.Category == "bug_report" && statusOf(m) == "new" && len(m.MonitorIDs) == 2
		}},
		{"search=NUMBER+1", func(m *store.Mention) bool { return strings.Contains(strings.ToLower(m.Text), "number 1") }},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			got := listAll(t, e, e.keyA, c.query, 7, nil)
			var want []string
			for _, m := range all {
				if c.p(m) {
					want = append(want, m.ID)
				}
			}
			gotIDs := ids(got)
			sort.Strings(want)
			sort.Strings(gotIDs)
			if strings.Join(want, ",") != strings.Join(gotIDs, ",") {
				t.Fatalf("%s: got %d rows, want %d", c.query, len(gotIDs), len(want))
			}
			if len(want) == 0 && c.query != "" {
				t.Fatalf("filter %s selects nothing: the test proves nothing", c.query)
			}
		})
	}
	// a deleted monitor's mentions are still found by monitor_id
	e.do("DELETE", "/api/v1/monitors/"+mon2, e.keyA, nil).ok()
	if n := len(listAll(t, e, e.keyA, "monitor_id="+mon2, 100, nil)); n != 60 {
		t.Fatalf("deleted monitor: %d mentions", n)
	}
	// another tenant's monitor id is not found
	bm := e.do("POST", "/api/v1/monitors", e.keyB, map[string]any{"name": "B", "keywords": []string{"x"}}).ok().data()["id"].(string)
	e.do("GET", "/api/v1/mentions?monitor_id="+bm, e.keyA, nil).expect(404, "NOT_FOUND")
	// B sees only its own 30
	if n := len(listAll(t, e, e.keyB, "", 100, nil)); n != 30 {
		t.Fatalf("tenant B sees %d", n)
	}
	// bad parameter values
	for _, q := range []string{"limit=0", "limit=101", "min_urgency=-1", "max_urgency=101", "min_urgency=50&max_urgency=10", "source=myspace",
		"date_preset=yesterday", "since=last-week", "status=open", "monitor_id=abc", "unknown=1", "limit=abc"} {
		e.do("GET", "/api/v1/mentions?"+q, e.keyA, nil).expect(400, "VALIDATION_ERROR")
	}
}

func TestMentionCursorMisuse(t *testing.T) {
	e := newEnv(t)
	e.seedMentions(e.projA, nil, 10, time.Now(), nil)
	e.seedMentions(e.projB, nil, 10, time.Now(), nil)
	d := e.do("GET", "/api/v1/mentions?limit=2&source=reddit", e.keyA, nil).ok().data()
	c := d["nextCursor"].(string)
	e.do("GET", "/api/v1/mentions?limit=2&source=reddit&cursor="+url.QueryEscape(c), e.keyA, nil).ok()
	// other filters
	r := e.do("GET", "/api/v1/mentions?limit=2&source=x&cursor="+url.QueryEscape(c), e.keyA, nil).expect(400, "VALIDATION_ERROR")
	if r.errParam() != "cursor" {
		t.Fatalf("param %q", r.errParam())
	}
	// another project
	e.do("GET", "/api/v1/mentions?limit=2&source=reddit&cursor="+url.QueryEscape(c), e.keyB, nil).expect(400, "VALIDATION_ERROR")
	// tampered
	b := []byte(c)
	b[len(b)/2] ^= 1
	e.do("GET", "/api/v1/mentions?limit=2&source=reddit&cursor="+url.QueryEscape(string(b)), e.keyA, nil).expect(400, "VALIDATION_ERROR")
	e.do("GET", "/api/v1/mentions?cursor=garbage", e.keyA, nil).expect(400, "VALIDATION_ERROR")
	// a different page size is fine
	e.do("GET", "/api/v1/mentions?limit=5&source=reddit&cursor="+url.QueryEscape(c), e.keyA, nil).ok()
}

func TestMentionSearch(t *testing.T) {
	e := newEnv(t)
	texts := []string{
		"Acme's (new) plan costs $5.99+tax?", "50% off at ACME today", "snake_case_name in acme config", `she said "acme is great"`,
		"Ünïcödé ÉCOLE and café", "love it 🎉🎉 acme", "a.b*c+d[e]", "a_b", "tiny x", "Straße naïve",
		"the checkout keeps failing at step two", "keeps failing checkout, the step two",
	}
	var seeded []*store.Mention
	for i, text := range texts {
		ms := e.seedMentions(e.projA, nil, 1, time.Now().Add(-time.Duration(i)*time.Minute), func(_ int, m *store.NewMention) {
			m.Text = text
			m.ExternalID = fmt.Sprintf("s%d", i)
		})
		seeded = append(seeded, ms...)
	}
	e.seedMentions(e.projB, nil, 1, time.Now(), func(_ int, m *store.NewMention) { m.Text = "acme in project b" })
	// The grammar (package search): words are letters and digits, each a
	// word prefix after an English ending is dropped; punctuation joins
	// words into a phrase; "quotes", -, OR, parentheses, fields.
	cases := map[string][]int{
		"$5.99+tax?": {0}, "(new)": {0}, "50%": {1}, "snake_case": {2}, `"acme is"`: {3}, "acme's": {0},
		"école": {4}, "CAFÉ": {4}, "b*c+d[": {6}, "a_b": {6, 7}, "x": {8}, "ti": {8},
		"acme": {0, 1, 2, 3, 5}, "ACME": {0, 1, 2, 3, 5}, "naïve": {9}, "nothing-here": {},
		"checkout keeps failing": {10, 11}, `"checkout keeps failing"`: {10}, "keeps failing": {10, 11},
		`"the step two"`: {11}, "checkouts": {10, 11}, "acme -config -great": {0, 1, 5},
		"café OR naïve": {4, 9}, "acme (plan OR today)": {0, 1}, "-acme -x": {4, 6, 7, 9, 10, 11},
		"source:reddit acme": {0, 1, 2, 3, 5}, "source:x acme": {}, "author:nobody": {},
	}
	for _, phase := range []string{"pending", "indexed"} {
		if phase == "indexed" {
			// PostgreSQL has no search queue (its trigram index is written
			// with the row): both phases are the same there.
			want := len(texts) + 1
			if e.st.Backend() == "postgres" {
				want = 0
			}
			if n, err := e.st.IndexSearch(context.Background(), 1000); err != nil || n != want {
				t.Fatalf("indexed %d, %v", n, err)
			}
			if n, _ := e.st.PendingSearch(context.Background()); n != 0 {
				t.Fatalf("%d still pending", n)
			}
		}
		for q, want := range cases {
			t.Run(phase+"/"+q, func(t *testing.T) {
				got := listAll(t, e, e.keyA, "search="+url.QueryEscape(q), 100, nil)
				var wantIDs []string
				for _, i := range want {
					wantIDs = append(wantIDs, seeded[i].ID)
				}
				g := ids(got)
				sort.Strings(g)
				sort.Strings(wantIDs)
				if strings.Join(g, ",") != strings.Join(wantIDs, ",") {
					t.Fatalf("search %q: got %d rows want %d", q, len(g), len(wantIDs))
				}
			})
		}
	}
}

// TestMalformedSearchIsRefused: a search that does not parse is a 400
// VALIDATION_ERROR naming search, with a hint, in the list and the counts,
// and naming filters.search in a saved view and an alert.
func TestMalformedSearchIsRefused(t *testing.T) {
	e := newEnv(t)
	for q, hint := range map[string]string{
		`"acme outage`: `close it with another "`, "acme OR": "both sides of OR", "OR acme": "both sides of OR",
		"🎉 %": "at least one word", "lang:en": "the fields are author:, source: and category:", "(acme": "close it with )",
		"source:myspace": "reddit", `""`: "between the quotes",
	} {
		for _, path := range []string{"/api/v1/mentions", "/api/v1/mention-count"} {
			r := e.do("GET", path+"?search="+url.QueryEscape(q), e.keyA, nil).expect(400, "VALIDATION_ERROR")
			if r.errParam() != "search" || !strings.Contains(string(r.raw), strings.ReplaceAll(hint, `"`, `\"`)) {
				t.Errorf("GET %s search %q: param %q, body %s; want search and the hint %q", path, q, r.errParam(), r.raw, hint)
			}
		}
	}
	r := e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "bad", "filters": map[string]any{"search": "acme OR"}}).expect(400, "VALIDATION_ERROR")
	if r.errParam() != "filters.search" {
		t.Errorf("view: param %q, want filters.search", r.errParam())
	}
	r = e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "bad", "channel": "email", "target": "ops@example.com",
		"filters": map[string]any{"search": `"acme`}}).expect(400, "VALIDATION_ERROR")
	if r.errParam() != "filters.search" {
		t.Errorf("alert: param %q, want filters.search", r.errParam())
	}
	e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "good", "filters": map[string]any{"search": `acme -"service outage" OR source:reddit`}}).ok()
}

func TestStatusUpdateAndGet(t *testing.T) {
	e := newEnv(t)
	m := e.seedMentions(e.projA, nil, 1, time.Now(), nil)[0]
	for _, s := range []string{"reviewed", "done", "ignored", "new", "done"} {
		d := e.do("PATCH", "/api/v1/mentions/"+m.ID, e.keyA, map[string]any{"status": s}).ok().data()
		hasKeys(t, "update_mention_status", d, "id", "source", "url", "author_handle", "text", "published_at", "engagement",
			"is_relevant", "category", "sentiment", "urgency", "ai_summary", "status", "collected_at", "monitor_ids")
		if d["status"] != s {
			t.Fatalf("status %v", d["status"])
		}
	}
	g := e.do("GET", "/api/v1/mentions/"+m.ID, e.keyA, nil).ok().data()
	if g["status"] != "done" {
		t.Fatalf("get %v", g["status"])
	}
	eng := g["engagement"].(map[string]any)
	if _, ok := eng["upvotes"]; !ok {
		t.Fatalf("reddit engagement %v", eng)
	}
	e.do("PATCH", "/api/v1/mentions/"+m.ID, e.keyA, map[string]any{"status": "archived"}).expect(400, "VALIDATION_ERROR")
}

func TestCollectedSinceSync(t *testing.T) {
	e := newEnv(t)
	start := time.Now().Add(-time.Second)
	first := e.seedMentions(e.projA, nil, 5, time.Now(), nil)
	// a backfilled old post arrives later: sync must not miss it
	got := listAll(t, e, e.keyA, "collected_since="+url.QueryEscape(store.FormatTime(start)), 2, func(int) {})
	if len(got) != 5 {
		t.Fatalf("sync got %d", len(got))
	}
	e.seedMentions(e.projA, nil, 1, time.Now().AddDate(-1, 0, 0), func(_ int, m *store.NewMention) { m.ExternalID = "old-post" })
	last := got[len(got)-1]["collected_at"].(string)
	more := listAll(t, e, e.keyA, "collected_since="+url.QueryEscape(last), 2, nil)
	found := false
	for _, m := range more {
		if m["published_at"].(string) < store.FormatTime(time.Now().AddDate(0, -6, 0)) {
			found = true
		}
	}
	if !found {
		t.Fatalf("backfilled post missed by sync: %v", ids(more))
	}
	_ = first
}

func TestExportCSV(t *testing.T) {
	e := newEnv(t)
	e.seedMentions(e.projA, nil, 4, time.Now(), func(i int, m *store.NewMention) {
		m.Text = []string{"=HYPERLINK(\"http://evil\")", "plain, with comma", "line\nbreak and \"quotes\"", "@mention -minus +plus"}[i]
		m.AuthorHandle = []string{"+1", "-x", "@me", "ok"}[i]
		m.Source = []string{"x", "x", "x", "reddit"}[i]
	})
	e.seedMentions(e.projB, nil, 3, time.Now(), nil)
	r := e.do("GET", "/api/v1/exports/mentions", e.keyA, nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
	}
	recs, err := csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || recs[0][0] != "id" {
		t.Fatalf("rows %d header %v", len(recs), recs[0])
	}
	if !strings.Contains(string(r.raw), "\r\n") {
		t.Fatal("RFC 4180 wants CRLF")
	}
	texts := map[string]bool{}
	for _, rec := range recs[1:] {
		texts[rec[6]] = true
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Fatalf("formula cell %q", cell)
			}
		}
	}
	for _, want := range []string{`'=HYPERLINK("http://evil")`, "plain, with comma", "line\nbreak and \"quotes\"", "'@mention -minus +plus"} {
		if !texts[want] {
			t.Fatalf("missing %q in %v", want, texts)
		}
	}
	// same filters as the list
	r = e.do("GET", "/api/v1/exports/mentions?source=reddit", e.keyA, nil)
	recs, _ = csv.NewReader(strings.NewReader(string(r.raw))).ReadAll()
	if len(recs) != 2 {
		t.Fatalf("filtered export rows %d", len(recs))
	}
	e.do("GET", "/api/v1/exports/mentions?source=bogus", e.keyA, nil).expect(400, "VALIDATION_ERROR")
}

func TestShareOfVoice(t *testing.T) {
	e := newEnv(t)
	own := e.do("POST", "/api/v1/keyword-groups", e.keyA, map[string]any{"name": "Acme", "is_own": true}).ok().data()["id"].(string)
	comp := e.do("POST", "/api/v1/keyword-groups", e.keyA, map[string]any{"name": "Globex"}).ok().data()["id"].(string)
	comp2 := e.do("POST", "/api/v1/keyword-groups", e.keyA, map[string]any{"name": "Initech"}).ok().data()["id"].(string)
	mo := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A", "keywords": []string{"acme"}, "group_id": own}).ok().data()["id"].(string)
	mo2 := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "A2", "keywords": []string{"acme inc"}, "group_id": own}).ok().data()["id"].(string)
	mc := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "G", "keywords": []string{"globex"}, "group_id": comp}).ok().data()["id"].(string)
	mi := e.do("POST", "/api/v1/monitors", e.keyA, map[string]any{"name": "I", "keywords": []string{"initech"}, "group_id": comp2}).ok().data()["id"].(string)
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(-2 * 24 * time.Hour).Add(12 * time.Hour)
	// day 1: own 2 (one matched by both own monitors: counted once), globex 1, initech 0
	e.seedMentions(e.projA, []string{mo, mo2}, 1, day, func(i int, m *store.NewMention) { m.ExternalID = "o1" })
	e.seedMentions(e.projA, []string{mo}, 1, day, func(i int, m *store.NewMention) { m.ExternalID = "o2" })
	e.seedMentions(e.projA, []string{mc}, 1, day, func(i int, m *store.NewMention) { m.ExternalID = "c1" })
	// irrelevant ones never count
	e.seedMentions(e.projA, []string{mc}, 1, day, func(i int, m *store.NewMention) { m.ExternalID = "c2"; m.IsRelevant = false })
	// day 2: own 1, globex 1, initech 1 → 33.3 / 33.3 / 33.4
	next := day.Add(24 * time.Hour)
	e.seedMentions(e.projA, []string{mo}, 1, next, func(i int, m *store.NewMention) { m.ExternalID = "o3" })
	e.seedMentions(e.projA, []string{mc}, 1, next, func(i int, m *store.NewMention) { m.ExternalID = "c3" })
	e.seedMentions(e.projA, []string{mi}, 1, next, func(i int, m *store.NewMention) { m.ExternalID = "i1" })
	// another tenant's mentions never count
	e.seedMentions(e.projB, nil, 5, day, nil)
	d := e.do("GET", "/api/v1/share-of-voice?date_preset=last_7_days", e.keyA, nil).ok().data()
	if d["total"].(float64) != 6 {
		t.Fatalf("total %v", d["total"])
	}
	groups := d["groups"].([]any)
	sum := 0.0
	byName := map[string]map[string]any{}
	for _, g := range groups {
		gm := g.(map[string]any)
		byName[gm["name"].(string)] = gm
		sum += gm["share"].(float64)
	}
	if byName["Acme"]["mentions"].(float64) != 3 || byName["Acme"]["is_own"] != true || byName["Globex"]["mentions"].(float64) != 2 {
		t.Fatalf("groups %v", groups)
	}
	if byName["Acme"]["share"].(float64) != 50 || fmt.Sprintf("%.1f", sum) != "100.0" {
		t.Fatalf("shares %v sum %v", groups, sum)
	}
	for _, dd := range d["days"].([]any) {
		dm := dd.(map[string]any)
		if dm["total"].(float64) == 0 {
			continue
		}
		s := 0.0
		for _, g := range dm["groups"].([]any) {
			s += g.(map[string]any)["share"].(float64)
		}
		if fmt.Sprintf("%.1f", s) != "100.0" {
			t.Fatalf("day %v shares sum %v", dm["date"], s)
		}
		if dm["date"] == next.Format("2006-01-02") {
			gs := dm["groups"].([]any)
			shares := []float64{gs[0].(map[string]any)["share"].(float64), gs[1].(map[string]any)["share"].(float64), gs[2].(map[string]any)["share"].(float64)}
			sort.Float64s(shares)
			if shares[0] != 33.3 || shares[2] != 33.4 {
				t.Fatalf("largest remainder: %v", shares)
			}
		}
	}
	e.do("GET", "/api/v1/share-of-voice?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", e.keyA, nil).expect(400, "VALIDATION_ERROR")
}

func TestPreviewMonitor(t *testing.T) {
	e := newEnv(t)
	e.seedMentions(e.projA, nil, 3, time.Now(), func(i int, m *store.NewMention) {
		m.Text = []string{"I love Acme so much", "acmeish is not it", "Acme pie recipe"}[i]
	})
	d := e.do("POST", "/api/v1/monitors/preview", e.keyA, map[string]any{"keywords": []string{"acme"}, "exclude_keywords": []string{"pie"}}).ok().data()
	if d["matched"].(float64) != 1 || d["scanned"].(float64) != 3 {
		t.Fatalf("preview %v", d)
	}
	if n := len(e.do("GET", "/api/v1/monitors", e.keyA, nil).ok().data()["monitors"].([]any)); n != 0 {
		t.Fatal("preview created a monitor")
	}
}
