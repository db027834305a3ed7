package capability

import (
	"context"
	"time"

	"earshot/api"
	"earshot/store"
	"earshot/webhooksig"
)

// EventTypes are the events a webhook may subscribe to.
var EventTypes = []string{"mention.created", "mention.updated", "mention.assigned", "monitor.scan_failed", "usage.quota_reached", "spike.detected"}

type CreateWebhookIn struct {
	URL    string   `json:"url" validate:"required,maxlen=2048" doc:"Public HTTPS URL that receives signed event deliveries."`
	Events []string `json:"events,omitempty" validate:"maxitems=6,enum=mention.created|mention.updated|mention.assigned|monitor.scan_failed|usage.quota_reached|spike.detected" doc:"Events to receive; [\"mention.created\"] when omitted."`
}

type CreateWebhookOut struct {
	*api.Webhook
	Secret *string `json:"secret" doc:"The Standard Webhooks signing secret (whsec_…), shown once. null in an idempotent replay: the secret is shown once and not stored."`
}

type UpdateWebhookIn struct {
	ID     string    `json:"id" in:"path" validate:"required,format=uuid" doc:"Webhook id."`
	URL    *string   `json:"url,omitempty" validate:"maxlen=2048" doc:"New URL."`
	Active *bool     `json:"active,omitempty" doc:"Pause or resume deliveries (resuming also clears a 410 disable)."`
	Events *[]string `json:"events,omitempty" validate:"maxitems=6,enum=mention.created|mention.updated|mention.assigned|monitor.scan_failed|usage.quota_reached|spike.detected" doc:"Replaces the subscribed events."`
}

type WebhooksOut struct {
	Webhooks []*api.Webhook `json:"webhooks"`
}

type RotateOut struct {
	ID                  string  `json:"id"`
	Secret              *string `json:"secret" doc:"The new signing secret, shown once. null in an idempotent replay: the secret is shown once and not stored."`
	PreviousSecretUntil string  `json:"previous_secret_valid_until"`
}

type ListDeliveriesIn struct {
	ID     string `json:"id" in:"path" validate:"required,format=uuid" doc:"Webhook id."`
	Status string `json:"status,omitempty" in:"query" validate:"enum=pending|delivered|failed" doc:"Only deliveries in this state."`
	Cursor string `json:"cursor,omitempty" in:"query" validate:"maxlen=200" doc:"nextCursor of the previous page."`
	Limit  *int   `json:"limit,omitempty" in:"query" validate:"min=1,max=100" default:"50" doc:"Page size."`
}

type DeliveriesOut struct {
	Deliveries []*api.Delivery `json:"deliveries"`
	NextCursor *string         `json:"nextCursor"`
	HasMore    bool            `json:"hasMore"`
}

type ReplayOut struct {
	Replayed   bool   `json:"replayed"`
	DeliveryID string `json:"delivery_id"`
}

func (s *Service) webhookCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_webhooks", Title: "List webhooks", Group: "webhook", Method: "GET", Path: "/api/v1/webhooks",
			Scope: WebhooksWrite, Idempotent: true, Description: "List webhook subscriptions (secrets are never shown again)."},
			func(ctx context.Context, p *Principal, _ *Empty) (*WebhooksOut, error) {
				ws, err := s.Store.ListWebhooks(ctx, p.ProjectID)
				return &WebhooksOut{Webhooks: store.WebhookRecords(ws)}, err
			}),
		Define(Capability{Name: "create_webhook", Title: "Create a webhook", Group: "webhook", Method: "POST", Path: "/api/v1/webhooks",
			Scope: WebhooksWrite, Write: true, Secrets: []string{"secret"},
			Description: "Subscribe a public HTTPS URL to events (mention.created by default — the event an agent listens to in order to wake up). Returns the Standard Webhooks signing secret once."},
			s.createWebhook),
		Define(Capability{Name: "update_webhook", Title: "Update a webhook", Group: "webhook", Method: "PATCH", Path: "/api/v1/webhooks/:id",
			Scope: WebhooksWrite, Write: true, Idempotent: true, Description: "Change a webhook's URL, events or active flag."},
			s.updateWebhook),
		Define(Capability{Name: "delete_webhook", Title: "Delete a webhook", Group: "webhook", Method: "DELETE", Path: "/api/v1/webhooks/:id",
			Scope: WebhooksWrite, Write: true, Destructive: true, Idempotent: true, Description: "Delete a webhook and its delivery log; pending deliveries are dropped."},
			func(ctx context.Context, p *Principal, in *IDPath) (*DeletedOut, error) {
				if err := s.Store.DeleteWebhook(ctx, p.ProjectID, in.ID); err != nil {
					return nil, err
				}
				return &DeletedOut{Deleted: true, ID: in.ID}, nil
			}),
		Define(Capability{Name: "rotate_webhook_secret", Title: "Rotate a webhook secret", Group: "webhook", Method: "POST", Path: "/api/v1/webhook-secrets/:id/rotate",
			Scope: WebhooksWrite, Write: true, Secrets: []string{"secret"},
			Description: "Issue a new signing secret (shown once). For 24 hours deliveries carry signatures with both the old and the new secret, so receivers can switch without downtime."},
			s.rotateSecret),
		Define(Capability{Name: "list_webhook_deliveries", Title: "List deliveries", Group: "webhook", Method: "GET", Path: "/api/v1/webhooks/:id/deliveries",
			Scope: WebhooksWrite, Idempotent: true,
			Description: "The delivery log of a webhook, newest first: event, status, attempts, last status code and (truncated) response body, next attempt."},
			s.listDeliveries),
		Define(Capability{Name: "replay_webhook_delivery", Title: "Replay a delivery", Group: "delivery", Method: "POST", Path: "/api/v1/webhooks/deliveries/:id/replay",
			Scope: WebhooksWrite, Write: true,
			Description: "Send a delivery's original payload again, as a new delivery with the same webhook-id. Creates no mention."},
			s.replayDelivery),
	}
}

