package deliver

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
	"time"

	"earshot/store"
)

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	dateRE = regexp.MustCompile(`"\d{4}-\d\d-\d\d"`)
)

// normaliseVolatile replaces what differs between runs in a JSON body:
// each distinct UUID becomes <id-N> (numbered in order of appearance, so
// equal ids stay equal), each time within a month of now becomes <now> and
// each such date <date>; times the test chose stay, they are part of the
// format.
func normaliseVolatile(body []byte) []byte {
	ids := map[string]string{}
	body = uuidRE.ReplaceAllFunc(body, func(b []byte) []byte {
		s := string(b)
		if _, ok := ids[s]; !ok {
			ids[s] = "<id-" + strconv.Itoa(len(ids)+1) + ">"
		}
		return []byte(ids[s])
	})
	now := time.Now()
	recent := func(ts time.Time) bool {
		return ts.After(now.Add(-62*24*time.Hour)) && ts.Before(now.Add(31*24*time.Hour))
	}
	body = dateRE.ReplaceAllFunc(body, func(b []byte) []byte {
		if d, err := time.Parse(`"2006-01-02"`, string(b)); err == nil && recent(d) {
			return []byte(`"<date>"`)
		}
		return b
	})
	return timeRE.ReplaceAllFunc(body, func(b []byte) []byte {
		if ts, err := time.Parse(time.RFC3339Nano, string(b)); err == nil && recent(ts) {
			return []byte("<now>")
		}
		return b
	})
}

// TestWebhookPayloadSnapshots sends the events that carry records
// (mention.created, mention.updated, mention.assigned, spike.detected) and usage.quota_reached
// through the real path (ingest, triage and spike recording in the store,
// fan-out, the worker, an HTTP receiver) and compares each body, ids and
// times normalised, with
// testdata/webhook_<event>.json. A webhook body is a public format: a
// renamed field of a stored row must fail here, not at the receiver.
// Regenerate with -update after an intended change.
func TestWebhookPayloadSnapshots(t *testing.T) {
	ctx := context.Background()
	st, pid := testStore(t)
	mon := &store.Monitor{ProjectID: pid, Name: "Acme brand", Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"reddit"},
		Active: true, ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := st.CreateMonitor(ctx, mon); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, nil)
	addWebhook(t, st, pid, rc.URL, "mention.created", "mention.updated", "mention.assigned", "spike.detected", "usage.quota_reached")

	published := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	// A quota of one: the second post is dropped and fires usage.quota_reached.
	res, err := st.IngestMentions(ctx, pid, 1, []store.NewMention{{
		Source: "reddit", ExternalID: "abc123", URL: "https://www.reddit.com/r/devops/comments/abc123/", AuthorHandle: "u/angry_dev",
		Text: "Acme's checkout has been failing for two hours — 502 on every payment.", PublishedAt: published,
		Engagement: map[string]int64{"upvotes": 42, "comments": 7}, MonitorIDs: []string{mon.ID}, IsRelevant: true,
		Category: "bug_report", Sentiment: "negative", Urgency: 87, AISummary: "Checkout failing with 502 errors.", Classifier: "builtin",
		CategoryReason: "Reports a failure.", UrgencyReason: "Payments are down.", RelevanceReason: "Names Acme's checkout.",
	}, {
		Source: "reddit", ExternalID: "over-quota", URL: "https://www.reddit.com/r/devops/comments/over/", AuthorHandle: "u/late",
		Text: "Acme again.", PublishedAt: published, MonitorIDs: []string{mon.ID}, IsRelevant: true, Category: "other",
		Sentiment: "neutral", Urgency: 10, Classifier: "builtin",
	}})
	if err != nil || len(res.Created) != 1 {
		t.Fatalf("ingest: %v %+v", err, res)
	}
	if _, err := st.UpdateMentionStatus(ctx, pid, res.Created[0].ID, "reviewed"); err != nil {
		t.Fatal(err)
	}
	owner, err := st.UserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.TagMention(ctx, pid, res.Created[0].ID, "checkout", true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AssignMention(ctx, pid, res.Created[0].ID, owner.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordSpikes(ctx, pid, []store.SpikeFinding{{SpikeScope: store.SpikeScope{Scope: store.ScopeMonitor, ID: mon.ID},
		Kind: "volume", BucketStart: published.Truncate(time.Hour), Count: 12, Baseline: 2, Score: 5.5, Threshold: 6, Announce: true}}); err != nil {
		t.Fatal(err)
	}

	startWorker(t, st, WorkerConfig{})
	waitFor(t, 2*time.Minute, "five deliveries", func() bool { return len(rc.got()) == 5 })
	for _, r := range rc.got() {
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(r.Body, &ev); err != nil {
			t.Fatalf("body %s: %v", r.Body, err)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, normaliseVolatile(r.Body), "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteByte('\n')
		golden(t, "webhook_"+ev.Type+".json", pretty.String())
	}
}
