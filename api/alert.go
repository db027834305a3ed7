package api

import "encoding/json"

// Alert is a rule that pushes matching mentions to a channel.
type Alert struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Active       bool            `json:"active"`
	MinUrgency   int             `json:"min_urgency"`
	Channel      string          `json:"channel"`
	Target       string          `json:"target"`
	Filters      json.RawMessage `json:"filters"`
	Digest       string          `json:"digest"`
	Trigger      string          `json:"trigger" doc:"mention: new relevant mentions fire it; spike: detected spikes (spike.detected) fire it."`
	LastDigestAt *string         `json:"last_digest_at"`
	CreatedAt    string          `json:"created_at"`
}
