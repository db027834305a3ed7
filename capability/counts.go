package capability

import (
	"context"
	"encoding/json"
	"time"

	"earshot/api"
	"earshot/store"
)

// viewCountBudget bounds the time list_views spends counting all its views:
// a rare combination of common values (say hn + misinformation + urgency
// ≥ 95) walks much of a large project before it is sure, and the views
// list must not wait for that.
const viewCountBudget = 300 * time.Millisecond

// CountMentionsIn's limit default is how far a count goes unless asked
// (list_views counts its views as far): "1000+" is as useful on a badge as
// the exact number, and a count that stops there costs at most about as
// much as reading that many index entries.
type CountMentionsIn struct {
	MentionFilters
	Limit *int `json:"limit,omitempty" in:"query" validate:"min=1,max=10000" default:"1000" doc:"Count at most this many; count_capped tells when there are more."`
}

type CountOut struct {
	Count       int  `json:"count" doc:"Mentions matching the filters, at most limit."`
	CountCapped bool `json:"count_capped" doc:"true when more mentions match than limit (show it as limit+)."`
}

// ViewWithCount is a saved view with how many mentions match it now.
type ViewWithCount struct {
	api.View
	Count       *int `json:"count" doc:"Mentions matching the view, at most 1000; null when counting took too long (list_views spends at most 0.3 s counting)."`
	CountCapped bool `json:"count_capped" doc:"true when more than 1000 mentions match (show 1000+)."`
}

func (s *Service) countCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "count_mentions", Title: "Count mentions", Group: "mention", Method: "GET", Path: "/api/v1/mention-count",
			Scope: MentionsRead, Idempotent: true,
			Description: "How many mentions match the list_mentions filters, counting up to limit (default 1000) so it stays cheap: count_capped says there are more. For badges such as the number of new urgent mentions."},
			s.countMentions),
	}
}

func (s *Service) countMentions(ctx context.Context, p *Principal, in *CountMentionsIn) (*CountOut, error) {
	f, err := s.filter(ctx, p, MentionQuery{MentionFilters: in.MentionFilters})
	if err != nil {
		return nil, err
	}
	return s.count(ctx, f, *in.Limit)
}

func (s *Service) count(ctx context.Context, f store.MentionFilter, limit int) (*CountOut, error) {
	n, err := s.Store.CountMentions(ctx, f, limit+1)
	if err != nil {
		return nil, err
	}
	return &CountOut{Count: min(n, limit), CountCapped: n > limit}, nil
}

// withCounts counts each view's mentions within viewCountBudget; a view
// not counted in time (or whose filters no longer apply, e.g. a date
// window) has count null.
func (s *Service) withCounts(ctx context.Context, p *Principal, vs []*store.View) []*ViewWithCount {
	out := make([]*ViewWithCount, len(vs))
	d, _ := s.byName["count_mentions"].Default("limit") // one default, count_mentions' tag
	limit := d.(int)
	cctx, cancel := context.WithTimeout(ctx, viewCountBudget)
	defer cancel()
	for i, v := range vs {
		out[i] = &ViewWithCount{View: *v.Record()}
		if cctx.Err() != nil {
			continue
		}
		var q MentionFilters
		if err := json.Unmarshal(v.Filters, &q); err != nil {
			continue
		}
		f, err := s.filter(cctx, p, MentionQuery{MentionFilters: q})
		if err != nil {
			continue
		}
		c, err := s.count(cctx, f, limit)
		if err != nil {
			continue
		}
		out[i].Count, out[i].CountCapped = &c.Count, c.CountCapped
	}
	return out
}
