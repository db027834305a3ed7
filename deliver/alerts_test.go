package deliver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"earshot/store"
	"earshot/webhooksig"
)

// TestAlertFilters: an alert's filters select a new mention with the
// store's one filter (store/filter_test.go proves it equal to the SQL of
// list_mentions and views), presets resolved at the worker's now.
func TestAlertFilters(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	monA := "mon-a"
	m := &store.Mention{ID: "m1", ProjectID: "p1", MonitorID: &monA, MonitorIDs: []string{"mon-a", "mon-b"}, Source: "reddit", AuthorHandle: "angry_dev",
		Text: "Acme CHECKOUT is broken on the STRASSE", PublishedAt: "2026-03-14T09:00:00.000Z", Category: "bug_report", Sentiment: "negative",
		Urgency: 80, Status: "new", IsRelevant: true}
	n := func(v int) *int { return &v }
	cases := []struct {
		name string
		f    store.Filter
		want bool
	}{
		{"empty", store.Filter{}, true},
		{"monitor primary", store.Filter{MonitorID: "mon-a"}, true},
		{"monitor secondary", store.Filter{MonitorID: "mon-b"}, true},
		{"monitor other", store.Filter{MonitorID: "mon-c"}, false},
		{"source", store.Filter{Source: "reddit"}, true},
		{"source other", store.Filter{Source: "x"}, false},
		{"category", store.Filter{Category: "complaint"}, false},
		{"sentiment", store.Filter{Sentiment: "negative"}, true},
		{"status", store.Filter{Status: "done"}, false},
		{"min urgency", store.Filter{MinUrgency: n(80)}, true},
		{"min urgency above", store.Filter{MinUrgency: n(81)}, false},
		{"max urgency below", store.Filter{MaxUrgency: n(79)}, false},
		{"author", store.Filter{AuthorHandle: "@Angry_Dev"}, true},
		{"author other", store.Filter{AuthorHandle: "someone"}, false},
		{"search case-insensitive", store.Filter{Search: "checkout is"}, true},
		{"search Unicode folding", store.Filter{Search: "straße"}, true},
		{"search miss", store.Filter{Search: "refund"}, false},
		{"today", store.Filter{DatePreset: "today"}, true},
		{"last 24 hours", store.Filter{DatePreset: "last_24_hours"}, true},
		{"since after", store.Filter{Since: "2026-03-14T10:00:00Z"}, false},
		{"since exactly", store.Filter{Since: "2026-03-14T09:00:00Z"}, true},
		{"since overrides preset", store.Filter{DatePreset: "today", Since: "2026-03-01T00:00:00Z"}, true},
		{"since as a bare date", store.Filter{Since: "2026-03-14"}, true},
		{"until before", store.Filter{Until: "2026-03-14T08:00:00Z"}, false},
		{"until exactly: exclusive", store.Filter{Until: "2026-03-14T09:00:00Z"}, false},
		{"until after", store.Filter{Until: "2026-03-14T09:00:00.001Z"}, true},
		{"all", store.Filter{Source: "reddit", Sentiment: "negative", MinUrgency: n(70), Search: "acme", DatePreset: "last_7_days"}, true},
	}
	for _, c := range cases {
		if got := alertMatch(&c.f, m, now); got != c.want {
			t.Errorf("%s: got %v", c.name, got)
		}
	}
	old := *m
	old.PublishedAt = "2026-03-13T23:00:00.000Z"
	if alertMatch(&store.Filter{DatePreset: "today"}, &old, now) {
		t.Error("yesterday's mention matched today")
	}
	irrelevant := *m
	irrelevant.IsRelevant = false
	if alertMatch(&store.Filter{}, &irrelevant, now) {
		t.Error("irrelevant mention matched")
	}
}

