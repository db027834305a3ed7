package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"earshot/store"
)

// TestUpdateMentionStatusEvents: mention.updated means the status changed;
// setting the status a mention already has records no event and keeps
// updated_at, and still answers the mention.
func TestUpdateMentionStatusEvents(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p, _ := twoProjects(t, st)
	res, err := st.IngestMentions(ctx, p.ID, 0, []store.NewMention{{Source: "x", ExternalID: "1", Text: "acme", PublishedAt: time.Now(),
		IsRelevant: true, Category: "other", Sentiment: "neutral"}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Created[0].ID
	drain(t, st) // the mention.created event
	steps := []struct {
		status     string
		wantEvent  bool
		wantPrev   string
		sameUpdate bool
	}{
		{"reviewed", true, "new", false},
		{"reviewed", false, "", true},
		{"done", true, "reviewed", false},
		{"done", false, "", true},
		{"new", true, "done", false},
	}
	last := ""
	for i, s := range steps {
		time.Sleep(2 * time.Millisecond) // updated_at has millisecond precision
		m, err := st.UpdateMentionStatus(ctx, p.ID, id, s.status)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != s.status {
			t.Errorf("step %d: status %s, want %s", i, m.Status, s.status)
		}
		if s.sameUpdate != (m.UpdatedAt == last) {
			t.Errorf("step %d (%s): updated_at %s, before %s", i, s.status, m.UpdatedAt, last)
		}
		last = m.UpdatedAt
		evs := drain(t, st)
		if !s.wantEvent {
			if len(evs) != 0 {
				t.Errorf("step %d: unchanged status %s recorded %d events: %s", i, s.status, len(evs), evs[0].Payload)
			}
			continue
		}
		if len(evs) != 1 || evs[0].Type != "mention.updated" {
			t.Fatalf("step %d: events %v, want one mention.updated", i, evs)
		}
		var payload struct {
			Data struct {
				PreviousStatus string `json:"previous_status"`
				Mention        struct {
					Status string `json:"status"`
				} `json:"mention"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(evs[0].Payload), &payload); err != nil {
			t.Fatal(err)
		}
		if payload.Data.PreviousStatus != s.wantPrev || payload.Data.Mention.Status != s.status {
			t.Errorf("step %d: event %+v, want %s -> %s", i, payload.Data, s.wantPrev, s.status)
		}
	}
}

// drain returns the undispatched events and marks them dispatched (fanned
// out to no target).
func drain(t *testing.T, st *store.Store) []*store.OutboxEvent {
	t.Helper()
	evs, err := st.UndispatchedEvents(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var fs []store.Fanout
	for _, e := range evs {
		fs = append(fs, store.Fanout{Event: e})
	}
	if _, err := st.Dispatch(context.Background(), fs, time.Now()); err != nil {
		t.Fatal(err)
	}
	return evs
}
