package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"earshot/store"
)

// TestPullBackTeachesRelevance: a mention judged not relevant (and an own
// post) stays out of the queue (status new, is_relevant true) and sits in
// the Filtered view (status new, is_relevant false); pulling one back
// (UpdateMention IsRelevant) moves it into the queue, still new, fires no
// event, and makes it a positive relevance example at once, before anyone
// triages it; an own post pulled back teaches nothing.
func TestPullBackTeachesRelevance(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, _ := twoProjects(t, st)
	at := time.Now().Add(-time.Hour).UTC()
	res, err := st.IngestMentions(ctx, p.ID, 0, []store.NewMention{
		{Source: "x", ExternalID: "1", Text: "acme anvils in a cartoon", PublishedAt: at, IsRelevant: false, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "2", Text: "our status page says all good", PublishedAt: at, IsRelevant: false, Own: true, Category: "other", Sentiment: "neutral"},
		{Source: "x", ExternalID: "3", Text: "acme app is down", PublishedAt: at, IsRelevant: true, Category: "bug_report", Sentiment: "negative"},
	})
	if err != nil {
		t.Fatal(err)
	}
	byText := map[string]string{}
	for _, m := range res.Created {
		byText[m.Text] = m.ID
	}
	yes, no := true, false
	queue := store.MentionFilter{ProjectID: p.ID, Status: "new", IsRelevant: &yes}
	filtered := store.MentionFilter{ProjectID: p.ID, Status: "new", IsRelevant: &no}
	texts := func(f store.MentionFilter) []string {
		ms, err := st.ListMentions(ctx, f, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Text)
		}
		slices.Sort(out)
		return out
	}
	if got := texts(queue); !slices.Equal(got, []string{"acme app is down"}) {
		t.Fatalf("queue %q", got)
	}
	if got := texts(filtered); !slices.Equal(got, []string{"acme anvils in a cartoon", "our status page says all good"}) {
		t.Fatalf("filtered %q", got)
	}
	if n, err := st.CountMentions(ctx, filtered, 1000); err != nil || n != 2 {
		t.Fatalf("filtered count %d %v", n, err)
	}
	events := func() int {
		evs, err := st.UndispatchedEvents(ctx, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}
	before := events()
	for _, text := range []string{"acme anvils in a cartoon", "our status page says all good"} {
		m, err := st.UpdateMention(ctx, p.ID, byText[text], store.MentionChange{IsRelevant: &yes})
		if err != nil || !m.IsRelevant || m.Status != "new" {
			t.Fatalf("pull back %q: %+v %v", text, m, err)
		}
	}
	if events() != before {
		t.Error("pulling back fired an event; only a status change does")
	}
	if got := texts(queue); len(got) != 3 || len(texts(filtered)) != 0 {
		t.Fatalf("after pulling back: queue %q, filtered %q", got, texts(filtered))
	}
	ex, rel, _, err := st.TriageExamples(ctx, p.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex, []string{"acme anvils in a cartoon"}) || !slices.Equal(rel, []bool{true}) {
		t.Fatalf("examples %q %v, want the pulled-back mention as relevant (the own post teaches nothing)", ex, rel)
	}
	// Filed back as not relevant, it teaches that instead; triaged, its status speaks.
	if _, err := st.UpdateMention(ctx, p.ID, byText["acme anvils in a cartoon"], store.MentionChange{IsRelevant: &no}); err != nil {
		t.Fatal(err)
	}
	if ex, rel, _, _ = st.TriageExamples(ctx, p.ID, 10); !slices.Equal(rel, []bool{false}) {
		t.Fatalf("examples %q %v, want it as not relevant", ex, rel)
	}
	if _, err := st.UpdateMention(ctx, p.ID, byText["acme anvils in a cartoon"], store.MentionChange{Status: "done"}); err != nil {
		t.Fatal(err)
	}
	if ex, rel, _, _ = st.TriageExamples(ctx, p.ID, 10); !slices.Equal(ex, []string{"acme anvils in a cartoon"}) || !slices.Equal(rel, []bool{true}) {
		t.Fatalf("examples %q %v, want it once, by its status", ex, rel)
	}
}
