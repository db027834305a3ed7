package classify

// RelevanceModel is a project's relevance model learned from triage.
type RelevanceModel struct{}
