package deliver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"earshot/api"
	"earshot/store"
)

// This file is the fan-out half of the worker: which webhooks and alerts an
// event goes to, the alert filters, digest periods, and how a stored alert
// notification becomes an email, a Slack message or a signed webhook.

// dispatch fans every undispatched event out, oldest first.
func (w *Worker) dispatch(ctx context.Context) error {
	for ctx.Err() == nil {
		evs, err := w.st.UndispatchedEvents(ctx, dispatchBatch)
		if err != nil || len(evs) == 0 {
			return err
		}
		targets := map[string]*projectTargets{}
		now := w.now()
		fanouts := make([]store.Fanout, 0, len(evs))
		for _, ev := range evs {
			t, ok := targets[ev.ProjectID]
			if !ok {
				if t, err = w.loadTargets(ctx, ev.ProjectID); err != nil {
					return err
				}
				targets[ev.ProjectID] = t
			}
			fanouts = append(fanouts, t.fanout(ev, now, w.log))
		}
		first, _ := w.cfg.Schedule.Next(0, 0, nil)
		// New deliveries go straight to lanes of this worker (Run only).
		var h *handoff
		var sh *store.Handoff
		if w.lanes != nil {
			h, sh = w.newHandoff()
		}
		err = w.writer(func() error {
			_, err := w.st.DispatchTo(ctx, fanouts, time.Now().Add(first), sh)
			return err
		})
		if h != nil {
			h.done()
		}
		if err != nil {
			return err
		}
		if len(evs) < dispatchBatch {
			return nil
		}
	}
	return nil
}

// projectTargets are a project's active webhooks and alerts.
type projectTargets struct {
	webhooks []*store.Webhook
	alerts   []*store.Alert
	filters  map[string]*store.Filter // by alert id; nil entry: unreadable filters
}

func (w *Worker) loadTargets(ctx context.Context, projectID string) (*projectTargets, error) {
	hooks, err := w.st.ListWebhooks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	alerts, err := w.st.ListAlerts(ctx, projectID, true)
	if err != nil {
		return nil, err
	}
	t := &projectTargets{alerts: alerts, filters: map[string]*store.Filter{}}
	for _, h := range hooks {
		if h.Active {
			t.webhooks = append(t.webhooks, h)
		}
	}
	for _, a := range alerts {
		f := &store.Filter{}
		if len(a.Filters) > 0 {
			if err := json.Unmarshal(a.Filters, f); err != nil {
				w.log.Warn("alert filters unreadable; the alert matches nothing", "alert", a.ID, "err", err)
				f = nil
			}
		}
		t.filters[a.ID] = f
	}
	return t, nil
}

func (t *projectTargets) fanout(ev *store.OutboxEvent, now time.Time, log interface {
	Warn(string, ...any)
}) store.Fanout {
	f := store.Fanout{Event: ev}
	for _, h := range t.webhooks {
		if slices.Contains(h.Events, ev.Type) {
			f.WebhookIDs = append(f.WebhookIDs, h.ID)
		}
	}
	if ev.Type == "spike.detected" {
		t.spikeAlerts(&f, log)
		return f
	}
	if ev.Type != "mention.created" || len(t.alerts) == 0 {
		return f
	}
	var body struct {
		Data struct {
			Mention json.RawMessage `json:"mention"`
		} `json:"data"`
	}
	var rec api.Mention
	if err := json.Unmarshal([]byte(ev.Payload), &body); err != nil || len(body.Data.Mention) == 0 {
		log.Warn("mention.created event without data.mention; no alerts", "event", ev.ID)
		return f
	}
	if err := json.Unmarshal(body.Data.Mention, &rec); err != nil {
		log.Warn("mention.created event with an unreadable mention; no alerts", "event", ev.ID, "err", err)
		return f
	}
	m := *store.MentionFromRecord(&rec)
	if m.ProjectID == "" {
		m.ProjectID = ev.ProjectID // the event's project is the mention's
	}
	for _, a := range t.alerts {
		if flt := t.filters[a.ID]; flt != nil && a.Active && a.Trigger != "spike" && m.Urgency >= a.MinUrgency && alertMatch(flt, &m, now) {
			f.Alerts = append(f.Alerts, store.AlertNotice{AlertID: a.ID, Digest: a.Digest == "hourly" || a.Digest == "daily", Mention: body.Data.Mention})
		}
	}
	return f
}

