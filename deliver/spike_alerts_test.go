package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"earshot/internal/webhookverify"
	"earshot/spike"
	"earshot/store"
	"earshot/webhooksig"
)

// TestSpikeDetectedDelivery: a burst found by the detector reaches, signed,
// the webhooks subscribed to spike.detected (and only those) and the alerts
// with trigger spike whose filters it passes; mention alerts stay silent.
func TestSpikeDetectedDelivery(t *testing.T) {
	st, pid := testStore(t)
	ctx := context.Background()
	mon := &store.Monitor{ProjectID: pid, Name: "Acme status", Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"},
		GroupName: "custom", Active: true, ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := st.CreateMonitor(ctx, mon); err != nil {
		t.Fatal(err)
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	var batch []store.NewMention
	add := func(at time.Time, n int) {
		for i := range n {
			batch = append(batch, store.NewMention{Source: "x", ExternalID: fmt.Sprint(len(batch)), Text: "acme is down", PublishedAt: at.Add(time.Duration(i) * time.Minute),
				MonitorIDs: []string{mon.ID}, IsRelevant: true, Category: "complaint", Sentiment: "neutral", Urgency: 80})
		}
	}
	add(hour.Add(-7*24*time.Hour), 1) // a week of a quiet monitor
	add(hour.Add(-2*time.Hour), 18)   // then an outage
	if _, err := st.IngestMentions(ctx, pid, 0, batch); err != nil {
		t.Fatal(err)
	}

	spikes := newReceiver(t, nil)
	mentionsOnly := newReceiver(t, nil)
	alerts := newReceiver(t, nil)
	hook := addWebhook(t, st, pid, spikes.URL, "spike.detected")
	addWebhook(t, st, pid, mentionsOnly.URL, "mention.updated")
	spikeAlert := &store.Alert{ProjectID: pid, Name: "Bursts", Active: true, Channel: "webhook", Target: alerts.URL + "/spike", Secret: webhooksig.NewSecret(),
		Filters: json.RawMessage(`{"monitor_id":"` + mon.ID + `"}`), Digest: "instant", Trigger: "spike"}
	negOnly := &store.Alert{ProjectID: pid, Name: "Negative bursts", Active: true, Channel: "webhook", Target: alerts.URL + "/negative", Secret: webhooksig.NewSecret(),
		Filters: json.RawMessage(`{"sentiment":"negative"}`), Digest: "instant", Trigger: "spike"}
	mentionAlert := &store.Alert{ProjectID: pid, Name: "Urgent", Active: true, MinUrgency: 0, Channel: "webhook", Target: alerts.URL + "/mention", Secret: webhooksig.NewSecret(),
		Filters: json.RawMessage(`{}`), Digest: "instant"}
	emailAlert := &store.Alert{ProjectID: pid, Name: "Ops", Active: true, Channel: "email", Target: "ops@example.com",
		Filters: json.RawMessage(`{}`), Digest: "instant", Trigger: "spike"}
	for _, a := range []*store.Alert{spikeAlert, negOnly, mentionAlert, emailAlert} {
		if err := st.CreateAlert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}

	found, err := (&spike.Runner{Store: st}).RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Kind != "volume" || found[0].Count != 18 {
		t.Fatalf("detector found %+v", found)
	}
	sp := found[0]

	var mu sync.Mutex
	var mails []string
	startWorker(t, st, WorkerConfig{BaseURL: "https://earshot.example.com"}, func(w *Worker) {
		w.email = func(_ context.Context, to, subject, body string) error {
			mu.Lock()
			defer mu.Unlock()
			mails = append(mails, to+"\n"+subject+"\n"+body)
			return nil
		}
	})
	// Mention alerts get the 19 mentions (mention.created), never the spike.
	onPath := func(path string) []received {
		var out []received
		for _, r := range alerts.got() {
			if r.Path == path {
				out = append(out, r)
			}
		}
		return out
	}
	waitFor(t, 10*time.Second, "deliveries", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(spikes.got()) == 1 && len(onPath("/spike")) == 1 && len(mails) == 1 && len(onPath("/mention")) == 19
	})
	time.Sleep(200 * time.Millisecond) // nothing else arrives
	if n := len(mentionsOnly.got()); n != 0 {
		t.Errorf("a webhook not subscribed to spike.detected got %d deliveries", n)
	}
	if n := len(onPath("/negative")); n != 0 {
		t.Errorf("a negative-spike alert fired %d times for a volume spike", n)
	}
	for _, r := range onPath("/mention") {
		if strings.Contains(string(r.Body), `"spikes"`) {
			t.Errorf("a mention alert got a spike: %s", r.Body)
		}
	}

	got := spikes.got()[0]
	if !webhookverify.Header(t, hook.Secret, got.ID, got.Timestamp, got.Signature, got.Body, time.Now()) {
		t.Fatalf("spike.detected delivery does not verify")
	}
	verifyNPM(t, []string{hook.Secret}, spikes.got())
	var ev struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		ProjectID string `json:"project_id"`
		Data      struct {
			Spike map[string]any `json:"spike"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got.Body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "spike.detected" || ev.ID != got.ID || !strings.HasPrefix(ev.ID, "evt_") || ev.ProjectID != pid ||
		ev.Data.Spike["id"] != sp.ID || ev.Data.Spike["monitor_id"] != mon.ID || ev.Data.Spike["kind"] != "volume" ||
		ev.Data.Spike["count"] != float64(18) || ev.Data.Spike["bucket_start"] != store.FormatTime(hour.Add(-2*time.Hour)) {
		t.Fatalf("spike.detected body: %s", got.Body)
	}

	a := onPath("/spike")[0]
	if !webhookverify.Header(t, spikeAlert.Secret, a.ID, a.Timestamp, a.Signature, a.Body, time.Now()) {
		t.Fatalf("alert delivery %s does not verify (or went to the wrong alert)", a.Path)
	}
	var al struct {
		Type string `json:"type"`
		Data struct {
			Alert  map[string]any   `json:"alert"`
			Spikes []map[string]any `json:"spikes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(a.Body, &al); err != nil {
		t.Fatal(err)
	}
	if al.Type != "alert.triggered" || al.Data.Alert["trigger"] != "spike" || len(al.Data.Spikes) != 1 || al.Data.Spikes[0]["id"] != sp.ID {
		t.Fatalf("alert body: %s", a.Body)
	}
	mail := mails[0]
	for _, want := range []string{"ops@example.com", "Ops: spike of 18 mentions on monitor \"Acme status\"", "(usually 0)",
		"https://earshot.example.com/inbox?", "monitor_id=" + mon.ID} {
		if !strings.Contains(mail, want) {
			t.Errorf("email lacks %q:\n%s", want, mail)
		}
	}
}

// TestSpikeAlertHourlyDigest: an hourly spike alert gathers the hour's
// spikes into one Slack message.
func TestSpikeAlertHourlyDigest(t *testing.T) {
	st, pid := testStore(t)
	slack := newReceiver(t, nil)
	if err := st.CreateAlert(context.Background(), &store.Alert{ProjectID: pid, Name: "Bursts", Active: true, Channel: "slack", Target: slack.URL,
		Filters: json.RawMessage(`{}`), Digest: "hourly", Trigger: "spike"}); err != nil {
		t.Fatal(err)
	}
	clock := &offsetClock{}
	startWorker(t, st, WorkerConfig{BaseURL: "https://earshot.example.com"}, withClock(clock))
	for i, kind := range []string{"volume", "negative", "volume"} {
		recordEvent(t, st, pid, "spike.detected", map[string]any{"spike": map[string]any{"id": fmt.Sprint("s", i), "scope": "keyword_group",
			"monitor_id": nil, "keyword_group_id": "g1", "kind": kind, "bucket_start": "2026-11-26T09:00:00.000Z", "bucket_end": "2026-11-26T10:00:00.000Z",
			"count": 20 + i, "baseline": 2.5, "score": 9}})
	}
	// A mention does not reach a spike alert.
	mentionEvent(t, st, pid, map[string]any{"id": "m1", "text": "hello", "urgency": 90})
	waitFor(t, 5*time.Second, "queued", func() bool { return digestItems(t, st) == 3 })
	clock.Advance(time.Hour)
	waitFor(t, 5*time.Second, "digest", func() bool { return len(slack.got()) == 1 })
	var msg map[string]string
	if err := json.Unmarshal(slack.got()[0].Body, &msg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Bursts: 3 spikes", "20 mentions on a keyword group, 2026-11-26 09:00-10:00 UTC (usually 2.5)",
		"21 negative mentions", "22 mentions", "https://earshot.example.com/inbox?"} {
		if !strings.Contains(msg["text"], want) {
			t.Errorf("digest lacks %q: %s", want, msg["text"])
		}
	}
}
