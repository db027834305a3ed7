package capability

import (
	"context"
	"encoding/json"
	"net/url"

	"earshot/api"
	"earshot/store"
	"earshot/webhooksig"
)

// Alerts: rules that notify a channel (email, webhook, Slack) of new
// relevant mentions matching their filters.

type CreateAlertIn struct {
	Name       string          `json:"name" validate:"required,maxlen=80" doc:"Alert name."`
	Channel    string          `json:"channel" validate:"required,enum=email|webhook|slack" doc:"email, webhook (signed like webhooks) or slack (an incoming-webhook URL)."`
	Target     string          `json:"target" validate:"required,maxlen=2048" doc:"An email address, or the https URL to post to."`
	MinUrgency *int            `json:"min_urgency,omitempty" validate:"min=0,max=100" default:"70" doc:"Notify only mentions with urgency at least this."`
	Filters    *MentionFilters `json:"filters,omitempty" doc:"Filters like a saved view; only matching mentions notify."`
	Active     *bool           `json:"active,omitempty" default:"true" doc:"false creates it paused."`
	Digest     string          `json:"digest,omitempty" validate:"enum=instant|hourly|daily" default:"instant" doc:"instant sends each mention; hourly and daily send one digest."`
	Trigger    string          `json:"trigger,omitempty" validate:"enum=mention|spike" default:"mention" doc:"mention: each new relevant mention that matches (min_urgency, filters); spike: each detected spike (filters.monitor_id limits it to that monitor's, filters.sentiment=negative to negative spikes; min_urgency is not used)."`
}

type UpdateAlertIn struct {
	ID         string          `json:"id" in:"path" validate:"required,format=uuid" doc:"Alert id."`
	Name       *string         `json:"name,omitempty" validate:"minlen=1,maxlen=80" doc:"New name."`
	Active     *bool           `json:"active,omitempty" doc:"Pause or resume."`
	MinUrgency *int            `json:"min_urgency,omitempty" validate:"min=0,max=100" doc:"Urgency threshold."`
	Channel    *string         `json:"channel,omitempty" validate:"enum=email|webhook|slack" doc:"New channel (send target too)."`
	Target     *string         `json:"target,omitempty" validate:"maxlen=2048" doc:"New target."`
	Filters    *MentionFilters `json:"filters,omitempty" doc:"Replaces the filters."`
	Digest     *string         `json:"digest,omitempty" validate:"enum=instant|hourly|daily" doc:"instant, hourly or daily."`
	Trigger    *string         `json:"trigger,omitempty" validate:"enum=mention|spike" doc:"mention or spike."`
}

type AlertOut struct {
	*api.Alert
	Secret *string `json:"secret,omitempty" doc:"Webhook channel only: the signing secret, shown once. null in an idempotent replay: the secret is shown once and not stored."`
}

type AlertsOut struct {
	Alerts []*api.Alert `json:"alerts"`
}

