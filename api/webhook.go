package api

// Webhook is an event subscription.
type Webhook struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Active         bool     `json:"active"`
	DisabledReason string   `json:"disabled_reason,omitempty"`
	CreatedAt      string   `json:"created_at"`
	UpdatedAt      string   `json:"updated_at"`
}

// Delivery is one attempt series of sending one event to one webhook.
type Delivery struct {
	ID             string  `json:"id"`
	WebhookID      string  `json:"webhook_id"`
	EventID        string  `json:"event_id"`
	EventType      string  `json:"event_type"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	NextAttemptAt  *string `json:"next_attempt_at"`
	LastStatusCode *int    `json:"last_status_code"`
	LastResponse   string  `json:"last_response"`
	LastError      string  `json:"last_error,omitempty"`
	ReplayOf       *string `json:"replay_of"`
	CreatedAt      string  `json:"created_at"`
	UpdatedAt      string  `json:"updated_at"`
}
