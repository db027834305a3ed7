package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"earshot/store"
)

// Spike alerts: an alert with trigger "spike" is fired by spike.detected
// events instead of mentions. Its filters narrow it by monitor
// (filters.monitor_id: that monitor's spikes) and kind (filters.sentiment
// negative: negative spikes); instant alerts send each spike, digests
// gather them like mentions.

// spikeRecord is the part of a spike record (data.spike) alerts read.
type spikeRecord struct {
	ID             string  `json:"id"`
	Scope          string  `json:"scope"`
	MonitorID      *string `json:"monitor_id"`
	KeywordGroupID *string `json:"keyword_group_id"`
	Kind           string  `json:"kind"`
	BucketStart    string  `json:"bucket_start"`
	BucketEnd      string  `json:"bucket_end"`
	Count          int     `json:"count"`
	Baseline       float64 `json:"baseline"`
	Score          float64 `json:"score"`
}

// spikeAlerts adds the spike alerts a spike.detected event fires.
func (t *projectTargets) spikeAlerts(f *store.Fanout, log interface{ Warn(string, ...any) }) {
	var body struct {
		Data struct {
			Spike json.RawMessage `json:"spike"`
		} `json:"data"`
	}
	var sp spikeRecord
	if err := json.Unmarshal([]byte(f.Event.Payload), &body); err != nil || len(body.Data.Spike) == 0 {
		log.Warn("spike.detected event without data.spike; no alerts", "event", f.Event.ID)
		return
	}
	if err := json.Unmarshal(body.Data.Spike, &sp); err != nil {
		log.Warn("spike.detected event with an unreadable spike; no alerts", "event", f.Event.ID, "err", err)
		return
	}
	for _, a := range t.alerts {
		flt := t.filters[a.ID]
		if flt == nil || !a.Active || a.Trigger != "spike" {
			continue
		}
		if flt.MonitorID != "" && (sp.MonitorID == nil || *sp.MonitorID != flt.MonitorID) {
			continue
		}
		if flt.Sentiment == "negative" && sp.Kind != "negative" {
			continue
		}
		f.Alerts = append(f.Alerts, store.AlertNotice{AlertID: a.ID, Digest: a.Digest == "hourly" || a.Digest == "daily", Mention: body.Data.Spike})
	}
}

// sendSpikeAlert sends one stored spike notification (raw: spike records).
func (w *Worker) sendSpikeAlert(ctx context.Context, a *store.Alert, j *store.Job, raw []json.RawMessage) Result {
	switch a.Channel {
	case "webhook":
		body, err := spikeWebhookBody(a, j, raw)
		if err != nil {
			return Result{Outcome: Gone, Err: err}
		}
		return Send(ctx, w.client, a.Target, []string{a.Secret}, alertEventID(j), body, time.Now())
	case "slack":
		subject, lines := w.spikeLines(ctx, a, j.ProjectID, raw)
		var b strings.Builder
		b.WriteString("*" + slackEscape(subject) + "*")
		for _, l := range lines {
			b.WriteString("\n• " + slackEscape(l.text))
			if l.link != "" {
				b.WriteString(" " + slackLink(l.link, "Open in Earshot"))
			}
		}
		body, _ := json.Marshal(struct {
			Text string `json:"text"`
		}{b.String()})
		return PostSlack(ctx, w.client, a.Target, body)
	case "email":
		subject, lines := w.spikeLines(ctx, a, j.ProjectID, raw)
		var b strings.Builder
		fmt.Fprintf(&b, "%s.\n", subject)
		for i, l := range lines {
			fmt.Fprintf(&b, "\n%d. %s\n", i+1, l.text)
			if l.link != "" {
				fmt.Fprintf(&b, "   In Earshot: %s\n", l.link)
			}
		}
		fmt.Fprintf(&b, "\n-- \nSent by Earshot because the alert %q is active.\n", a.Name)
		start := time.Now()
		if err := w.email(ctx, a.Target, oneLine("[Earshot] "+subject), b.String()); err != nil {
			return Result{Outcome: Retry, Err: err, Duration: time.Since(start)}
		}
		return Result{Outcome: Success, Duration: time.Since(start)}
	default:
		return Result{Outcome: Gone, Err: fmt.Errorf("unknown alert channel %q", a.Channel)}
	}
}