func (s *Service) createWebhook(ctx context.Context, p *Principal, in *CreateWebhookIn) (*CreateWebhookOut, error) {
	if err := s.checkWebhookURL("url", in.URL); err != nil {
		return nil, err
	}
	if in.Events != nil && len(in.Events) == 0 {
		// As update_webhook: an explicit empty list is refused; only an
		// omitted one takes the default.
		return nil, Invalid("events", "events must name at least one event")
	}
	events := dedupe(in.Events)
	if len(events) == 0 {
		events = []string{"mention.created"}
	}
	w := &store.Webhook{ProjectID: p.ProjectID, URL: in.URL, Events: events, Active: true, Secret: webhooksig.NewSecret()}
	if err := s.Store.CreateWebhook(ctx, w); err != nil {
		return nil, err
	}
	secret := w.Secret
	return &CreateWebhookOut{Webhook: w.Record(), Secret: &secret}, nil
}

func (s *Service) updateWebhook(ctx context.Context, p *Principal, in *UpdateWebhookIn) (*api.Webhook, error) {
	w, err := s.Store.Webhook(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	if in.URL != nil {
		if err := s.checkWebhookURL("url", *in.URL); err != nil {
			return nil, err
		}
		w.URL = *in.URL
	}
	if in.Events != nil {
		if len(*in.Events) == 0 {
			return nil, Invalid("events", "events must name at least one event")
		}
		w.Events = dedupe(*in.Events)
	}
	if in.Active != nil {
		w.Active = *in.Active
		if w.Active {
			w.DisabledReason = ""
		}
	}
	if err := s.Store.SaveWebhook(ctx, w); err != nil {
		return nil, err
	}
	return w.Record(), nil
}

func (s *Service) rotateSecret(ctx context.Context, p *Principal, in *IDPath) (*RotateOut, error) {
	w, err := s.Store.Webhook(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	until := store.FormatTime(s.now().Add(24 * time.Hour))
	w.PreviousSecret, w.PreviousSecretUntil = w.Secret, &until
	w.Secret = webhooksig.NewSecret()
	if err := s.Store.SaveWebhook(ctx, w); err != nil {
		return nil, err
	}
	secret := w.Secret
	return &RotateOut{ID: w.ID, Secret: &secret, PreviousSecretUntil: until}, nil
}

func (s *Service) listDeliveries(ctx context.Context, p *Principal, in *ListDeliveriesIn) (*DeliveriesOut, error) {
	if _, err := s.Store.Webhook(ctx, p.ProjectID, in.ID); err != nil {
		return nil, err
	}
	limit := *in.Limit
	var before int64
	if in.Cursor != "" {
		n, err := s.decodeSeqCursor(in.Cursor, "dlv:"+in.ID+":"+in.Status)
		if err != nil {
			return nil, Invalid("cursor", "cursor is not valid for this request")
		}
		before = n
	}
	ds, err := s.Store.ListDeliveries(ctx, in.ID, in.Status, before, limit+1)
	if err != nil {
		return nil, err
	}
	out := &DeliveriesOut{}
	if len(ds) > limit {
		ds = ds[:limit]
		out.HasMore = true
		c := s.encodeSeqCursor(ds[limit-1].Seq, "dlv:"+in.ID+":"+in.Status)
		out.NextCursor = &c
	}
	out.Deliveries = store.DeliveryRecords(ds)
	return out, nil
}

func (s *Service) replayDelivery(ctx context.Context, p *Principal, in *IDPath) (*ReplayOut, error) {
	d, err := s.Store.ReplayDelivery(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	return &ReplayOut{Replayed: true, DeliveryID: d.ID}, nil
}
