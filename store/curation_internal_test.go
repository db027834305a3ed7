package store

import (
	"context"
	"testing"
	"time"
)

// TestWallFollowsReclassification: the wall is a query, so a mention
// reclassified negative or misinformation leaves it at once, unless an
// editor featured it.
func TestWallFollowsReclassification(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	u, _ := st.CreateUser(ctx, "w@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	res, err := st.IngestMentions(ctx, p.ID, 0, []NewMention{
		{Source: "x", ExternalID: "a", Text: "a", PublishedAt: time.Now().Add(-time.Hour), IsRelevant: true, Category: "testimonial", Sentiment: "positive"},
		{Source: "x", ExternalID: "b", Text: "b", PublishedAt: time.Now().Add(-2 * time.Hour), IsRelevant: true, Category: "other", Sentiment: "neutral"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Created[0].ID, res.Created[1].ID
	wall := func() []string {
		t.Helper()
		ms, err := st.PublicMentions(ctx, p.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	if got := wall(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("wall %v, want [a b]", got)
	}
	reclassify := func(id, category, sentiment string) {
		t.Helper()
		if _, err := st.w.ExecContext(ctx, `UPDATE mentions SET category = ?, sentiment = ? WHERE id = ?`, category, sentiment, id); err != nil {
			t.Fatal(err)
		}
	}
	reclassify(a, "complaint", "negative")
	reclassify(b, "misinformation", "neutral")
	if got := wall(); len(got) != 0 {
		t.Fatalf("reclassified mentions stay on the wall: %v", got)
	}
	if _, err := st.UpdateMention(ctx, p.ID, a, MentionChange{PublicVisibility: VisibilityFeatured}); err != nil {
		t.Fatal(err)
	}
	if got := wall(); len(got) != 1 || got[0] != a {
		t.Fatalf("featured negative mention: wall %v, want [a]", got)
	}
}
