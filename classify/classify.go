// Package classify turns a post's text into the classification the product
// stores with every mention: category, sentiment, urgency, a summary and a
// relevance flag. The built-in classifier is offline and deterministic;
// Ollama is optional.
package classify

import "context"

// Project is the context a classifier may use to judge relevance.
type Project struct {
	Name        string
	Website     string
	Description string
	// Terms are the keywords of all the project's monitors (its names,
	// products, competitors) and its own @handles: one named next to an
	// ambiguous keyword is evidence the post is about this market.
	Terms []string
}

// CategoryInfo describes one category as a project configured it.
type CategoryInfo struct {
	Category    string
	Label       string
	Description string
	Enabled     bool
}

// Input is one post to classify.
type Input struct {
	Text   string
	Source string
	// Kind and Tags are what the post is on its platform (issue,
	// pull_request, question, topic, reply, article) and its labels or
	// tags there ("bug", "enhancement"), where the platform says: a
	// source-aware prior for classifiers (a GitHub issue labelled bug is
	// a bug report). Empty for most sources.
	Kind            string
	Tags            []string
	Keywords        []string // the monitor's keywords (brand terms)
	Project         Project
	Engagement      map[string]int64
	AuthorFollowers int64
	// Categories as configured in the project; nil means all six enabled.
	// A disabled category is never produced (the post is filed as other).
	Categories []CategoryInfo
	// Relevance is the project's model learned from triage; may be nil.
	Relevance *RelevanceModel
	// Corrections is the project's model learned from the categories and
	// sentiments people corrected; may be nil. The built-in classifier
	// follows it where a post's words are clearly a corrected class's.
	Corrections *CorrectionModel
	// Unsourced is set for text given on its own (`earshot classify`),
	// not collected by a monitor: no watched account, feed or review page
	// vouches for it, so a post that names none of the brand terms is not
	// relevant.
	Unsourced bool
}

// Result is a classification.
type Result struct {
	Category     string  `json:"category"`
	Sentiment    string  `json:"sentiment"` // positive, neutral, negative
	Urgency      int     `json:"urgency"`   // 0-100
	Summary      string  `json:"ai_summary"`
	IsRelevant   bool    `json:"is_relevant"`
	Classifier   string  `json:"classifier"` // e.g. "builtin", "ollama:llama3.2", "builtin(fallback)"
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// Reasons explain the category, urgency and relevance, most important
	// first, e.g. `urgency +45: data loss ("deleted all my data")`.
	Reasons []string `json:"reasons,omitempty"`
	// One short, human-readable sentence each, stored with the mention and
	// shown by get_mention and the dashboard: why this category, why this
	// urgency, why (not) relevant. Empty when the classifier gave none.
	CategoryReason  string `json:"category_reason,omitempty"`
	UrgencyReason   string `json:"urgency_reason,omitempty"`
	RelevanceReason string `json:"relevance_reason,omitempty"`
}

// Classifier classifies posts. Implementations are safe for concurrent use.
type Classifier interface {
	Name() string
	Classify(ctx context.Context, in Input) (Result, error)
}
