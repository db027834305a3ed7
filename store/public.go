package store

import "earshot/api"

// The explicit mapping from rows to the public records (package api).
// Rows carry no JSON of their own: a row field can be renamed, split or
// dropped without a public surface following it, as long as its record
// here is still filled the same way (the golden snapshots check;
// docs/decisions.md#public-records).

// Record is the event as a webhook delivery's body.
func (e *Event) Record() *api.Event {
	return &api.Event{ID: e.ID, Type: e.Type, CreatedAt: e.CreatedAt, ProjectID: e.ProjectID, Data: e.Data}
}

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
		Assignee: assigneeRecord(m), Tags: tagList(m.Tags),
	}
}

// assigneeRecord copies the assignee, so a record never shares it with
// the row.
func assigneeRecord(m *Mention) *api.Assignee {
	if m.Assignee == nil {
		return nil
	}
	a := *m.Assignee
	return &a
}

// tagList is never nil: tags is [] in JSON when there are none.
func tagList(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}

// MentionFromRecord is the row a public record was made from, as far as
// the record shows it: for readers of a webhook body, such as the alert
// fan-out, which matches data.mention with Filter.Match.
func MentionFromRecord(r *api.Mention) *Mention {
	return &Mention{
		ID: r.ID, ProjectID: r.ProjectID, MonitorID: r.MonitorID, MonitorIDs: r.MonitorIDs,
		Source: r.Source, ExternalID: r.ExternalID, URL: r.URL, AuthorHandle: r.AuthorHandle, Text: r.Text,
		PublishedAt: r.PublishedAt, CollectedAt: r.CollectedAt, Engagement: r.Engagement,
		IsRelevant: r.IsRelevant, Category: r.Category, Sentiment: r.Sentiment, Urgency: r.Urgency, AISummary: r.AISummary,
		Status: r.Status, Classifier: r.Classifier, UpdatedAt: r.UpdatedAt, Own: r.Own,
		CategoryReason: r.CategoryReason, UrgencyReason: r.UrgencyReason, RelevanceReason: r.RelevanceReason,
		PublicVisibility: r.PublicVisibility, StoryID: r.StoryID, StoryCount: r.StoryCount, StorySources: r.StorySources,
		Assignee: r.Assignee, Tags: r.Tags,
	}
}

