package api

// Mention is a collected post with its classification.
type Mention struct {
	ID               string           `json:"id"`
	ProjectID        string           `json:"project_id"`
	MonitorID        *string          `json:"monitor_id"`
	MonitorIDs       []string         `json:"monitor_ids"`
	Source           string           `json:"source"`
	ExternalID       string           `json:"external_id"`
	URL              string           `json:"url"`
	AuthorHandle     string           `json:"author_handle"`
	Text             string           `json:"text"`
	PublishedAt      string           `json:"published_at"`
	CollectedAt      string           `json:"collected_at"`
	Engagement       map[string]int64 `json:"engagement"`
	IsRelevant       bool             `json:"is_relevant" doc:"Really about the brand. False for name clashes and for the project's own posts (the Filtered view: status=new&is_relevant=false), unless a person pulled the mention back (update_mention_status is_relevant=true); such mentions fire no mention.created and no alert."`
	Category         string           `json:"category"`
	Sentiment        string           `json:"sentiment"`
	Urgency          int              `json:"urgency"`
	AISummary        string           `json:"ai_summary"`
	Status           string           `json:"status"`
	Classifier       string           `json:"classifier"`
	UpdatedAt        string           `json:"updated_at"`
	Own              bool             `json:"own" doc:"Posted by the project's own account or on its own website: kept, but not a mention to triage (is_relevant is false, unless a person pulled it back)."`
	CategoryReason   string           `json:"category_reason" doc:"Why the classifier chose this category, in one short sentence; empty when it gave none."`
	UrgencyReason    string           `json:"urgency_reason" doc:"Why the urgency is what it is, in one short sentence; empty when the classifier gave none."`
	RelevanceReason  string           `json:"relevance_reason" doc:"Why the mention is (not) relevant or is an own post, in one short sentence; empty when the classifier gave none."`
	PublicVisibility string           `json:"public_visibility"`
	StoryID          *string          `json:"story_id" doc:"The story this mention belongs to (mentions sharing a link or near-duplicate text); null when it is alone."`
	StoryCount       int              `json:"story_count" doc:"Mentions in the story, this one included; 1 when it is alone."`
	StorySources     map[string]int   `json:"story_sources" doc:"Mentions of the story per source, this one included."`
	Assignee         *Assignee        `json:"assignee" doc:"The project member the mention is assigned to; null when nobody is."`
	Tags             []string         `json:"tags" doc:"Free tags, sorted; [] when none."`
}

// Assignee is the member a mention is assigned to.
type Assignee struct {
	ID   string `json:"id" doc:"User id."`
	Name string `json:"name" doc:"The member's full name, or their email when they gave none."`
}

// Note is an internal note on a mention, for the project's members only.
type Note struct {
	ID        string    `json:"id"`
	MentionID string    `json:"mention_id"`
	Author    *Assignee `json:"author" doc:"Who wrote it; null when written from the CLI or the author's account was deleted."`
	Text      string    `json:"text"`
	CreatedAt string    `json:"created_at"`
}
