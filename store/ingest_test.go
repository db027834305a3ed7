package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"earshot/store"
)

func newMentions(prefix string, n int) []store.NewMention {
	out := make([]store.NewMention, n)
	for i := range out {
		out[i] = store.NewMention{Source: "x", ExternalID: fmt.Sprintf("%s-%d", prefix, i), Text: "Acme " + prefix, PublishedAt: time.Now(),
			IsRelevant: true, Category: "other", Sentiment: "neutral"}
	}
	return out
}

// TestIngestConcurrentGroups: concurrent callers share transactions (group
// commit) without changing what each one is told or what is stored: the
// same post sent by several callers at once is stored once, the quota is
// applied across all of them, and a batch that fails (unknown project)
// fails alone.
func TestIngestConcurrentGroups(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "g@example.com", "x", "")
	open, _ := st.CreateProject(ctx, u.ID, "Open", nil)
	limited, _ := st.CreateProject(ctx, u.ID, "Limited", nil)

	const callers = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	newOpen, dupOpen, newLimited, droppedLimited, failures := 0, 0, 0, 0, 0
	for c := range callers {
		wg.Go(func() {
			// Every caller sends the same 50 shared posts and 20 of its own.
			batch := append(newMentions("shared", 50), newMentions(fmt.Sprintf("own%d", c), 20)...)
			res, err := st.IngestMentions(ctx, open.ID, 0, batch)
			if err != nil {
				t.Error(err)
				return
			}
			lim, err := st.IngestMentions(ctx, limited.ID, 100, newMentions(fmt.Sprintf("lim%d", c), 10))
			if err != nil {
				t.Error(err)
				return
			}
			// Failing batches are sent while other callers' batches are
			// queued, so some share their group.
			failed := 0
			for r := range 5 {
				if _, err := st.IngestMentions(ctx, "no-such-project", 0, newMentions(fmt.Sprintf("bad%d-%d", c, r), 3)); err != nil {
					failed++
				}
				if _, err := st.IngestMentions(ctx, open.ID, 0, newMentions(fmt.Sprintf("more%d-%d", c, r), 40)); err != nil {
					t.Error(err)
					return
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if res.New != len(res.Created) {
				t.Errorf("New %d but %d created", res.New, len(res.Created))
			}
			newOpen += res.New
			dupOpen += res.Duplicates
			newLimited += lim.New
			droppedLimited += lim.Dropped
			failures += failed
		})
	}
	wg.Wait()
	extra := callers * 5 * 40
	if want := 50 + callers*20; newOpen != want || dupOpen != callers*70-want {
		t.Errorf("open project: %d new, %d duplicates; want %d new, %d duplicates", newOpen, dupOpen, want, callers*70-want)
	}
	if newLimited != 100 || droppedLimited != callers*10-100 {
		t.Errorf("limited project: %d new, %d dropped; want 100 and %d", newLimited, droppedLimited, callers*10-100)
	}
	if failures != callers*5 {
		t.Errorf("%d of %d batches for an unknown project failed", failures, callers*5)
	}
	ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: open.ID}, nil, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 50+callers*20+extra {
		t.Errorf("open project holds %d mentions, want %d", len(ms), 50+callers*20+extra)
	}
	usage, err := st.Usage(ctx, limited.ID, store.PeriodStart(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if usage.MentionsUsed != 100 || usage.Dropped != callers*10-100 {
		t.Errorf("limited usage: %d used, %d dropped", usage.MentionsUsed, usage.Dropped)
	}
}

// TestIngestCancelledCaller: a caller whose context has ended gets its
// error and stores nothing.
func TestIngestCancelledCaller(t *testing.T) {
	st := openTest(t)
	u, _ := st.CreateUser(context.Background(), "c@example.com", "x", "")
	p, _ := st.CreateProject(context.Background(), u.ID, "P", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.IngestMentions(ctx, p.ID, 0, newMentions("c", 5)); err == nil {
		t.Fatal("cancelled ingest succeeded")
	}
	ms, _ := st.ListMentions(context.Background(), store.MentionFilter{ProjectID: p.ID}, nil, 100)
	if len(ms) != 0 {
		t.Fatalf("%d mentions stored by a cancelled caller", len(ms))
	}
}
