package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

func openTest(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestMentionQueryPlans guards the inbox's filter shapes against plans that
// scan the mentions table or sort it: each must walk an index in order.
func TestMentionQueryPlans(t *testing.T) {
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
		"search common":   {Search: "ab"},
		"collected since": {CollectedSince: &since},
		"monitor+status":  {MonitorID: "00000000-0000-4000-8000-000000000000", Status: "new"},
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
		}
	}
}

// TestRareSearchPlan: a rare search fetches its candidates by rowid from the
// trigram index (and the pending list) rather than walking the project.
func TestRareSearchPlan(t *testing.T) {
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
