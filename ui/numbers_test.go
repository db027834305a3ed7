package ui_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"earshot/store"
)

// TestThousandsSeparators: the dashboard writes counts past 999 with a
// separator: the views' capped counts, the overview's total and the usage
// page.
func TestThousandsSeparators(t *testing.T) {
	e, c := ownerClient(t, 0)
	now := time.Now().UTC()
	var batch []store.NewMention
	for i := 0; i < 1200; i++ {
		batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprintf("n-%d", i), URL: fmt.Sprintf("https://x.example/n%d", i), AuthorHandle: "a",
			Text: "acme post", PublishedAt: now.Add(-time.Duration(i) * time.Minute), IsRelevant: true, Category: "other", Sentiment: "neutral"})
	}
	if _, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.get("/")
	must(t, body, `>1,000&#43;</span>`) // html/template writes + as &#43;
	_, body, _ = c.get("/?overview=1")
	must(t, body, "1,200 mentions")
	_, body, _ = c.get("/usage")
	must(t, body, "<b>1,200</b>")
}