func (s *Service) checkTarget(channel, target string) error {
	switch channel {
	case "email":
		if err := checkFormat("email", target); err != nil {
			return Invalid("target", "target must be an email address for the email channel")
		}
	default:
		if err := s.checkWebhookURL("target", target); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) alertCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_alerts", Title: "List alerts", Group: "alert", Method: "GET", Path: "/api/v1/alerts",
			Scope: MentionsRead, Idempotent: true, Description: "List alert rules, oldest first. A webhook or Slack alert's target is a credential (whoever has the URL can post to it): it is shown in full only to a caller with alerts:write, masked (https://host/…/last4) to everyone else."},
			func(ctx context.Context, p *Principal, _ *Empty) (*AlertsOut, error) {
				as, err := s.Store.ListAlerts(ctx, p.ProjectID, false)
				out := store.AlertRecords(as)
				if !p.Has(AlertsWrite) {
					for _, a := range out {
						a.Target = MaskAlertTarget(a.Channel, a.Target)
					}
				}
				return &AlertsOut{Alerts: out}, err
			}),
		Define(Capability{Name: "create_alert", Title: "Create an alert", Group: "alert", Method: "POST", Path: "/api/v1/alerts",
			Scope: AlertsWrite, Write: true, Secrets: []string{"secret"},
			Description: "Push new relevant mentions that match filters and reach min_urgency to email, a signed webhook or Slack, instantly or as an hourly/daily digest."},
			func(ctx context.Context, p *Principal, in *CreateAlertIn) (*AlertOut, error) {
				if err := s.checkTarget(in.Channel, in.Target); err != nil {
					return nil, err
				}
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				a := &store.Alert{ProjectID: p.ProjectID, Name: in.Name, Active: *in.Active, MinUrgency: *in.MinUrgency, Channel: in.Channel, Target: in.Target,
					Filters: filtersJSON(in.Filters), Digest: in.Digest, Trigger: in.Trigger}
				if err := checkAlertFilters(a.Trigger, in.Filters); err != nil {
					return nil, err
				}
				var secret *string
				if a.Channel == "webhook" {
					a.Secret = webhooksig.NewSecret()
					secret = &a.Secret
				}
				if err := s.Store.CreateAlert(ctx, a); err != nil {
					return nil, err
				}
				return &AlertOut{Alert: a.Record(), Secret: secret}, nil
			}),
		Define(Capability{Name: "update_alert", Title: "Update an alert", Group: "alert", Method: "PATCH", Path: "/api/v1/alerts/:id",
			Scope: AlertsWrite, Write: true, Idempotent: true, Description: "Change an alert; only the fields sent change."},
			func(ctx context.Context, p *Principal, in *UpdateAlertIn) (*AlertOut, error) {
				a, err := s.Store.Alert(ctx, p.ProjectID, in.ID)
				if err != nil {
					return nil, err
				}
				if err := s.checkFilters(ctx, p, in.Filters); err != nil {
					return nil, err
				}
				if in.Name != nil {
					a.Name = *in.Name
				}
				if in.Active != nil {
					a.Active = *in.Active
				}
				if in.MinUrgency != nil {
					a.MinUrgency = *in.MinUrgency
				}
				if in.Channel != nil {
					a.Channel = *in.Channel
				}
				if in.Target != nil && *in.Target != MaskAlertTarget(a.Channel, a.Target) {
					// The masked form sent back (a client that read the
					// list without alerts:write and saves the record whole)
					// keeps the stored target.
					a.Target = *in.Target
				}
				if in.Filters != nil {
					a.Filters = filtersJSON(in.Filters)
				}
				if in.Digest != nil {
					a.Digest = *in.Digest
				}
				if in.Trigger != nil {
					a.Trigger = *in.Trigger
				}
				if in.Trigger != nil || in.Filters != nil {
					var f MentionFilters
					if err := json.Unmarshal(a.Filters, &f); err != nil {
						return nil, err
					}
					if err := checkAlertFilters(a.Trigger, &f); err != nil {
						return nil, err
					}
				}
				if in.Channel != nil || in.Target != nil {
					if err := s.checkTarget(a.Channel, a.Target); err != nil {
						return nil, err
					}
				}
				if err := s.Store.SaveAlert(ctx, a); err != nil {
					return nil, err
				}
				return &AlertOut{Alert: a.Record()}, nil
			}),
		Define(Capability{Name: "delete_alert", Title: "Delete an alert", Group: "alert", Method: "DELETE", Path: "/api/v1/alerts/:id",
			Scope: AlertsWrite, Write: true, Destructive: true, Idempotent: true, Description: "Delete an alert; its notifications stop immediately. Mentions are unaffected."},
			func(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
				if err := s.Store.DeleteAlert(ctx, p.ProjectID, in.ID); err != nil {
					return nil, err
				}
				return &DeletedOut{Deleted: true, ID: in.ID}, nil
			}),
	}
}

// checkAlertFilters: a mention alert notifies new relevant mentions, so
// filters keeping only irrelevant ones or the project's own posts (never
// relevant) could never fire; they are refused rather than saved silent.
// A spike alert takes fewer filters (checkSpikeFilters).
func checkAlertFilters(trigger string, f *MentionFilters) error {
	if err := checkSpikeFilters(trigger, f); err != nil || f == nil || trigger == "spike" {
		return err
	}
	if f.IsRelevant != nil && !*f.IsRelevant {
		return Invalid("filters.is_relevant", "an alert notifies relevant mentions only: filters.is_relevant false would never fire")
	}
	if f.Own != nil && *f.Own {
		return Invalid("filters.own", "an alert notifies relevant mentions only and the project's own posts never are: filters.own true would never fire")
	}
	return nil
}

// MaskAlertTarget is what a caller without alerts:write sees of an alert's
// target. An incoming-webhook URL (Slack's, or any webhook's) is a
// credential: whoever holds it can post to the channel, so only its
// scheme, host and last four characters are shown
// ("https://hooks.slack.com/…/XXXX"), enough to tell two apart. An email
// address is no credential and is shown as it is.
func MaskAlertTarget(channel, target string) string {
	if channel == "email" {
		return target
	}
	const keep = 4
	rest, prefix := target, ""
	if u, err := url.Parse(target); err == nil && u.Scheme != "" && u.Host != "" {
		prefix = u.Scheme + "://" + u.Host // never the user info
		tail := *u
		tail.Scheme, tail.Host, tail.User = "", "", nil
		rest = tail.String()
	}
	r := []rune(rest)
	if len(r) <= 2*keep {
		return prefix + "/…"
	}
	return prefix + "/…/" + string(r[len(r)-keep:])
}
