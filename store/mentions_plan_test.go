package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
)

// openTest opens an empty store on the test run's backend (SQLite, or
// PostgreSQL when EARSHOT_TEST_DATABASE_URL is set).
func openTest(t testing.TB) *store.Store {
	t.Helper()
	return storetest.Open(t)
}

// sqliteOnly skips a test that asserts SQLite's query plans (INDEXED BY,
// FTS5, candidate sets); PostgreSQL's planner chooses by itself, and
// TestPostgresPlans checks what it chooses at a realistic size.
func sqliteOnly(t *testing.T) {
	t.Helper()
	if storetest.Postgres() {
		t.Skip("asserts SQLite query plans")
	}
}

// TestMentionQueryPlans guards the inbox's filter shapes against plans that
// scan the mentions table or sort it: each must walk an index in order.
// (Every status, source and category value counts as common here; rare
// ones are answered from their index, TestRareFacetPlan.)
func TestMentionQueryPlans(t *testing.T) {
	sqliteOnly(t)
	defer store.SetRareFacetCap(0)()
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "p@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	seventy, ten := 70, 10
	yes := true
	since := time.Now().AddDate(0, 0, -7)
	until := time.Now()
	after := &store.Position{At: store.FormatTime(time.Now()), ID: "ffffffff"}
	cases := map[string]store.MentionFilter{
		"none":            {},
		"status":          {Status: "new"},
		"source":          {Source: "reddit"},
		"category":        {Category: "bug_report"},
		"author":          {AuthorHandle: "someone"},
		"monitor":         {MonitorID: "00000000-0000-4000-8000-000000000000"},
		"urgency":         {MinUrgency: &seventy},
		"max urgency":     {MaxUrgency: &ten},
		"sentiment":       {Sentiment: "negative"},
		"relevant":        {IsRelevant: &yes},
		"window":          {Since: &since, Until: &until},
		"status+source":   {Status: "new", Source: "x"},
		"author+status":   {AuthorHandle: "someone", Status: "new"},
		"triaged":         {Status: "done"},
		"triaged+source":  {Status: "ignored", Source: "x", MonitorID: "00000000-0000-4000-8000-000000000000"},
		"category+window": {Category: "bug_report", Since: &since},
		"search common":   {Search: "ab"},
		"collected since": {CollectedSince: &since},
		"monitor+status":  {MonitorID: "00000000-0000-4000-8000-000000000000", Status: "new"},
		// The public page's two reads (PublicMentions).
		"public testimonials": {IsRelevant: &yes, Since: &since, NotStatus: "ignored", Category: "testimonial", OwnBrand: true, WallAuto: true},
		"public rest":         {IsRelevant: &yes, Since: &since, NotStatus: "ignored", NotCategory: "testimonial", OwnBrand: true, WallAuto: true},
		"public featured":     {PublicVisibility: "featured"},
		"hidden+status":       {PublicVisibility: "hidden", Status: "done"},
		"visibility auto":     {PublicVisibility: "auto"},
	}
	for name, f := range cases {
		f.ProjectID = p.ID
		for _, pos := range []*store.Position{nil, after} {
			plan, err := st.ExplainMentions(ctx, f, pos, 51)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(plan, "\n") {
				line = strings.TrimSpace(line)
				if line == "SCAN m" || strings.HasPrefix(line, "SCAN m ") && !strings.Contains(line, "INDEX") {
					t.Errorf("%s: table scan:\n%s", name, plan)
				}
				if strings.Contains(line, "TEMP B-TREE") {
					t.Errorf("%s: sorts instead of walking an index:\n%s", name, plan)
				}
			}
			if !strings.Contains(plan, "INDEX") {
				t.Errorf("%s: no index used:\n%s", name, plan)
			}
			if f.OwnBrand && (!strings.Contains(plan, "CORRELATED SCALAR SUBQUERY") || !strings.Contains(plan, "SEARCH l USING PRIMARY KEY (mention_id=?)")) {
				t.Errorf("%s: the own-brand test is not a per-row lookup of the mention's links:\n%s", name, plan)
			}
		}
	}
}

// TestRareSearchPlan: a rare search fetches its candidates by rowid from the
// trigram index (and the pending list) rather than walking the project.
func TestRareSearchPlan(t *testing.T) {
	sqliteOnly(t)
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "q@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	plan, err := st.ExplainMentions(ctx, store.MentionFilter{ProjectID: p.ID, Search: "zzqqxx"}, nil, 51)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "mentions_fts") || !strings.Contains(plan, "rowid=?") && !strings.Contains(plan, "INTEGER PRIMARY KEY") {
		t.Fatalf("rare search does not fetch by rowid:\n%s", plan)
	}
	if strings.Contains(plan, "USING INDEX mentions_feed") {
		t.Fatalf("rare search walks the project:\n%s", plan)
	}
}

// TestRareFacetPlan: a status, source, category or monitor value few
// mentions hold is answered from its index by rowid (or id), the fewest first, not by walking
// the project in date order.
func TestRareFacetPlan(t *testing.T) {
	sqliteOnly(t)
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "r@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	for name, tc := range map[string]struct {
		f     store.MentionFilter
		index string
	}{
		"status":          {store.MentionFilter{Status: "new"}, "mentions_by_status"},
		"source":          {store.MentionFilter{Source: "hn"}, "mentions_by_source"},
		"category":        {store.MentionFilter{Category: "misinformation"}, "mentions_by_category"},
		"status+category": {store.MentionFilter{Status: "new", Category: "misinformation", MinUrgency: new(70)}, "mentions_by_status"},
		"monitor":         {store.MentionFilter{MonitorID: "00000000-0000-4000-8000-000000000000"}, "mention_monitors_by_monitor"},
	} {
		tc.f.ProjectID = p.ID
		plan, err := st.ExplainMentions(ctx, tc.f, nil, 51)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, tc.index) || !strings.Contains(plan, "INTEGER PRIMARY KEY") && !strings.Contains(plan, "sqlite_autoindex_mentions_1") {
			t.Errorf("%s: not fetched by rowid from %s:\n%s", name, tc.index, plan)
		}
		if strings.Contains(plan, "mentions_feed") {
			t.Errorf("%s: walks the project:\n%s", name, plan)
		}
	}
	// A triaged status walks the triaged mentions in date order, however
	// many there are.
	plan, err := st.ExplainMentions(ctx, store.MentionFilter{ProjectID: p.ID, Status: "done", Source: "hn"}, nil, 51)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "mentions_triaged_feed") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("triaged status: not a walk of mentions_triaged_feed:\n%s", plan)
	}
}
