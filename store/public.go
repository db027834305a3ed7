package store

import "earshot/api"

// The explicit mapping from rows to the public records (package api).
// Rows carry no JSON of their own: a row field can be renamed, split or
// dropped without a public surface following it, as long as its record
// here is still filled the same way (the golden snapshots check).

// Record is the mention as REST, MCP and webhook payloads show it.
func (m *Mention) Record() *api.Mention {
	if m == nil {
		return nil
	}
	return &api.Mention{
		ID: m.ID, ProjectID: m.ProjectID, MonitorID: m.MonitorID, MonitorIDs: m.MonitorIDs,
		Source: m.Source, ExternalID: m.ExternalID, URL: m.URL, AuthorHandle: m.AuthorHandle, Text: m.Text,
		PublishedAt: m.PublishedAt, CollectedAt: m.CollectedAt, Engagement: m.Engagement,
		IsRelevant: m.IsRelevant, Category: m.Category, Sentiment: m.Sentiment, Urgency: m.Urgency, AISummary: m.AISummary,
		Status: m.Status, Classifier: m.Classifier, UpdatedAt: m.UpdatedAt, Own: m.Own,
		CategoryReason: m.CategoryReason, UrgencyReason: m.UrgencyReason, RelevanceReason: m.RelevanceReason,
		PublicVisibility: m.PublicVisibility, StoryID: m.StoryID, StoryCount: m.StoryCount, StorySources: m.StorySources,
	}
}

// MentionRecords converts a list of mentions (nil stays nil: null and []
// are different JSON).
func MentionRecords(ms []*Mention) []*api.Mention {
	if ms == nil {
		return nil
	}
	out := make([]*api.Mention, len(ms))
	for i, m := range ms {
		out[i] = m.Record()
	}
	return out
}

// Record is the spike as REST, MCP and spike.detected payloads show it.
func (sp *Spike) Record() *api.Spike {
	if sp == nil {
		return nil
	}
	out := &api.Spike{
		ID: sp.ID, Scope: sp.Scope, MonitorID: sp.MonitorID, KeywordGroupID: sp.KeywordGroupID, Kind: sp.Kind,
		BucketStart: sp.BucketStart, BucketEnd: sp.BucketEnd, Count: sp.Count, Baseline: sp.Baseline, Score: sp.Score,
		Threshold: sp.Threshold, DetectedAt: sp.DetectedAt, UpdatedAt: sp.UpdatedAt, MonitorIDs: sp.MonitorIDs,
		MentionsPath: sp.MentionsPath,
	}
	if q := sp.MentionsQuery; q != nil {
		out.MentionsQuery = &api.SpikeMentionsQuery{MonitorID: q.MonitorID, Since: q.Since, Until: q.Until, IsRelevant: q.IsRelevant, Sentiment: q.Sentiment}
	}
	return out
}

// SpikeRecords converts a list of spikes (nil stays nil).
func SpikeRecords(ss []*Spike) []*api.Spike {
	if ss == nil {
		return nil
	}
	out := make([]*api.Spike, len(ss))
	for i, s := range ss {
		out[i] = s.Record()
	}
	return out
}