// alertMatch: an alert's filters (a saved view's, store.Filter) select a
// new mention exactly as list_mentions and the view select it in SQL,
// with date presets resolved at now; only relevant mentions alert.
func alertMatch(f *store.Filter, m *store.Mention, now time.Time) bool {
	return m.IsRelevant && f.Resolve(m.ProjectID, now).Match(m)
}

// digestCutoff is the end of the digest period that contains t: the next
// full UTC hour or day.
func digestCutoff(digest string, t time.Time) time.Time {
	period := time.Hour
	if digest == "daily" {
		period = 24 * time.Hour
	}
	return t.UTC().Truncate(period).Add(period)
}

// flushDigests turns each digest alert's mentions of a finished period into
// one notification.
func (w *Worker) flushDigests(ctx context.Context) error {
	qs, err := w.st.DigestQueues(ctx)
	if err != nil {
		return err
	}
	now := w.now()
	for _, q := range qs {
		oldest, err := store.ParseTime(q.Oldest)
		if err != nil {
			continue
		}
		cutoff := digestCutoff(q.Digest, oldest)
		if now.Before(cutoff) {
			continue
		}
		// w.now decides the period; the row itself gets real time, which
		// the lanes compare next_attempt_at with.
		if err := w.writer(func() error {
			_, err := w.st.FlushDigest(ctx, q.AlertID, cutoff, time.Now())
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// alertSender loads the alert once per run; nil when it is gone or paused
// (delete_alert drops its notifications; a paused alert's wait).
func (w *Worker) alertSender(ctx context.Context, projectID, id string) (*runSender, error) {
	a, err := w.st.Alert(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !a.Active {
		return nil, nil
	}
	return &runSender{channel: a.Channel, send: func(ctx context.Context, j *store.Job) Result {
		return w.sendAlert(ctx, a, j)
	}}, nil
}

// sendAlert sends one stored notification to the alert's channel.
func (w *Worker) sendAlert(ctx context.Context, a *store.Alert, j *store.Job) Result {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(j.Payload), &raw); err != nil {
		return Result{Outcome: Gone, Err: fmt.Errorf("alert notification payload: %w", err)}
	}
	if a.Trigger == "spike" {
		return w.sendSpikeAlert(ctx, a, j, raw)
	}
	switch a.Channel {
	case "webhook":
		body, err := alertWebhookBody(a, j, raw)
		if err != nil {
			return Result{Outcome: Gone, Err: err}
		}
		now := time.Now()
		return Send(ctx, w.client, a.Target, []string{a.Secret}, alertEventID(j), body, now)
	case "slack":
		ms := w.alertMentions(ctx, j.ProjectID, raw)
		body := SlackMessage(ms[0])
		if len(ms) > 1 {
			body = SlackDigest(a.Name, ms)
		}
		return PostSlack(ctx, w.client, a.Target, body)
	case "email":
		ms := w.alertMentions(ctx, j.ProjectID, raw)
		subject, text := EmailText(a.Name, ms)
		start := time.Now()
		if err := w.email(ctx, a.Target, subject, text); err != nil {
			return Result{Outcome: Retry, Err: err, Duration: time.Since(start)}
		}
		return Result{Outcome: Success, Duration: time.Since(start)}
	default:
		return Result{Outcome: Gone, Err: fmt.Errorf("unknown alert channel %q", a.Channel)}
	}
}

// alertEventID is the event id of an alert notification: "evt_" and the
// notification's id, like every event id (docs/decisions.md#webhooks). It is
// both the payload's id and the webhook-id, and a retry keeps it.
func alertEventID(j *store.Job) string { return "evt_" + j.ID }

// alertWebhookBody is what an alert's webhook receives, in the event
// envelope: {"id": "evt_…", "type": "alert.triggered", "created_at",
// "project_id", "data": {"alert": {...}, "mentions": [full mention
// records]}}. The id is alertEventID, also the webhook-id.
func alertWebhookBody(a *store.Alert, j *store.Job, mentions []json.RawMessage) ([]byte, error) {
	type alertRef struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Digest string `json:"digest"`
	}
	return json.Marshal(struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CreatedAt string `json:"created_at"`
		ProjectID string `json:"project_id"`
		Data      struct {
			Alert    alertRef          `json:"alert"`
			Mentions []json.RawMessage `json:"mentions"`
		} `json:"data"`
	}{ID: alertEventID(j), Type: "alert.triggered", CreatedAt: j.CreatedAt, ProjectID: j.ProjectID,
		Data: struct {
			Alert    alertRef          `json:"alert"`
			Mentions []json.RawMessage `json:"mentions"`
		}{alertRef{a.ID, a.Name, j.EventType}, mentions}})
}

// alertMentions reads stored mention records into what EmailText and
// SlackMessage show, with project and monitor names and dashboard links.
// A name that cannot be looked up is left out, not an error.
func (w *Worker) alertMentions(ctx context.Context, projectID string, raw []json.RawMessage) []AlertMention {
	projectName := ""
	if p, err := w.st.Project(ctx, projectID); err == nil {
		projectName = p.Name
	}
	monitors := map[string]string{}
	out := make([]AlertMention, 0, len(raw))
	for _, r := range raw {
		var m api.Mention
		_ = json.Unmarshal(r, &m) // stored by us from a decoded record
		am := AlertMention{Source: m.Source, AuthorHandle: m.AuthorHandle, URL: m.URL, Text: m.Text, Summary: m.AISummary,
			Category: m.Category, Sentiment: m.Sentiment, Urgency: m.Urgency, ProjectName: projectName}
		if t, err := time.Parse(time.RFC3339Nano, m.PublishedAt); err == nil {
			am.PublishedAt = t
		}
		monitorID := ""
		if m.MonitorID != nil {
			monitorID = *m.MonitorID
		}
		if monitorID == "" && len(m.MonitorIDs) > 0 {
			monitorID = m.MonitorIDs[0]
		}
		if monitorID != "" {
			name, ok := monitors[monitorID]
			if !ok {
				if mon, err := w.st.MonitorAny(ctx, projectID, monitorID); err == nil {
					name = mon.Name
				}
				monitors[monitorID] = name
			}
			am.MonitorName = name
		}
		if w.cfg.BaseURL != "" && m.ID != "" {
			am.DashboardURL = strings.TrimRight(w.cfg.BaseURL, "/") + "/mentions/" + m.ID
		}
		out = append(out, am)
	}
	if len(out) == 0 {
		out = append(out, AlertMention{ProjectName: projectName})
	}
	return out
}

// slackDigestMax bounds the mentions listed in one Slack digest; Slack
// truncates long messages and the dashboard has the rest.
const slackDigestMax = 20

// SlackDigest is the Slack body for an hourly or daily digest: one line per
// mention in the order they came, with links.
func SlackDigest(alertName string, ms []AlertMention) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d new mentions for %s*", len(ms), slackEscape(oneLine(alertName)))
	if ms[0].ProjectName != "" {
		fmt.Fprintf(&b, " · %s", slackEscape(ms[0].ProjectName))
	}
	for i, m := range ms {
		if i == slackDigestMax {
			fmt.Fprintf(&b, "\n…and %d more", len(ms)-slackDigestMax)
			break
		}
		line := orDash(m.Source)
		if m.AuthorHandle != "" {
			line += " by " + m.AuthorHandle
		}
		line = slackEscape(line + " · " + strings.Join(classification(m), " · "))
		text := m.Summary
		if text == "" {
			text = m.Text
		}
		if t := excerpt(text); t != "" {
			r := []rune(t)
			if len(r) > 140 {
				t = string(r[:140]) + "…"
			}
			line += ": " + slackEscape(t)
		}
		if m.URL != "" {
			line += " " + slackLink(m.URL, "post")
		}
		if m.DashboardURL != "" {
			line += " " + slackLink(m.DashboardURL, "Earshot")
		}
		b.WriteString("\n• " + line)
	}
	out, err := json.Marshal(struct {
		Text string `json:"text"`
	}{b.String()})
	if err != nil {
		panic(err) // a struct with one string field always marshals
	}
	return out
}