// AssigneeID is the assignee's user id, "" when nobody is assigned.
func (m *Mention) AssigneeID() string {
	if m.Assignee == nil {
		return ""
	}
	return m.Assignee.ID
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

// Record is the monitor as REST and MCP show it.
func (m *Monitor) Record() *api.Monitor {
	if m == nil {
		return nil
	}
	out := &api.Monitor{
		ID: m.ID, ProjectID: m.ProjectID, Name: m.Name, Keywords: m.Keywords, ExcludeKeywords: m.ExcludeKeywords, QueryMode: m.QueryMode,
		WatchAccounts: m.WatchAccounts, FeedURLs: m.FeedURLs, ReviewURLs: m.ReviewURLs, Sources: m.Sources, GroupName: m.GroupName,
		GroupID: m.GroupID, Active: m.Active, ScanIntervalMinutes: m.ScanIntervalMinutes, BackfillHours: m.BackfillHours,
		LastScannedAt: m.LastScannedAt, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
	}
	if m.SourceStatus != nil {
		out.SourceStatus = make([]api.SourceStatus, len(m.SourceStatus))
		for i, s := range m.SourceStatus {
			out.SourceStatus[i] = api.SourceStatus{Source: s.Source, Status: s.Status, Detail: s.Detail, LastError: s.LastError,
				FailingSince: s.FailingSince, RateLimitedUntil: s.RateLimitedUntil, LastOKAt: s.LastOKAt, LastPostAt: s.LastPostAt, QuotaDropped: s.QuotaDropped, LastScan: s.LastScan}
		}
	}
	return out
}

// MonitorRecords converts a list (nil stays nil).
func MonitorRecords(xs []*Monitor) []*api.Monitor {
	if xs == nil {
		return nil
	}
	out := make([]*api.Monitor, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the keyword group as REST and MCP show it.
func (g *KeywordGroup) Record() *api.KeywordGroup {
	if g == nil {
		return nil
	}
	return &api.KeywordGroup{
		ID: g.ID, Name: g.Name, IsOwn: g.IsOwn, CreatedAt: g.CreatedAt,
	}
}

// KeywordGroupRecords converts a list (nil stays nil).
func KeywordGroupRecords(xs []*KeywordGroup) []*api.KeywordGroup {
	if xs == nil {
		return nil
	}
	out := make([]*api.KeywordGroup, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the story as REST and MCP show it.
func (st *Story) Record() *api.Story {
	if st == nil {
		return nil
	}
	return &api.Story{
		ID: st.ID, ProjectID: st.ProjectID, Title: st.Title, Link: st.Link, MentionCount: st.MentionCount, Sources: st.Sources,
		Statuses: st.Statuses, FirstMentionID: st.FirstMentionID, LatestMentionID: st.LatestMentionID, FirstSeen: st.FirstSeen,
		LastSeen: st.LastSeen, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt,
	}
}

// StoryRecords converts a list (nil stays nil).
func StoryRecords(xs []*Story) []*api.Story {
	if xs == nil {
		return nil
	}
	out := make([]*api.Story, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the webhook (without its secrets) as REST and MCP show it.
func (w *Webhook) Record() *api.Webhook {
	if w == nil {
		return nil
	}
	return &api.Webhook{
		ID: w.ID, URL: w.URL, Events: w.Events, Active: w.Active, DisabledReason: w.DisabledReason, CreatedAt: w.CreatedAt,
		UpdatedAt: w.UpdatedAt,
	}
}

// WebhookRecords converts a list (nil stays nil).
func WebhookRecords(xs []*Webhook) []*api.Webhook {
	if xs == nil {
		return nil
	}
	out := make([]*api.Webhook, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the delivery (without its payload) as REST and MCP show it.
func (d *Delivery) Record() *api.Delivery {
	if d == nil {
		return nil
	}
	return &api.Delivery{
		ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
		NextAttemptAt: d.NextAttemptAt, LastStatusCode: d.LastStatusCode, LastResponse: d.LastResponse, LastError: d.LastError,
		ReplayOf: d.ReplayOf, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
}

// DeliveryRecords converts a list (nil stays nil).
func DeliveryRecords(xs []*Delivery) []*api.Delivery {
	if xs == nil {
		return nil
	}
	out := make([]*api.Delivery, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the alert (without its secret) as REST and MCP show it.
func (a *Alert) Record() *api.Alert {
	if a == nil {
		return nil
	}
	return &api.Alert{
		ID: a.ID, Name: a.Name, Active: a.Active, MinUrgency: a.MinUrgency, Channel: a.Channel, Target: a.Target, Filters: a.Filters,
		Digest: a.Digest, Trigger: a.Trigger, LastDigestAt: a.LastDigestAt, CreatedAt: a.CreatedAt,
	}
}

// AlertRecords converts a list (nil stays nil).
func AlertRecords(xs []*Alert) []*api.Alert {
	if xs == nil {
		return nil
	}
	out := make([]*api.Alert, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the saved view as REST and MCP show it.
func (v *View) Record() *api.View {
	if v == nil {
		return nil
	}
	return &api.View{
		ID: v.ID, Name: v.Name, Filters: v.Filters, CreatedAt: v.CreatedAt,
	}
}

// ViewRecords converts a list (nil stays nil).
func ViewRecords(xs []*View) []*api.View {
	if xs == nil {
		return nil
	}
	out := make([]*api.View, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the category as REST and MCP show it.
func (c *Category) Record() *api.Category {
	if c == nil {
		return nil
	}
	return &api.Category{
		Category: c.Category, Label: c.Label, Description: c.Description, Enabled: c.Enabled,
	}
}

// CategoryRecords converts a list (nil stays nil).
func CategoryRecords(xs []*Category) []*api.Category {
	if xs == nil {
		return nil
	}
	out := make([]*api.Category, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the member as REST and MCP show it.
func (m *Member) Record() *api.Member {
	if m == nil {
		return nil
	}
	return &api.Member{
		UserID: m.UserID, Email: m.Email, FullName: m.FullName, Role: m.Role, CreatedAt: m.CreatedAt,
	}
}

// MemberRecords converts a list (nil stays nil).
func MemberRecords(xs []*Member) []*api.Member {
	if xs == nil {
		return nil
	}
	out := make([]*api.Member, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}

// Record is the API key (its hash is not in the row) as REST and MCP show it.
func (k *APIKey) Record() *api.APIKey {
	if k == nil {
		return nil
	}
	return &api.APIKey{
		ID: k.ID, ProjectID: k.ProjectID, Name: k.Name, Prefix: k.Prefix, Last4: k.Last4, Scopes: k.Scopes, CreatedBy: k.CreatedBy,
		CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt,
	}
}

// APIKeyRecords converts a list (nil stays nil).
func APIKeyRecords(xs []*APIKey) []*api.APIKey {
	if xs == nil {
		return nil
	}
	out := make([]*api.APIKey, len(xs))
	for i, x := range xs {
		out[i] = x.Record()
	}
	return out
}
