package store_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestUrgencyQueryPlans: sort=urgency walks the urgency index in order for
// common filter values (no sort of the project), and fetches a rare value
// or a short window from its own index.
func TestUrgencyQueryPlans(t *testing.T) {
	sqliteOnly(t)
	defer store.SetRareFacetCap(0)()
	defer store.SetRareWindowCap(0)()
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "u@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	seventy := 70
	yes := true
	since := time.Now().AddDate(0, 0, -7)
	after := &store.Position{Urgency: 50, At: store.FormatTime(time.Now()), ID: "ffffffff"}
	for name, f := range map[string]store.MentionFilter{
		"none":          {},
		"status new":    {Status: "new"},
		"triaged":       {Status: "done"},
		"source":        {Source: "x", Category: "bug_report"},
		"min urgency":   {MinUrgency: &seventy, Sentiment: "negative"},
		"relevant":      {IsRelevant: &yes},
		"window":        {Since: &since},
		"monitor":       {MonitorID: "00000000-0000-4000-8000-000000000000"},
		"search common": {Search: "ab"},
	} {
		f.ProjectID, f.ByUrgency = p.ID, true
		for _, pos := range []*store.Position{nil, after} {
			plan, err := st.ExplainMentions(ctx, f, pos, 51)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, "mentions_urgency") || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("%s: not a walk of mentions_urgency:\n%s", name, plan)
			}
		}
	}
}

// TestUrgencyOrderAndPaging: sort=urgency pages through every mention once,
// most urgent first and newest first among equals, whichever source the
// rows come from (the urgency index, a rare value's index, a short window).
func TestUrgencyOrderAndPaging(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	end := time.Now().Add(-time.Minute)
	var batch []store.NewMention
	for i := range 300 {
		batch = append(batch, store.NewMention{Source: []string{"x", "reddit", "hn"}[i%3], ExternalID: fmt.Sprint(i), Text: "t",
			PublishedAt: end.Add(-time.Duration(i*7%300) * time.Hour), IsRelevant: true, Category: "other", Sentiment: "neutral", Urgency: i * 13 % 10})
	}
	if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := st.IngestMentions(ctx, other.ID, 0, batch[:50]); err != nil {
		t.Fatal(err)
	}
	since := end.Add(-48 * time.Hour)
	for _, caps := range []struct{ facet, window int }{{0, 0}, {1000, 2000}} {
		for name, f := range map[string]store.MentionFilter{"all": {}, "source": {Source: "hn"}, "window": {Since: &since}} {
			t.Run(fmt.Sprintf("%s/caps %v", name, caps), func(t *testing.T) {
				defer store.SetRareFacetCap(caps.facet)()
				defer store.SetRareWindowCap(caps.window)()
				f.ProjectID, f.ByUrgency = p.ID, true
				var got []*store.Mention
				var after *store.Position
				for {
					page, err := st.ListMentions(ctx, f, after, 7)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, page...)
					if len(page) < 7 {
						break
					}
					pos := store.PositionOf(page[len(page)-1], f)
					after = &pos
				}
				f.ByUrgency = false
				want, err := st.ListMentions(ctx, f, nil, 1000)
				if err != nil {
					t.Fatal(err)
				}
				sort.SliceStable(want, func(i, j int) bool { return want[i].Urgency > want[j].Urgency })
				if len(got) != len(want) || len(want) == 0 {
					t.Fatalf("got %d mentions, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i].ID != want[i].ID {
						t.Fatalf("row %d: urgency %d %s, want urgency %d %s", i, got[i].Urgency, got[i].PublishedAt, want[i].Urgency, want[i].PublishedAt)
					}
				}
			})
		}
	}
}
