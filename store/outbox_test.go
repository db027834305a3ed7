package store

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

func outboxFixture(t *testing.T) (*Store, string, *Webhook) {
	t.Helper()
	ctx := context.Background()
	s := openTest(t)
	u, err := s.CreateUser(ctx, "o@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.CreateProject(ctx, u.ID, "Acme", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &Webhook{ProjectID: p.ID, URL: "https://example.com/hook", Events: []string{"mention.created"}, Active: true, Secret: "whsec_AAAA"}
	if err := s.CreateWebhook(ctx, w); err != nil {
		t.Fatal(err)
	}
	return s, p.ID, w
}

// dispatchAll fans every pending event out to the webhook.
func dispatchAll(t *testing.T, s *Store, hookID string) int {
	t.Helper()
	evs, err := s.UndispatchedEvents(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var fs []Fanout
	for _, e := range evs {
		fs = append(fs, Fanout{Event: e, WebhookIDs: []string{hookID}})
	}
	n, err := s.Dispatch(context.Background(), fs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDispatchOnce(t *testing.T) {
	ctx := context.Background()
	s, pid, w := outboxFixture(t)
	for range 3 {
		ev, _ := NewEvent(pid, "mention.created", map[string]any{"mention": map[string]any{"id": "m"}})
		if err := s.RecordEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := s.UndispatchedEvents(ctx, 100)
	if n := dispatchAll(t, s, w.ID); n != 3 {
		t.Fatalf("dispatched %d", n)
	}
	// Another instance holding the same stale read creates nothing.
	var fs []Fanout
	for _, e := range evs {
		fs = append(fs, Fanout{Event: e, WebhookIDs: []string{w.ID}})
	}
	if n, err := s.Dispatch(ctx, fs, time.Now()); err != nil || n != 0 {
		t.Fatalf("second dispatch %d %v", n, err)
	}
	ds, _ := s.ListDeliveries(ctx, w.ID, "", 0, 10)
	if len(ds) != 3 || ds[2].EventID != evs[0].ID || ds[0].Payload != "" {
		t.Fatalf("deliveries %+v", ds)
	}
	// Deliveries read the body from the event; one still pending when the
	// event is purged takes its own copy, so it is still sent and replays
	// survive.
	if _, err := s.w.ExecContext(ctx, `DELETE FROM events`); err != nil {
		t.Fatal(err)
	}
	jobs, _ := s.ClaimRun(ctx, WebhookOutbox, w.ID, "me", time.Now(), time.Now().Add(time.Minute), 10)
	if len(jobs) != 3 || jobs[0].Payload != evs[0].Payload || jobs[2].Payload != evs[2].Payload {
		t.Fatalf("jobs %+v", jobs)
	}
	r, err := s.ReplayDelivery(ctx, pid, ds[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.RecordAttempts(ctx, "me", Record{Outbox: WebhookOutbox, Attempts: []Attempt{{Seq: jobs[0].Seq, Status: "delivered", At: time.Now()},
		{Seq: jobs[1].Seq, Status: "delivered", At: time.Now()}, {Seq: jobs[2].Seq, Status: "delivered", At: time.Now()}}})
	jobs, _ = s.ClaimRun(ctx, WebhookOutbox, w.ID, "me", time.Now(), time.Now().Add(time.Minute), 10)
	if len(jobs) != 1 || jobs[0].ID != r.ID || !jobs[0].Replay || jobs[0].Payload != evs[2].Payload {
		t.Fatalf("replay job %+v", jobs)
	}
}

func TestClaimRunHeadOfLine(t *testing.T) {
	ctx := context.Background()
	s, pid, w := outboxFixture(t)
	for range 3 {
		ev, _ := NewEvent(pid, "mention.created", json.RawMessage(`{}`))
		_ = s.RecordEvent(ctx, ev)
	}
	dispatchAll(t, s, w.ID)
	now := time.Now()
	jobs, err := s.ClaimRun(ctx, WebhookOutbox, w.ID, "a", now, now.Add(time.Minute), 2)
	if err != nil || len(jobs) != 2 || jobs[0].Seq > jobs[1].Seq {
		t.Fatalf("claim %v %+v", err, jobs)
	}
	// The head is leased by a: b gets nothing, not the third delivery.
	if more, _ := s.ClaimRun(ctx, WebhookOutbox, w.ID, "b", now, now.Add(time.Minute), 10); len(more) != 0 {
		t.Fatalf("b claimed %d behind a leased head", len(more))
	}
	// A retry of the head blocks the rest until it is due.
	next := now.Add(time.Hour)
	if err := s.RecordAttempts(ctx, "a", Record{Outbox: WebhookOutbox, Attempts: []Attempt{{Seq: jobs[0].Seq, Status: "pending", StatusCode: 500, Error: "500", NextAttemptAt: next, At: now}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseLeases(ctx, WebhookOutbox, "a", []int64{jobs[1].Seq}); err != nil {
		t.Fatal(err)
	}
	if more, _ := s.ClaimRun(ctx, WebhookOutbox, w.ID, "b", now, now.Add(time.Minute), 10); len(more) != 0 {
		t.Fatalf("claimed %d behind a head that is not due", len(more))
	}
	heads, _ := s.Heads(ctx, WebhookOutbox)
	if len(heads) != 1 || heads[0].NextAttemptAt != FormatTime(next) {
		t.Fatalf("heads %+v", heads)
	}
	// A failure on a lost lease is not recorded; a success always is.
	jobs, _ = s.ClaimRun(ctx, WebhookOutbox, w.ID, "b", next, next.Add(time.Minute), 1)
	if len(jobs) != 1 || jobs[0].Attempts != 1 {
		t.Fatalf("claim at next %+v", jobs)
	}
	_ = s.RecordAttempts(ctx, "a", Record{Outbox: WebhookOutbox, Attempts: []Attempt{{Seq: jobs[0].Seq, Status: "failed", At: next}}})
	ds, _ := s.ListDeliveries(ctx, w.ID, "pending", 0, 10)
	if len(ds) != 3 {
		t.Fatalf("stale failure recorded: %d pending", len(ds))
	}
	_ = s.RecordAttempts(ctx, "a", Record{Outbox: WebhookOutbox, Attempts: []Attempt{{Seq: jobs[0].Seq, Status: "delivered", StatusCode: 204, At: next}}})
	ds, _ = s.ListDeliveries(ctx, w.ID, "delivered", 0, 10)
	if len(ds) != 1 || ds[0].Attempts != 2 || *ds[0].LastStatusCode != 204 {
		t.Fatalf("delivered %+v", ds)
	}
}

func TestFlushDigestAndCascade(t *testing.T) {
	ctx := context.Background()
	s, pid, _ := outboxFixture(t)
	a := &Alert{ProjectID: pid, Name: "d", Active: true, Channel: "slack", Target: "https://hooks.slack.com/x", Filters: json.RawMessage(`{}`), Digest: "hourly"}
	if err := s.CreateAlert(ctx, a); err != nil {
		t.Fatal(err)
	}
	var fs []Fanout
	for _, id := range []string{"m1", "m2"} {
		ev, _ := NewEvent(pid, "mention.created", map[string]any{"mention": map[string]any{"id": id}})
		_ = s.RecordEvent(ctx, ev)
	}
	evs, _ := s.UndispatchedEvents(ctx, 10)
	for _, e := range evs {
		fs = append(fs, Fanout{Event: e, Alerts: []AlertNotice{{AlertID: a.ID, Digest: true, Mention: json.RawMessage(`{"id":"x"}`)}}})
	}
	if _, err := s.Dispatch(ctx, fs, time.Now()); err != nil {
		t.Fatal(err)
	}
	qs, _ := s.DigestQueues(ctx)
	if len(qs) != 1 || qs[0].Items != 2 || qs[0].Digest != "hourly" {
		t.Fatalf("queues %+v", qs)
	}
	if ok, err := s.FlushDigest(ctx, a.ID, time.Now().Add(time.Minute), time.Now()); !ok || err != nil {
		t.Fatalf("flush %v %v", ok, err)
	}
	jobs, _ := s.ClaimRun(ctx, AlertOutbox, a.ID, "me", time.Now(), time.Now().Add(time.Minute), 10)
	if len(jobs) != 1 || jobs[0].Payload != `[{"id":"x"},{"id":"x"}]` || jobs[0].EventType != "digest" {
		t.Fatalf("digest job %+v", jobs)
	}
	if qs, _ := s.DigestQueues(ctx); len(qs) != 0 {
		t.Fatalf("items left %+v", qs)
	}
	if err := s.DeleteAlert(ctx, pid, a.ID); err != nil {
		t.Fatal(err)
	}
	if ds, _ := s.ListAlertDeliveries(ctx, a.ID, 10); len(ds) != 0 {
		t.Fatalf("notifications outlived their alert: %+v", ds)
	}
}

// TestDispatchReferencesEventBody: deliveries share their event's body; a
// body completed from the mention is written back once, so every webhook
// and every later attempt sends the same bytes; the 30-day purge of events
// takes their finished deliveries along.
func TestDispatchReferencesEventBody(t *testing.T) {
	ctx := context.Background()
	s, pid, w := outboxFixture(t)
	w2 := &Webhook{ProjectID: pid, URL: "https://example.com/two", Events: []string{"mention.created"}, Active: true, Secret: "whsec_AAAA"}
	if err := s.CreateWebhook(ctx, w2); err != nil {
		t.Fatal(err)
	}
	// A reference event whose mention does not exist keeps its reference
	// body; the write-back path is the same.
	ref := newMentionRefEvent(pid, "mention.created", "m_missing")
	plain, _ := NewEvent(pid, "mention.created", map[string]any{"mention": map[string]any{"id": "m2"}})
	for _, ev := range []*Event{ref, plain} {
		if err := s.RecordEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := s.UndispatchedEvents(ctx, 10)
	if err != nil || len(evs) != 2 || !evs[0].completed || evs[1].completed {
		t.Fatalf("events %v %+v", err, evs)
	}
	evs[0].Payload = `{"completed":true}` // stands for the completed body
	fs := []Fanout{{Event: evs[0], WebhookIDs: []string{w.ID, w2.ID}}, {Event: evs[1], WebhookIDs: []string{w.ID, w2.ID, "wh_deleted"}}}
	if n, err := s.Dispatch(ctx, fs, time.Now()); err != nil || n != 2 {
		t.Fatalf("dispatch %d %v", n, err)
	}
	for _, h := range []*Webhook{w, w2} {
		jobs, err := s.ClaimRun(ctx, WebhookOutbox, h.ID, "me", time.Now(), time.Now().Add(time.Minute), 10)
		if err != nil || len(jobs) != 2 || jobs[0].Payload != `{"completed":true}` || jobs[1].Payload != evs[1].Payload || jobs[0].EventID != ref.ID {
			t.Fatalf("jobs %v %+v", err, jobs)
		}
		if err := s.RecordAttempts(ctx, "me", Record{Outbox: WebhookOutbox, Attempts: []Attempt{{Seq: jobs[0].Seq, Status: "delivered", StatusCode: 200, At: time.Now()}}}); err != nil {
			t.Fatal(err)
		}
	}
	var stored string
	_ = s.r.QueryRowContext(ctx, `SELECT payload FROM events WHERE seq = ?`, ref.Seq).Scan(&stored)
	if stored != `{"completed":true}` {
		t.Fatalf("event body not written back: %s", stored)
	}
	// Replays carry their own copy.
	ds, _ := s.ListDeliveries(ctx, w.ID, "delivered", 0, 10)
	r, err := s.ReplayDelivery(ctx, pid, ds[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var own string
	_ = s.r.QueryRowContext(ctx, `SELECT payload FROM deliveries WHERE id = ?`, r.ID).Scan(&own)
	if own != `{"completed":true}` {
		t.Fatalf("replay body %q", own)
	}
	// Purge: the delivered ones go with the event, the pending ones keep a
	// copy of the body and stay sendable, the replay is untouched.
	if _, err := s.w.ExecContext(ctx, `DELETE FROM events`); err != nil {
		t.Fatal(err)
	}
	var left int
	_ = s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries`).Scan(&left)
	if left != 3 {
		t.Fatalf("%d deliveries left after the purge, want 2 pending + 1 replay", left)
	}
	_ = s.ReleaseLeases(ctx, WebhookOutbox, "me", []int64{1, 2, 3, 4, 5, 6})
	jobs, _ := s.ClaimRun(ctx, WebhookOutbox, w2.ID, "me", time.Now(), time.Now().Add(time.Minute), 10)
	if len(jobs) != 1 || jobs[0].Payload != evs[1].Payload {
		t.Fatalf("pending after purge %+v", jobs)
	}
}

// TestDispatchToHandoff: the hand-off sees each webhook's last pending
// delivery, leases the first new delivery of what it takes, and gets the
// jobs with their seqs; statements are split for large fan-outs.
func TestDispatchToHandoff(t *testing.T) {
	ctx := context.Background()
	s, pid, w := outboxFixture(t)
	ids := []string{w.ID}
	for i := range insertRows + 20 {
		h := &Webhook{ProjectID: pid, URL: "https://example.com/h" + strconv.Itoa(i), Events: []string{"mention.created"}, Active: true, Secret: "whsec_AAAA"}
		if err := s.CreateWebhook(ctx, h); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.ID)
	}
	record := func() *OutboxEvent {
		ev, _ := NewEvent(pid, "mention.created", map[string]any{"mention": map[string]any{"id": "m"}})
		if err := s.RecordEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		evs, _ := s.UndispatchedEvents(ctx, 10)
		return evs[0]
	}
	until := time.Now().Add(time.Minute)
	lasts := map[string]int64{}
	got := map[string][]*Job{}
	h := &Handoff{Owner: "me", Until: until,
		Take:  func(id string, last int64) bool { lasts[id] = last; return id == w.ID },
		Taken: func(id string, jobs []*Job) { got[id] = append(got[id], jobs...) }}
	ev := record()
	if n, err := s.DispatchTo(ctx, []Fanout{{Event: ev, WebhookIDs: ids}}, time.Now(), h); err != nil || n != 1 {
		t.Fatalf("dispatch %d %v", n, err)
	}
	if len(lasts) != len(ids) || lasts[w.ID] != 0 || len(got) != 1 || len(got[w.ID]) != 1 {
		t.Fatalf("take saw %v, taken %v", lasts, got)
	}
	j := got[w.ID][0]
	var owner, seqEvent string
	var deliveries int
	_ = s.r.QueryRowContext(ctx, `SELECT lease_owner, event_seq FROM deliveries WHERE seq = ? AND id = ?`, j.Seq, j.ID).Scan(&owner, &seqEvent)
	_ = s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries`).Scan(&deliveries)
	if owner != "me" || seqEvent != strconv.FormatInt(ev.Seq, 10) || deliveries != len(ids) || j.Payload != ev.Payload || j.EventAt != ev.CreatedAt {
		t.Fatalf("taken job %+v: owner %q event_seq %s, %d deliveries", j, owner, seqEvent, deliveries)
	}
	// Next time the webhook's last pending delivery is the taken one; what
	// is not taken gets no lease.
	ev2 := record()
	lasts = map[string]int64{}
	h.Take = func(id string, last int64) bool { lasts[id] = last; return false }
	if _, err := s.DispatchTo(ctx, []Fanout{{Event: ev2, WebhookIDs: []string{w.ID}}}, time.Now(), h); err != nil {
		t.Fatal(err)
	}
	var leased int
	_ = s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE lease_owner IS NOT NULL`).Scan(&leased)
	if lasts[w.ID] != j.Seq || leased != 1 || len(got[w.ID]) != 1 {
		t.Fatalf("second take saw %v, %d leased", lasts, leased)
	}
	// Many successes in one record.
	var recs []Attempt
	rows, _ := s.r.QueryContext(ctx, `SELECT seq FROM deliveries`)
	for rows.Next() {
		var seq int64
		_ = rows.Scan(&seq)
		recs = append(recs, Attempt{Seq: seq, Status: "delivered", StatusCode: 200, At: time.Now()})
	}
	rows.Close()
	if err := s.RecordAttempts(ctx, "me", Record{Outbox: WebhookOutbox, Attempts: recs}); err != nil {
		t.Fatal(err)
	}
	var pending int
	_ = s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE status <> 'delivered' OR lease_owner IS NOT NULL OR attempts <> 1`).Scan(&pending)
	if pending != 0 {
		t.Fatalf("%d deliveries not recorded as delivered", pending)
	}
}
