package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"earshot/store"
)

// TestUsageDays: each ingest adds what it stored and what the quota
// dropped to today's row, in step with the period's counters, per project.
func TestUsageDays(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	batch := func(prefix string, n int) []store.NewMention {
		out := make([]store.NewMention, n)
		for i := range out {
			out[i] = store.NewMention{Source: "x", ExternalID: fmt.Sprint(prefix, i), Text: "t", PublishedAt: time.Now().AddDate(0, 0, -3),
				IsRelevant: true, Category: "other", Sentiment: "neutral"}
		}
		return out
	}
	for _, step := range []struct {
		prefix string
		n      int
	}{{"a", 2}, {"b", 3}, {"a", 2} /* duplicates: nothing new */} {
		if _, err := st.IngestMentions(ctx, p.ID, 4, batch(step.prefix, step.n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.IngestMentions(ctx, other.ID, 0, batch("c", 7)); err != nil {
		t.Fatal(err)
	}
	days, err := st.UsageDays(ctx, p.ID, time.Now().AddDate(0, 0, -30))
	if err != nil {
		t.Fatal(err)
	}
	u, err := st.Usage(ctx, p.ID, store.PeriodStart(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Format("2006-01-02")
	if len(days) != 1 || days[0].Day != today || days[0].Mentions != u.MentionsUsed || days[0].Dropped != u.Dropped || u.MentionsUsed != 4 || u.Dropped != 1 {
		t.Fatalf("days %+v, period used %d dropped %d; want today 4 stored, 1 dropped", days, u.MentionsUsed, u.Dropped)
	}
	if days, _ := st.UsageDays(ctx, other.ID, time.Now().AddDate(0, 0, -30)); len(days) != 1 || days[0].Mentions != 7 {
		t.Fatalf("other project: %+v", days)
	}
}
