package ui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"earshot/store"
)

// A quota that drops posts says so on every dashboard page, with the
// period's count, instead of leaving the inbox quietly short.
func TestQuotaDropBanner(t *testing.T) {
	e, c := ownerClient(t, 2)
	if _, body, _ := c.get("/"); strings.Contains(body, "quota-banner") {
		t.Fatalf("banner before any drop")
	}
	var batch []store.NewMention
	for i := range 5 {
		batch = append(batch, store.NewMention{Source: "reddit", ExternalID: fmt.Sprintf("over-%d", i), URL: fmt.Sprintf("https://reddit.example/over/%d", i),
			AuthorHandle: "someone", Text: fmt.Sprintf("Acme over the quota %d", i), PublishedAt: time.Now(), IsRelevant: true, Category: "other", Sentiment: "neutral", Classifier: "builtin"})
	}
	// 2 used by the seed, quota 4: two stored, three dropped.
	res, err := e.st.IngestMentions(context.Background(), e.proj.ID, 4, batch)
	if err != nil || res.Dropped != 3 {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	for _, path := range []string{"/", "/monitors", "/usage"} {
		st, body, _ := c.get(path)
		if st != 200 || !strings.Contains(body, "quota-banner") || !strings.Contains(body, "3 new posts were dropped this month") {
			t.Errorf("%s: %d, no banner with the count:\n%s", path, st, body)
		}
	}
}
