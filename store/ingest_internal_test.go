package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestIngestGroupFailsAlone: in a group transaction, a failing batch (an
// unknown project breaks the foreign key) and a cancelled caller fail
// alone; the other batches of the group are stored and told so.
func TestIngestGroupFailsAlone(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	u, _ := st.CreateUser(ctx, "f@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	batch := func(prefix string) []NewMention {
		out := make([]NewMention, 3)
		for i := range out {
			out[i] = NewMention{Source: "x", ExternalID: fmt.Sprintf("%s%d", prefix, i), Text: "t", PublishedAt: time.Now(), IsRelevant: true, Category: "other", Sentiment: "neutral"}
		}
		return out
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	group := []*ingestReq{
		{ctx: ctx, projectID: p.ID, batch: batch("a")},
		{ctx: ctx, projectID: "no-such-project", batch: batch("b")},
		{ctx: cancelled, projectID: p.ID, batch: batch("c")},
		{ctx: ctx, projectID: p.ID, batch: batch("d")},
	}
	for _, r := range group {
		r.done = make(chan struct{})
	}
	st.ingestGroup(group)
	for i, want := range []bool{true, false, false, true} {
		r := group[i]
		<-r.done
		if ok := r.err == nil && r.res.New == 3; ok != want {
			t.Errorf("batch %d: err %v, %d new; want stored=%v", i, r.err, r.res.New, want)
		}
	}
	ms, err := st.ListMentions(ctx, MentionFilter{ProjectID: p.ID}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 6 {
		t.Errorf("%d mentions stored, want the 6 of batches a and d", len(ms))
	}
}
