package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// TestFacetFiltersBothWays: a status, source or category filter gives the
// same pages whether its value is answered from the value's index (rare)
// or by walking the date order (common), alone and combined with other
// filters, and both equal the set computed here from what was stored.
func TestFacetFiltersBothWays(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	var mons []*store.Monitor
	for _, name := range []string{"big", "small", "unused"} {
		m := &store.Monitor{ProjectID: p.ID, Name: name, Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"}, Active: true,
			ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "custom"}
		if err := st.CreateMonitor(ctx, m); err != nil {
			t.Fatal(err)
		}
		mons = append(mons, m)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	sources := []string{"x", "x", "x", "reddit", "reddit", "hn"}
	categories := []string{"other", "other", "bug_report", "complaint", "misinformation"}
	base := time.Now().Add(-48 * time.Hour).UTC().Truncate(time.Second)
	var batch []store.NewMention
	for i := range 600 {
		// Publication order differs from arrival order, with ties.
		at := base.Add(time.Duration(rng.IntN(400)) * time.Minute)
		batch = append(batch, store.NewMention{Source: sources[rng.IntN(len(sources))], ExternalID: fmt.Sprint("p", i), Text: "Acme post",
			AuthorHandle: fmt.Sprint("u", rng.IntN(5)), PublishedAt: at, IsRelevant: true, Category: categories[rng.IntN(len(categories))],
			Sentiment: "neutral", Urgency: rng.IntN(100), MonitorIDs: []string{mons[0].ID}})
		if i%9 == 0 { // the small monitor matched these too (or alone)
			batch[i].MonitorIDs = append(batch[i].MonitorIDs[i%2:], mons[1].ID)
		}
	}
	for i := 0; i < len(batch); i += 100 {
		if _, err := st.IngestMentions(ctx, p.ID, 0, batch[i:i+100]); err != nil {
			t.Fatal(err)
		}
	}
	// The other project holds the same values: it must never leak in.
	if _, err := st.IngestMentions(ctx, other.ID, 0, batch[:50]); err != nil {
		t.Fatal(err)
	}
	links := map[string][]string{} // mention id -> monitor ids
	all := listAll(t, st, store.MentionFilter{ProjectID: p.ID}, 100)
	if len(all) != 600 {
		t.Fatalf("stored %d, want 600", len(all))
	}
	statuses := []string{"new", "new", "new", "reviewed", "done", "ignored"}
	for i, m := range all {
		if s := statuses[i%len(statuses)]; s != "new" {
			if _, err := st.UpdateMentionStatus(ctx, p.ID, m.ID, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	all = listAll(t, st, store.MentionFilter{ProjectID: p.ID}, 100)
	for _, m := range all {
		links[m.ID] = m.MonitorIDs
	}
	seventy := 70
	since := base.Add(100 * time.Minute)
	filters := []store.MentionFilter{
		{Status: "new"}, {Status: "done"}, {Source: "hn"}, {Source: "x"}, {Category: "misinformation"}, {Category: "other"},
		{Status: "new", Source: "hn"}, {Status: "ignored", Category: "other", Source: "x"}, {Category: "bug_report", MinUrgency: &seventy},
		{Source: "reddit", Since: &since}, {Status: "reviewed", AuthorHandle: "u3"}, {Status: "new", Search: "acme"},
		{Status: "archived"},
		{MonitorID: mons[0].ID}, {MonitorID: mons[1].ID}, {MonitorID: mons[2].ID}, {MonitorID: mons[1].ID, Status: "new"},
		{MonitorID: mons[0].ID, Category: "misinformation", Source: "hn"}, {MonitorID: mons[1].ID, Search: "acme"},
	}
	for _, f := range filters {
		f.ProjectID = p.ID
		var want []string
		for _, m := range all {
			if (f.Status == "" || m.Status == f.Status) && (f.Source == "" || m.Source == f.Source) && (f.Category == "" || m.Category == f.Category) &&
				(f.MinUrgency == nil || m.Urgency >= *f.MinUrgency) && (f.AuthorHandle == "" || m.AuthorHandle == f.AuthorHandle) &&
				(f.Since == nil || m.PublishedAt >= store.FormatTime(*f.Since)) && (f.MonitorID == "" || slices.Contains(links[m.ID], f.MonitorID)) {
				want = append(want, m.ID)
			}
		}
		for _, capacity := range []int{0, 60, 4000} { // every value common; some rare; every value rare
			restore := store.SetRareFacetCap(capacity)
			got := ids(listAll(t, st, f, 7))
			restore()
			if !slices.Equal(got, want) {
				t.Errorf("%+v with cap %d: %d mentions, want %d\ngot  %s\nwant %s", f, capacity, len(got), len(want),
					strings.Join(got, " "), strings.Join(want, " "))
			}
		}
	}
}

// listAll pages through a filter with the given page size.
func listAll(t *testing.T, st *store.Store, f store.MentionFilter, limit int) []*store.Mention {
	t.Helper()
	var out []*store.Mention
	var after *store.Position
	for {
		page, err := st.ListMentions(context.Background(), f, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page...)
		if len(page) < limit {
			return out
		}
		last := page[len(page)-1]
		after = &store.Position{At: last.PublishedAt, ID: last.ID}
	}
}

func ids(ms []*store.Mention) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestPublicMentions: a public page lists relevant, not ignored mentions of
// the last 90 days that an own-brand monitor matched, testimonials first,
// each part newest first, up to the limit. A post only competitor monitors
// collected is not the brand's to publish.
func TestPublicMentions(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	now := time.Now().UTC()
	ownGroup, err := st.CreateKeywordGroup(ctx, p.ID, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	rivalGroup, err := st.CreateKeywordGroup(ctx, p.ID, "Globex", false)
	if err != nil {
		t.Fatal(err)
	}
	monitor := func(name, groupName string, groupID *string) string {
		m := &store.Monitor{ProjectID: p.ID, Name: name, Keywords: []string{name}, QueryMode: "any", Sources: []string{"x"}, Active: true,
			ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: groupName, GroupID: groupID}
		if err := st.CreateMonitor(ctx, m); err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	own := monitor("own", "my_brand", nil)
	custom := monitor("custom", "custom", nil) // the default group_name
	rival := monitor("rival", "competitors", nil)
	ownFiled := monitor("own-filed", "custom", &ownGroup.ID)
	rivalFiled := monitor("rival-filed", "custom", &rivalGroup.ID)
	rivalNamedOwnGroup := monitor("rival-own-group", "competitors", &ownGroup.ID)
	type row struct {
		id, category string
		ago          time.Duration
		relevant     bool
		monitors     []string
	}
	rows := []row{
		{"t-new", "testimonial", time.Hour, true, []string{own}}, {"t-old", "testimonial", 30 * 24 * time.Hour, true, []string{own}},
		{"t-ancient", "testimonial", 100 * 24 * time.Hour, true, []string{own}}, {"t-irrelevant", "testimonial", time.Hour, false, []string{own}},
		{"t-ignored", "testimonial", 2 * time.Hour, true, []string{own}}, {"o-new", "complaint", 30 * time.Minute, true, []string{own}},
		{"o-mid", "other", 5 * 24 * time.Hour, true, []string{own}}, {"o-old", "bug_report", 60 * 24 * time.Hour, true, []string{own}},
		// Who collected it decides.
		{"t-rival", "testimonial", 10 * time.Minute, true, []string{rival}},
		{"rival-and-own", "other", 20 * time.Minute, true, []string{rival, own}},
		{"custom", "other", 40 * time.Minute, true, []string{custom}},
		{"rival-filed", "other", 45 * time.Minute, true, []string{rivalFiled}},
		{"own-filed", "other", 50 * time.Minute, true, []string{ownFiled}},
		{"rival-own-group", "other", 55 * time.Minute, true, []string{rivalNamedOwnGroup}},
		{"unlinked", "testimonial", 15 * time.Minute, true, nil}, // not a competitor's: shown
	}
	var batch []store.NewMention
	for _, r := range rows {
		batch = append(batch, store.NewMention{Source: "x", ExternalID: r.id, Text: r.id, PublishedAt: now.Add(-r.ago), IsRelevant: r.relevant,
			Category: r.category, Sentiment: "positive", MonitorIDs: r.monitors})
	}
	res, err := st.IngestMentions(ctx, p.ID, 0, batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Created {
		if m.ExternalID == "t-ignored" {
			if _, err := st.UpdateMentionStatus(ctx, p.ID, m.ID, "ignored"); err != nil {
				t.Fatal(err)
			}
		}
	}
	elsewhere := batch[0]
	elsewhere.MonitorIDs = nil
	if _, err := st.IngestMentions(ctx, other.ID, 0, []store.NewMention{elsewhere}); err != nil {
		t.Fatal(err)
	}
	for limit, want := range map[int]string{
		10: "unlinked t-new t-old rival-and-own o-new custom own-filed rival-own-group o-mid o-old",
		3:  "unlinked t-new t-old",
		1:  "unlinked",
	} {
		for _, capacity := range []int{0, 4000} { // walk the date order; fetch the category's rows
			restore := store.SetRareFacetCap(capacity)
			ms, err := st.PublicMentions(ctx, p.ID, limit)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.ExternalID)
			}
			if strings.Join(got, " ") != want {
				t.Errorf("limit %d, cap %d: %v, want %s", limit, capacity, got, want)
			}
		}
	}
}

// twoProjects creates a user with two projects: the one a test looks at and
// another holding the same kind of rows, which must never show.
func twoProjects(t *testing.T, st *store.Store) (p, other *store.Project) {
	t.Helper()
	ctx := context.Background()
	u, err := st.CreateUser(ctx, "owner@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	if p, err = st.CreateProject(ctx, u.ID, "P", nil); err != nil {
		t.Fatal(err)
	}
	if other, err = st.CreateProject(ctx, u.ID, "Other", nil); err != nil {
		t.Fatal(err)
	}
	return p, other
}