// spikeWebhookBody is the alert.triggered envelope of a spike alert:
// data.alert and data.spikes (the spike records).
func spikeWebhookBody(a *store.Alert, j *store.Job, spikes []json.RawMessage) ([]byte, error) {
	type alertRef struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Digest  string `json:"digest"`
		Trigger string `json:"trigger"`
	}
	type data struct {
		Alert  alertRef          `json:"alert"`
		Spikes []json.RawMessage `json:"spikes"`
	}
	return json.Marshal(struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CreatedAt string `json:"created_at"`
		ProjectID string `json:"project_id"`
		Data      data   `json:"data"`
	}{alertEventID(j), "alert.triggered", j.CreatedAt, j.ProjectID, data{alertRef{a.ID, a.Name, j.EventType, "spike"}, spikes}})
}

type spikeLine struct{ text, link string }

// spikeLines describes spikes for people: "Spike: 25 negative mentions on
// monitor Acme, 09:00-10:00 UTC (usually 2)", with a dashboard link to the
// inbox filtered to that hour.
func (w *Worker) spikeLines(ctx context.Context, a *store.Alert, projectID string, raw []json.RawMessage) (string, []spikeLine) {
	names := map[string]string{}
	name := func(sp *spikeRecord) string {
		if sp.MonitorID != nil {
			k := "m:" + *sp.MonitorID
			if _, ok := names[k]; !ok {
				names[k] = "a monitor"
				if m, err := w.st.MonitorAny(ctx, projectID, *sp.MonitorID); err == nil {
					names[k] = fmt.Sprintf("monitor %q", oneLine(m.Name))
				}
			}
			return names[k]
		}
		if sp.KeywordGroupID != nil {
			k := "g:" + *sp.KeywordGroupID
			if _, ok := names[k]; !ok {
				names[k] = "a keyword group"
				if g, err := w.st.KeywordGroup(ctx, projectID, *sp.KeywordGroupID); err == nil {
					names[k] = fmt.Sprintf("keyword group %q", oneLine(g.Name))
				}
			}
			return names[k]
		}
		return "a monitor"
	}
	var lines []spikeLine
	for _, r := range raw {
		var sp spikeRecord
		_ = json.Unmarshal(r, &sp) // stored by us from a decoded record
		what := "mentions"
		if sp.Kind == "negative" {
			what = "negative mentions"
		}
		when := sp.BucketStart
		if s, err := time.Parse(time.RFC3339Nano, sp.BucketStart); err == nil {
			when = s.UTC().Format("2006-01-02 15:04") + "-" + s.UTC().Add(time.Hour).Format("15:04") + " UTC"
		}
		l := spikeLine{text: fmt.Sprintf("%d %s on %s, %s (usually %s)", sp.Count, what, name(&sp), when, trimFloat(sp.Baseline))}
		if w.cfg.BaseURL != "" {
			v := url.Values{"since": {sp.BucketStart}, "until": {sp.BucketEnd}, "is_relevant": {"true"}}
			if sp.MonitorID != nil {
				v.Set("monitor_id", *sp.MonitorID)
			}
			if sp.Kind == "negative" {
				v.Set("sentiment", "negative")
			}
			l.link = strings.TrimRight(w.cfg.BaseURL, "/") + "/inbox?" + v.Encode()
		}
		lines = append(lines, l)
	}
	subject := fmt.Sprintf("%s: spike", a.Name)
	switch {
	case len(lines) == 1:
		subject += " of " + lines[0].text
	case len(lines) > 1:
		subject = fmt.Sprintf("%s: %d spikes", a.Name, len(lines))
	}
	return subject, lines
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}
