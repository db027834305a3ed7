package capability

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"earshot/api"
	"earshot/store"
)

// Spikes are found in the background (package spike); these operations
// read them: the inbox chart's bands, an agent asking "anything unusual?".

type ListSpikesIn struct {
	MonitorID      string `json:"monitor_id,omitempty" in:"query" validate:"format=uuid" doc:"Only spikes of this monitor (also a deleted one)."`
	KeywordGroupID string `json:"keyword_group_id,omitempty" in:"query" validate:"format=uuid" doc:"Only spikes of this keyword group."`
	Kind           string `json:"kind,omitempty" in:"query" validate:"enum=volume|negative" doc:"volume (relevant mentions) or negative (relevant negative mentions)."`
	Since          string `json:"since,omitempty" in:"query" validate:"format=date-time" doc:"Only hours that end after this ISO 8601 time."`
	Until          string `json:"until,omitempty" in:"query" validate:"format=date-time" doc:"Only hours that start before this ISO 8601 time."`
	Cursor         string `json:"cursor,omitempty" in:"query" validate:"maxlen=500" doc:"The nextCursor of the previous page."`
	Limit          *int   `json:"limit,omitempty" in:"query" validate:"min=1,max=100" default:"50" doc:"Page size, 1-100."`
}

type SpikesOut struct {
	Spikes     []*api.Spike `json:"spikes"`
	NextCursor *string      `json:"nextCursor"`
	HasMore    bool         `json:"hasMore"`
}

// SpikeOut is a spike with the mentions behind it.
type SpikeOut struct {
	*api.Spike
	Mentions []*api.Mention `json:"mentions" doc:"Up to 20 of the mentions behind the spike (its scope's relevant mentions of its kind in its hour), most urgent first."`
}

// spikeMentionsShown bounds the mentions get_spike returns; mentions_query
// (or the monitors and the window) lists them all.
const spikeMentionsShown = 20

func (s *Service) spikeCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "list_spikes", Title: "List spikes", Group: "spike", Method: "GET", Path: "/api/v1/spikes",
			Scope: MentionsRead, Idempotent: true,
			Description: "Bursts of mentions: hours in which a monitor's or keyword group's relevant mentions (kind volume) or negative ones (kind negative) " +
				"far exceeded the usual count of that hour on previous days. Newest hour first; filter by monitor, keyword group, kind and a time window. " +
				"Use it to ask whether anything unusual is happening, or to mark bursts on a chart."},
			s.listSpikes),
		Define(Capability{Name: "get_spike", Title: "Get a spike", Group: "spike", Method: "GET", Path: "/api/v1/spikes/:id",
			Scope: MentionsRead, Idempotent: true,
			Description: "One spike with its count, baseline and score, and up to 20 of the mentions behind it, most urgent first: what the burst is about."},
			s.getSpike),
	}
}

func (s *Service) listSpikes(ctx context.Context, p *Principal, in *ListSpikesIn) (*SpikesOut, error) {
	if in.MonitorID != "" && in.KeywordGroupID != "" {
		return nil, Invalid("keyword_group_id", "give monitor_id or keyword_group_id, not both: a spike belongs to one of them")
	}
	if err := s.checkMonitorRef(ctx, p, in.MonitorID, "monitor_id"); err != nil {
		return nil, err
	}
	if in.KeywordGroupID != "" {
		if _, err := s.Store.KeywordGroup(ctx, p.ProjectID, in.KeywordGroupID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, notFoundParam("keyword group", "keyword_group_id")
			}
			return nil, err
		}
	}
	f := store.SpikeFilter{ProjectID: p.ProjectID, MonitorID: in.MonitorID, KeywordGroupID: in.KeywordGroupID, Kind: in.Kind}
	if in.Since != "" {
		t, _ := ParseTimeParam(in.Since)
		f.Since = &t
	}
	if in.Until != "" {
		t, _ := ParseTimeParam(in.Until)
		f.Until = &t
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return nil, Invalid("until", "until must be after since")
	}
	limit := *in.Limit
	q := *in
	q.Cursor, q.Limit = "", nil
	b, _ := json.Marshal(q)
	binding := "spikes:" + p.ProjectID + ":" + string(b)
	after, err := openAfter(s, in.Cursor, binding, positionSet)
	if err != nil {
		return nil, err
	}
	sps, err := s.Store.ListSpikes(ctx, f, after, limit+1)
	if err != nil {
		return nil, err
	}
	out := &SpikesOut{}
	if len(sps) > limit {
		sps = sps[:limit]
		out.HasMore = true
		last := sps[limit-1]
		c := s.sealCursor(store.Position{At: last.BucketStart, ID: last.ID}, binding)
		out.NextCursor = &c
	}
	out.Spikes = store.SpikeRecords(sps)
	return out, nil
}

func (s *Service) getSpike(ctx context.Context, p *Principal, in *IDPath) (*SpikeOut, error) {
	sp, err := s.Store.GetSpike(ctx, p.ProjectID, in.ID)
	if err != nil {
		return nil, err
	}
	ms, err := s.Store.SpikeMentions(ctx, sp, spikeMentionsShown)
	if err != nil {
		return nil, err
	}
	return &SpikeOut{Spike: sp.Record(), Mentions: store.MentionRecords(ms)}, nil
}

// checkSpikeFilters: a spike alert is narrowed by monitor and by kind
// (sentiment negative); the other filters describe single mentions, and
// accepting them would promise a filtering that does not happen.
func checkSpikeFilters(trigger string, f *MentionFilters) error {
	if trigger != "spike" || f == nil {
		return nil
	}
	if f.Sentiment != "" && f.Sentiment != "negative" {
		return Invalid("filters.sentiment", "a spike alert takes filters.sentiment negative (negative spikes only) or none")
	}
	b, _ := json.Marshal(f)
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if k != "monitor_id" && k != "sentiment" {
			return Invalid("filters."+k, "a spike alert takes only filters.monitor_id and filters.sentiment; filters.%s applies to single mentions", k)
		}
	}
	return nil
}
