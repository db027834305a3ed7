package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPostgresPlans: at a realistic size (50,000 mentions, two projects,
// statistics gathered), PostgreSQL's planner answers the inbox's first
// page from the date-ordered feed index and a rare search from the pg_trgm
// index instead of scanning the table. The store's connections plan every
// execution with its values (plan_cache_mode, pgdriver.go): a generic plan
// of the search walks the feed index whatever the needle. SQLite's plans
// are guarded by TestMentionQueryPlans and its siblings.
func TestPostgresPlans(t *testing.T) {
	st := openTest(t)
	if !st.pg {
		t.Skip("PostgreSQL plans")
	}
	if testing.Short() {
		t.Skip("50,000 mentions")
	}
	ctx := context.Background()
	u, err := st.CreateUser(ctx, "plans@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, "P", nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := st.CreateProject(ctx, u.ID, "Q", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Four fifths of the rows are p's; "zebracorn" is in 5 of them.
	_, err = st.w.ExecContext(ctx, `INSERT INTO mentions(id, project_id, source, external_id, text, text_folded, published_at, collected_at,
			updated_at, category, sentiment, urgency, status)
		SELECT md5(i::text), CASE WHEN i % 5 = 0 THEN ?2 ELSE ?1 END, (ARRAY['x','reddit','hn','news'])[1 + i % 4], i::text, t, lower(t),
			to_char(timestamp '2026-01-01' + i * interval '37 seconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
			to_char(timestamp '2026-01-01' + i * interval '37 seconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '2026-01-01T00:00:00.000Z',
			(ARRAY['other','bug_report','complaint'])[1 + i % 3], 'neutral', i % 100, CASE WHEN i % 7 = 0 THEN 'done' ELSE 'new' END
		FROM generate_series(1, 50000) AS i,
			LATERAL (SELECT 'Acme post number ' || i || CASE WHEN i % 10000 = 1 THEN ' about a Zebracorn' ELSE ' about the checkout' END AS t) AS g`,
		p.ID, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Every mention of p was found by one own-brand monitor. monitors and
	// keyword_groups stay unanalysed, as on a fresh install (they are far
	// below autovacuum's threshold): the planner then takes them for
	// hundreds of rows.
	mon := &Monitor{ProjectID: p.ID, Name: "Acme", Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"}, GroupName: "my_brand",
		ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := st.CreateMonitor(ctx, mon); err != nil {
		t.Fatal(err)
	}
	if _, err := st.w.ExecContext(ctx, `INSERT INTO mention_monitors(mention_id, monitor_id) SELECT id, ? FROM mentions WHERE project_id = ?`,
		mon.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.w.ExecContext(ctx, `ANALYZE mentions; ANALYZE mention_monitors`); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := st.r.QueryRowContext(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil || mode != "force_custom_plan" {
		t.Errorf("plan_cache_mode %q (%v), want force_custom_plan", mode, err)
	}
	yes, since := true, time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		f     MentionFilter
		index string
		n     int // mentions a full page holds
	}{
		{"first page", MentionFilter{ProjectID: p.ID}, "mentions_feed", 51},
		{"rare search", MentionFilter{ProjectID: p.ID, Search: "ZEBRACORN"}, "mentions_text_trgm", 5},
		{"common search", MentionFilter{ProjectID: p.ID, Search: "checkout"}, "", 51},
		// The public wall's first read: no mention is featured, and a walk
		// of the feed index looking for one reads the whole project.
		{"featured", MentionFilter{ProjectID: p.ID, PublicVisibility: VisibilityFeatured}, "mentions_curated", 0},
		// Its automatic part: the own-brand test stays a per-row lookup
		// (not a hashed subplan reading every link first).
		{"wall", MentionFilter{ProjectID: p.ID, IsRelevant: &yes, Since: &since, NotStatus: "ignored", NotCategory: "testimonial",
			OwnBrand: true, WallAuto: true}, "mentions_feed", 51},
	}
	for _, c := range cases {
		plan, err := st.ExplainMentions(ctx, c.f, nil, 51)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "Seq Scan on mentions") || !strings.Contains(plan, c.index) ||
			c.index == "mentions_curated" && strings.Contains(plan, "mentions_feed") || strings.Contains(plan, "hashed SubPlan") {
			t.Errorf("%s: plan does not use %s:\n%s", c.name, c.index, plan)
		}
		st.ListMentions(ctx, c.f, nil, 51) // warm the connection and cache
		start := time.Now()
		ms, err := st.ListMentions(ctx, c.f, nil, 51)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != c.n {
			t.Errorf("%s: %d mentions, want %d", c.name, len(ms), c.n)
		}
		t.Logf("%s: %d mentions in %v", c.name, len(ms), time.Since(start))
	}
}
