package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// A correction is shown, kept as a human label, listed for learning
// (newest first), survives the same post being collected again, and
// another project cannot correct the mention.
func TestCorrectMention(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, other := twoProjects(t, st)
	post := store.NewMention{Source: "x", ExternalID: "1", Text: "@acme you need to provide a phone number", PublishedAt: time.Now(),
		IsRelevant: true, Category: "product_idea", Sentiment: "neutral", CategoryReason: "product_idea: reads like a feature request", Classifier: "builtin"}
	res, err := st.IngestMentions(ctx, p.ID, 0, []store.NewMention{post})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Created[0].ID
	if _, _, _, v, err := st.CorrectionExamples(ctx, p.ID, 10); err != nil || v != "/0" {
		t.Fatalf("before any correction: version %q, %v", v, err)
	}
	m, err := st.CorrectMention(ctx, p.ID, id, "complaint", "negative")
	if err != nil {
		t.Fatal(err)
	}
	if m.Category != "complaint" || m.Sentiment != "negative" || !strings.HasPrefix(m.CategoryReason, store.CorrectedReason) ||
		!strings.Contains(m.CategoryReason, "product_idea/neutral") {
		t.Errorf("corrected mention %s/%s %q", m.Category, m.Sentiment, m.CategoryReason)
	}
	// Only the sentiment again: the category correction stays.
	time.Sleep(2 * time.Millisecond)
	if m, err = st.CorrectMention(ctx, p.ID, id, "", "neutral"); err != nil || m.Category != "complaint" || m.Sentiment != "neutral" {
		t.Fatalf("second correction %+v %v", m, err)
	}
	texts, cats, sents, v1, err := st.CorrectionExamples(ctx, p.ID, 10)
	if err != nil || len(texts) != 1 || cats[0] != "complaint" || sents[0] != "neutral" || texts[0] != post.Text {
		t.Fatalf("examples %v %v %v %v", texts, cats, sents, err)
	}
	// The same values again change nothing (not even the version).
	if _, err := st.CorrectMention(ctx, p.ID, id, "complaint", "neutral"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, v2, _ := st.CorrectionExamples(ctx, p.ID, 10); v2 != v1 {
		t.Errorf("a no-op correction changed the version %s -> %s", v1, v2)
	}
	// Collected again: the stored mention keeps the person's labels.
	if _, err := st.IngestMentions(ctx, p.ID, 0, []store.NewMention{post}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Mention(ctx, p.ID, id); err != nil || got.Category != "complaint" || got.Sentiment != "neutral" {
		t.Errorf("after re-collection %+v %v", got, err)
	}
	if _, err := st.CorrectMention(ctx, other.ID, id, "other", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another project corrected the mention: %v", err)
	}
	if texts, _, _, _, _ := st.CorrectionExamples(ctx, other.ID, 10); len(texts) != 0 {
		t.Errorf("another project's examples: %v", texts)
	}
}
