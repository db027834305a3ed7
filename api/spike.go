package api

// Spike is a burst of one scope's mentions in one UTC hour.
type Spike struct {
	ID             string              `json:"id"`
	Scope          string              `json:"scope" doc:"monitor or keyword_group: what was counted."`
	MonitorID      *string             `json:"monitor_id" doc:"The monitor whose mentions spiked (scope monitor), else null."`
	KeywordGroupID *string             `json:"keyword_group_id" doc:"The keyword group whose mentions spiked (scope keyword_group), else null."`
	Kind           string              `json:"kind" doc:"volume (relevant mentions) or negative (relevant negative mentions)."`
	BucketStart    string              `json:"bucket_start" doc:"Start of the UTC hour (publication time of the mentions)."`
	BucketEnd      string              `json:"bucket_end" doc:"End of the hour (exclusive)."`
	Count          int                 `json:"count" doc:"Mentions of the kind in the hour (updated while the hour fills)."`
	Baseline       float64             `json:"baseline" doc:"The usual count of this hour: median of the same hour on the previous days."`
	Score          float64             `json:"score" doc:"(count - baseline) / robust spread (MAD of the history, at least the square root of the baseline)."`
	Threshold      int                 `json:"threshold" doc:"The fewest mentions that make this hour a spike, given its history."`
	DetectedAt     string              `json:"detected_at"`
	UpdatedAt      string              `json:"updated_at"`
	MonitorIDs     []string            `json:"monitor_ids" doc:"The monitor, or the keyword group's monitors."`
	MentionsQuery  *SpikeMentionsQuery `json:"mentions_query" doc:"list_mentions query parameters selecting the mentions behind a monitor spike; null for a keyword group spike."`
	MentionsPath   *string             `json:"mentions_path" doc:"The same as a REST path (/api/v1/mentions?…); null for a keyword group spike."`
}

// SpikeMentionsQuery is the list_mentions query of a monitor spike.
type SpikeMentionsQuery struct {
	MonitorID  string `json:"monitor_id"`
	Since      string `json:"since"`
	Until      string `json:"until"`
	IsRelevant bool   `json:"is_relevant"`
	Sentiment  string `json:"sentiment,omitempty" doc:"negative for a negative spike."`
}
