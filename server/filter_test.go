package server_test

import (
	"context"
	"log/slog"
	"net/url"
	"slices"
	"testing"
	"time"

	"earshot/deliver"
	"earshot/metrics"
	"earshot/store"
)

// TestAlertAndViewSelectAlike: an alert and a saved view with the same
// filters select the same mentions, and list_mentions with those filters as
// its query lists them, on the three points where alerts used to answer
// differently: author_handle letter case, Unicode case folding in search
// (straße finds STRASSE) and until exactly at a publication time
// (exclusive). Through the REST API and the delivery worker.
func TestAlertAndViewSelectAlike(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	until := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	filters := map[string]any{"author_handle": "@ANGRY_DEV", "search": "straße", "until": until.Format(time.RFC3339)}
	view := e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "Street", "filters": filters}).ok().data()
	alert := e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "Street", "channel": "email", "target": "ops@example.com",
		"min_urgency": 0, "digest": "daily", "filters": filters}).ok().data()

	posts := []struct {
		author, text string
		at           time.Time
		want         bool
	}{
		{"angry_dev", "The STRASSE is closed", until.Add(-time.Minute), true},
		{"Angry_Dev", "die Straße again", until.Add(-2 * time.Minute), true},
		{"ANGRY_DEV", "Strasse, third time", until.Add(-time.Millisecond), true},
		{"angry_dev", "straße at the very end", until, false}, // until is exclusive
		{"someone", "straße, someone else", until.Add(-time.Minute), false},
		{"angry_dev", "nothing about streets", until.Add(-time.Minute), false},
	}
	var want []string
	e.seedMentions(e.projA, nil, len(posts), until, func(i int, m *store.NewMention) {
		m.AuthorHandle, m.Text, m.PublishedAt = posts[i].author, posts[i].text, posts[i].at
	})
	all := e.do("GET", "/api/v1/mentions?limit=100", e.keyA, nil).ok().data()["items"].([]any)
	for _, it := range all {
		m := it.(map[string]any)
		for _, p := range posts {
			if p.want && m["text"] == p.text {
				want = append(want, m["id"].(string))
			}
		}
	}
	if len(want) != 3 {
		t.Fatalf("seeded %d wanted mentions", len(want))
	}
	slices.Sort(want)

	q := url.Values{}
	for k, v := range filters {
		q.Set(k, v.(string))
	}
	var listed []string
	for _, it := range e.do("GET", "/api/v1/mentions?"+q.Encode(), e.keyA, nil).ok().data()["items"].([]any) {
		listed = append(listed, it.(map[string]any)["id"].(string))
	}
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Errorf("list_mentions %v, want %v", listed, want)
	}
	for _, v := range e.do("GET", "/api/v1/views", e.keyA, nil).ok().data()["views"].([]any) {
		if v := v.(map[string]any); v["id"] == view["id"] && v["count"] != float64(len(want)) {
			t.Errorf("view count %v, want %d", v["count"], len(want))
		}
	}

	// The worker fans the mention.created events out to the alert: its
	// daily digest queues exactly the listed mentions.
	w := deliver.NewWorker(e.st, deliver.WorkerConfig{AllowPrivate: true, PollInterval: 10 * time.Millisecond}, slog.New(slog.DiscardHandler), metrics.New())
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(wctx) }()
	t.Cleanup(func() { cancel(); <-done })
	queued := -1
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if evs, err := e.st.UndispatchedEvents(ctx, 1); err != nil || len(evs) > 0 {
			continue
		}
		qs, err := e.st.DigestQueues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		queued = 0
		for _, dq := range qs {
			if dq.AlertID == alert["id"] {
				queued = dq.Items
			}
		}
		break
	}
	if queued != len(want) {
		t.Fatalf("alert queued %d mentions, the view and list_mentions select %d", queued, len(want))
	}
}

// TestAlertFiltersThatNeverFire: a mention alert notifies relevant
// mentions only, so filters keeping irrelevant mentions or the project's
// own posts are refused; a view takes them.
func TestAlertFiltersThatNeverFire(t *testing.T) {
	e := newEnv(t)
	for param, filters := range map[string]map[string]any{
		"filters.is_relevant": {"is_relevant": false},
		"filters.own":         {"own": true},
	} {
		r := e.do("POST", "/api/v1/alerts", e.keyA, map[string]any{"name": "Never", "channel": "email", "target": "ops@example.com", "filters": filters})
		if r.expect(400, "VALIDATION_ERROR"); r.errParam() != param {
			t.Errorf("%v: param %q, want %s", filters, r.errParam(), param)
		}
		e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "Irrelevant", "filters": filters}).ok()
	}
	e.do("POST", "/api/v1/views", e.keyA, map[string]any{"name": "Story", "filters": map[string]any{"story_id": "0190b1e4-0000-7000-8000-000000000000"}}).
		expect(404, "")
}
