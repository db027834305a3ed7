package store_test

import (
	"context"
	"testing"
	"time"

	"earshot/store"
)

// TestMentionReasonsAndOwnPersist: the classifier's three reasons and the
// own flag are stored with the mention, read back by Mention and
// ListMentions, and own filters both ways; an own post fires no
// mention.created (it is stored with is_relevant=false).
func TestMentionReasonsAndOwnPersist(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "r@example.com", "x", "")
	pr, _ := st.CreateProject(ctx, u.ID, "Acme", nil)
	now := time.Now()
	batch := []store.NewMention{
		{Source: "x", ExternalID: "1", Text: "Acme boards are down", PublishedAt: now.Add(-2 * time.Minute), IsRelevant: true,
			Category: "complaint", Sentiment: "negative", Urgency: 70,
			CategoryReason: "complaint: a service failure told as a fact", UrgencyReason: "outage reported",
			RelevanceReason: "relevant: 'Acme' next to 'boards'"},
		{Source: "x", ExternalID: "2", AuthorHandle: "acme", Text: "We're back up, sorry", PublishedAt: now.Add(-time.Minute), IsRelevant: false,
			Own: true, Category: "other", Sentiment: "neutral", RelevanceReason: "own post: @acme is the project's account"},
	}
	res, err := st.IngestMentions(ctx, pr.ID, 0, batch)
	if err != nil || res.New != 2 {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	got, err := st.Mention(ctx, pr.ID, res.Created[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.CategoryReason != batch[0].CategoryReason || got.UrgencyReason != batch[0].UrgencyReason ||
		got.RelevanceReason != batch[0].RelevanceReason || got.Own {
		t.Errorf("read back %+v", got)
	}
	own, err := st.Mention(ctx, pr.ID, res.Created[1].ID)
	if err != nil || !own.Own || own.IsRelevant || own.RelevanceReason != batch[1].RelevanceReason {
		t.Errorf("own post read back %+v %v", own, err)
	}
	yes, no := true, false
	for _, tc := range []struct {
		own  *bool
		want []string
	}{{nil, []string{"2", "1"}}, {&yes, []string{"2"}}, {&no, []string{"1"}}} {
		ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: pr.ID, Own: tc.own}, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ExternalID)
			if m.ExternalID == "1" && m.RelevanceReason == "" {
				t.Error("list lost the relevance reason")
			}
		}
		if len(ids) != len(tc.want) || (len(ids) > 0 && ids[0] != tc.want[0]) {
			t.Errorf("own=%v: got %v, want %v", tc.own, ids, tc.want)
		}
	}
	// Triage of an own post teaches the relevance model nothing.
	for _, m := range res.Created {
		if _, err := st.UpdateMentionStatus(ctx, pr.ID, m.ID, "ignored"); err != nil {
			t.Fatal(err)
		}
	}
	texts, _, _, err := st.TriageExamples(ctx, pr.ID, 10)
	if err != nil || len(texts) != 1 || texts[0] != batch[0].Text {
		t.Errorf("triage examples %q %v, want only the customer's post", texts, err)
	}
	evs, err := st.UndispatchedEvents(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Type != "mention.created" || evs[1].Type != "mention.updated" {
		t.Errorf("events %+v, want one mention.created (the own post fires none) and two mention.updated", evs)
	}
}