func addAlert(t *testing.T, st *store.Store, a *store.Alert) *store.Alert {
	t.Helper()
	a.Active = true
	if a.Digest == "" {
		a.Digest = "instant"
	}
	if a.Filters == nil {
		a.Filters = json.RawMessage(`{}`)
	}
	if err := st.CreateAlert(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a
}

func mention(id, source, sentiment, text string, urgency int) map[string]any {
	return map[string]any{"id": id, "source": source, "sentiment": sentiment, "text": text, "urgency": urgency,
		"author_handle": "user_" + id, "url": "https://example.com/" + id, "published_at": store.FormatTime(time.Now()),
		"category": "complaint", "status": "new", "is_relevant": true, "monitor_id": "mon-1", "monitor_ids": []string{"mon-1"}}
}

func TestAlertChannels(t *testing.T) {
	st, pid := testStore(t)
	smtp := startSMTP(t, &testSMTP{}, nil)
	slack := newReceiver(t, nil)
	hook := newReceiver(t, nil)
	secret := webhooksig.NewSecret()

	emailAlert := addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Urgent reddit", MinUrgency: 70, Channel: "email", Target: "team@example.com",
		Filters: json.RawMessage(`{"source":"reddit"}`)})
	addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Checkout", MinUrgency: 0, Channel: "slack", Target: slack.URL + "/services/T/B/X",
		Filters: json.RawMessage(`{"search":"checkout"}`)})
	hookAlert := addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Negative", MinUrgency: 50, Channel: "webhook", Target: hook.URL, Secret: secret,
		Filters: json.RawMessage(`{"sentiment":"negative","monitor_id":"mon-1"}`)})

	// m1: reddit, urgent, negative, about checkout: all three.
	// m2: x, urgent, negative: webhook only. m3: reddit, calm, about checkout: slack only.
	mentionEvent(t, st, pid, mention("m1", "reddit", "negative", "The Checkout is broken", 90))
	mentionEvent(t, st, pid, mention("m2", "x", "negative", "Support never answers", 75))
	mentionEvent(t, st, pid, mention("m3", "reddit", "positive", "checkout was smooth", 10))
	// Not a mention.created event: no alert.
	recordEvent(t, st, pid, "mention.updated", map[string]any{"mention": mention("m1", "reddit", "negative", "checkout", 90)})

	startWorker(t, st, WorkerConfig{SMTPURL: "smtp://" + smtp.addr + "?from=alerts@example.com", BaseURL: "https://earshot.example.com/"})

	sess := smtp.session(t)
	msg, body := decodeMessage(t, sess.data)
	if len(sess.rcpts) != 1 || !strings.Contains(sess.rcpts[0], "team@example.com") {
		t.Fatalf("rcpts %v", sess.rcpts)
	}
	if subj := msg.Header.Get("Subject"); !strings.Contains(subj, "Urgent reddit") || !strings.Contains(body, "user_m1") ||
		!strings.Contains(body, "https://earshot.example.com/mentions/m1") || !strings.Contains(body, `project "Acme"`) {
		t.Fatalf("email %q\n%s", subj, body)
	}

	waitFor(t, 5*time.Second, "slack and webhook", func() bool { return len(slack.got()) == 2 && len(hook.got()) == 2 })
	for i, want := range []string{"user_m1", "user_m3"} {
		var msg map[string]string
		if err := json.Unmarshal(slack.got()[i].Body, &msg); err != nil || len(msg) != 1 || !strings.Contains(msg["text"], want) {
			t.Fatalf("slack %d: %s", i, slack.got()[i].Body)
		}
	}
	got := hook.got()
	for i, want := range []string{"m1", "m2"} {
		var body struct {
			ID, Type  string
			ProjectID string `json:"project_id"`
			Data      struct {
				Alert    struct{ ID, Name string }
				Mentions []struct{ ID string }
			}
		}
		if err := json.Unmarshal(got[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		if body.ID != got[i].ID || body.Type != "alert.triggered" || body.ProjectID != pid || body.Data.Alert.ID != hookAlert.ID ||
			len(body.Data.Mentions) != 1 || body.Data.Mentions[0].ID != want {
			t.Fatalf("alert webhook %d: %s", i, got[i].Body)
		}
	}
	verifyNPM(t, []string{secret}, got)

	// Exactly one email: m2 is not reddit, m3 is below min_urgency.
	time.Sleep(200 * time.Millisecond)
	select {
	case s := <-smtp.sessions:
		t.Fatalf("unexpected second email %s", s.data)
	default:
	}
	ds, err := st.ListAlertDeliveries(context.Background(), emailAlert.ID, 10)
	if err != nil || len(ds) != 1 || ds[0].Status != "delivered" || ds[0].Kind != "instant" {
		t.Fatalf("email alert log %+v %v", ds, err)
	}
}

func TestAlertEmailWithoutSMTPRetriesThenFails(t *testing.T) {
	st, pid := testStore(t)
	a := addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Any", MinUrgency: 0, Channel: "email", Target: "team@example.com"})
	mentionEvent(t, st, pid, mention("m1", "reddit", "negative", "x", 90))
	startWorker(t, st, WorkerConfig{})
	waitFor(t, 5*time.Second, "failed", func() bool {
		ds, _ := st.ListAlertDeliveries(context.Background(), a.ID, 10)
		return len(ds) == 1 && ds[0].Status == "failed"
	})
	ds, _ := st.ListAlertDeliveries(context.Background(), a.ID, 10)
	if ds[0].Attempts != len(fastSchedule) || !strings.Contains(ds[0].LastError, "EARSHOT_SMTP_URL") {
		t.Fatalf("%+v", ds[0])
	}
}

// offsetClock is a clock the test moves forward while the worker reads it.
type offsetClock struct{ offset atomic.Int64 }

func (c *offsetClock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *offsetClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
func withClock(c *offsetClock) func(w *Worker) { return func(w *Worker) { w.now = c.Now } }
func digestItems(t *testing.T, st *store.Store) int {
	t.Helper()
	qs, err := st.DigestQueues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range qs {
		n += q.Items
	}
	return n
}

func TestAlertHourlyDigestBatches(t *testing.T) {
	st, pid := testStore(t)
	slack := newReceiver(t, nil)
	smtp := startSMTP(t, &testSMTP{}, nil)
	a := addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Hourly", MinUrgency: 0, Channel: "slack", Target: slack.URL, Digest: "hourly"})
	addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Daily mail", MinUrgency: 0, Channel: "email", Target: "team@example.com", Digest: "daily"})
	clock := &offsetClock{}
	startWorker(t, st, WorkerConfig{SMTPURL: "smtp://" + smtp.addr + "?from=alerts@example.com"}, withClock(clock))
	for i := range 3 {
		mentionEvent(t, st, pid, mention(fmt.Sprintf("m%d", i), "reddit", "negative", "checkout", 80))
	}
	waitFor(t, 5*time.Second, "queued", func() bool { return digestItems(t, st) == 6 })
	time.Sleep(100 * time.Millisecond)
	if n := len(slack.got()); n != 0 {
		t.Fatalf("%d slack messages before the hour ended", n)
	}

	clock.Advance(time.Hour)
	waitFor(t, 5*time.Second, "hourly digest", func() bool { return len(slack.got()) == 1 })
	var msg map[string]string
	if err := json.Unmarshal(slack.got()[0].Body, &msg); err != nil || !strings.Contains(msg["text"], "3 new mentions for Hourly") {
		t.Fatalf("digest %s", slack.got()[0].Body)
	}
	for i := range 3 {
		if !strings.Contains(msg["text"], fmt.Sprintf("user_m%d", i)) {
			t.Fatalf("digest lacks m%d: %s", i, msg["text"])
		}
	}
	if got, _ := st.Alert(context.Background(), pid, a.ID); got.LastDigestAt == nil {
		t.Fatal("last_digest_at not set")
	}
	// The daily digest waits for the end of the UTC day (unless this test
	// runs in the last hour of one).
	if digestCutoff("daily", time.Now()).After(clock.Now().Add(time.Minute)) {
		if n := digestItems(t, st); n != 3 {
			t.Fatalf("%d items left, want the daily alert's 3", n)
		}
	}
	clock.Advance(24 * time.Hour)
	sess := smtp.session(t)
	if _, body := decodeMessage(t, sess.data); !strings.Contains(body, "3 new mentions matched") {
		t.Fatalf("daily digest:\n%s", body)
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(slack.got()); n != 1 {
		t.Fatalf("%d slack messages, want one digest", n)
	}
}

func TestDeleteAlertStopsNotifications(t *testing.T) {
	st, pid := testStore(t)
	rc := newReceiver(t, func(n int, r received, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
	retrying := addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Retrying", MinUrgency: 0, Channel: "slack", Target: rc.URL + "/retrying"})
	queued := addAlert(t, st, &store.Alert{ProjectID: pid, Name: "Queued", MinUrgency: 0, Channel: "slack", Target: rc.URL + "/queued"})

	// Notifications are stored while no worker runs; deleting the alert
	// drops them before anything is sent.
	w := NewWorker(st, WorkerConfig{AllowPrivate: true, Schedule: fastSchedule}, nil, nil)
	mentionEvent(t, st, pid, mention("m1", "reddit", "negative", "x", 90))
	if err := w.dispatch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ds, _ := st.ListAlertDeliveries(context.Background(), queued.ID, 10); len(ds) != 1 || ds[0].Status != "pending" {
		t.Fatalf("not stored before sending: %+v", ds)
	}
	if err := st.DeleteAlert(context.Background(), pid, queued.ID); err != nil {
		t.Fatal(err)
	}

	// A notification being retried stops at the next attempt.
	startWorker(t, st, WorkerConfig{Schedule: Schedule{0, 300 * time.Millisecond, 300 * time.Millisecond}})
	waitFor(t, 5*time.Second, "first attempt", func() bool { return len(rc.got()) == 1 })
	if err := st.DeleteAlert(context.Background(), pid, retrying.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond)
	for _, r := range rc.got() {
		if r.Path != "/retrying" {
			t.Fatalf("deleted alert notified %s", r.Path)
		}
	}
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d attempts after delete_alert", n)
	}
}

// TestAlertWebhookEventFormat: an alert's webhook notification is an event like
// any other (docs/decisions.md#webhooks): {"id": "evt_…", "type", "created_at",
// "project_id", "data"}, signed with webhook-id equal to that id, and a retry
// keeps it.
func TestAlertWebhookEventFormat(t *testing.T) {
	st, pid := testStore(t)
	hook := newReceiver(t, func(n int, _ received, w http.ResponseWriter) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the retry must keep the id
		}
	})
	secret := webhooksig.NewSecret()
	addAlert(t, st, &store.Alert{ProjectID: pid, Name: "All", MinUrgency: 0, Channel: "webhook", Target: hook.URL, Secret: secret,
		Filters: json.RawMessage(`{}`)})
	mentionEvent(t, st, pid, mention("m1", "reddit", "negative", "broken", 90))
	startWorker(t, st, WorkerConfig{Schedule: fastSchedule})
	waitFor(t, 5*time.Second, "the alert and its retry", func() bool { return len(hook.got()) == 2 })

	got := hook.got()
	for i, r := range got {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		keys := make([]string, 0, len(body))
		for k := range body {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if strings.Join(keys, " ") != "created_at data id project_id type" {
			t.Errorf("attempt %d: keys %v", i, keys)
		}
		var id, typ, projectID string
		json.Unmarshal(body["id"], &id)
		json.Unmarshal(body["type"], &typ)
		json.Unmarshal(body["project_id"], &projectID)
		if !strings.HasPrefix(id, "evt_") || r.ID != id {
			t.Errorf("attempt %d: payload id %q, webhook-id %q; want the same evt_ id", i, id, r.ID)
		}
		if typ != "alert.triggered" || projectID != pid {
			t.Errorf("attempt %d: type %q project %q", i, typ, projectID)
		}
	}
	if got[0].ID != got[1].ID || !bytes.Equal(got[0].Body, got[1].Body) {
		t.Errorf("the retry changed the event: %s %s / %s %s", got[0].ID, got[0].Body, got[1].ID, got[1].Body)
	}
	verifyNPM(t, []string{secret}, got)
}
