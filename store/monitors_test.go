package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
)

func TestRestartCollection(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "r@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	m := &store.Monitor{ProjectID: p.ID, Name: "M", Keywords: []string{"a"}, QueryMode: "any", Sources: []string{"hn"}, GroupName: "custom", Active: true,
		ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := st.CreateMonitor(ctx, m); err != nil {
		t.Fatal(err)
	}
	ok := time.Now()
	if err := st.SaveSourceResult(ctx, store.SourceRecord{MonitorID: m.ID, Source: "hn", State: "12345", Status: "ok", LastOKAt: &ok}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.RestartCollection(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	rec, err := st.SourceState(ctx, m.ID, "hn")
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != "" || rec.LastOKAt != nil || rec.Status != "ok" {
		t.Fatalf("after restart: %+v", rec)
	}
}

// TestMentionCreatedEventBody: the outbox keeps a reference, and the fan-out
// sees the webhook body (docs/decisions.md#webhooks) with the full mention
// record.
func TestMentionCreatedEventBody(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "e@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	res, err := st.IngestMentions(ctx, p.ID, 0, []store.NewMention{
		{Source: "reddit", ExternalID: "a", Text: "Acme rocks", PublishedAt: time.Now(), IsRelevant: true, Category: "testimonial", Sentiment: "positive",
			Engagement: map[string]int64{"upvotes": 3, "comments": 1}},
		{Source: "reddit", ExternalID: "b", Text: "acme pie", PublishedAt: time.Now(), IsRelevant: false, Category: "other", Sentiment: "neutral"},
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.UndispatchedEvents(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Type != "mention.created" {
		t.Fatalf("events %+v (only the relevant mention fires)", evs)
	}
	var body struct {
		ID, Type, CreatedAt, ProjectID string
		Data                           struct {
			Mention store.Mention `json:"mention"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(evs[0].Payload), &body); err != nil {
		t.Fatal(err)
	}
	m := body.Data.Mention
	if body.ID != evs[0].ID || m.ID != res.Created[0].ID || m.Text != "Acme rocks" || m.Engagement["upvotes"] != 3 || m.Status != "new" || m.Category != "testimonial" {
		t.Fatalf("body %s", evs[0].Payload)
	}
}
