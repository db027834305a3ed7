package api

import "encoding/json"

// Event is the body of a webhook delivery: the event's id (also the
// webhook-id header), its type, when it happened, its project and the
// type's data (mention.created and mention.updated carry {"mention":
// Mention}, spike.detected {"spike": Spike}).
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	ProjectID string          `json:"project_id"`
	Data      json.RawMessage `json:"data"`
}
