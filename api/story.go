package api

// Story is a group of mentions that share a link or carry near-duplicate
// text, grouped at ingest.
type Story struct {
	ID              string         `json:"id"`
	ProjectID       string         `json:"project_id"`
	Title           string         `json:"title" doc:"The summary of the story's first mention (its text when there is no summary)."`
	Link            *string        `json:"link" doc:"The canonical link the mentions share (scheme, www., tracking parameters and fragment dropped); null when only their text is alike."`
	MentionCount    int            `json:"mention_count" doc:"Mentions in the story."`
	Sources         map[string]int `json:"sources" doc:"Mentions per source."`
	Statuses        map[string]int `json:"statuses" doc:"Mentions per triage status."`
	FirstMentionID  string         `json:"first_mention_id" doc:"The mention that started the story (the first stored)."`
	LatestMentionID string         `json:"latest_mention_id" doc:"The most recently published mention."`
	FirstSeen       string         `json:"first_seen" doc:"Publication time of the earliest mention."`
	LastSeen        string         `json:"last_seen" doc:"Publication time of the latest mention."`
	CreatedAt       string         `json:"created_at"`
	UpdatedAt       string         `json:"updated_at"`
}
