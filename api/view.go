package api

import "encoding/json"

// View is a saved mentions filter.
type View struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Filters   json.RawMessage `json:"filters"`
	CreatedAt string          `json:"created_at"`
}
