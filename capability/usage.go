package capability

import (
	"context"
	"math"

	"earshot/store"
)

// Usage: the plan's monthly quota and what the period has used.

type UsageOut struct {
	Plan                 string     `json:"plan"`
	QuotaPeriod          string     `json:"quota_period"`
	MentionsIncluded     int        `json:"mentions_included"`
	MentionsUsed         int        `json:"mentions_used"`
	MentionsRemaining    int        `json:"mentions_remaining"`
	Unlimited            bool       `json:"unlimited"`
	MentionsDropped      int        `json:"mentions_dropped"`
	PeriodStart          string     `json:"period_start"`
	ProviderCostUSD      float64    `json:"provider_cost_usd"`
	CostPerNewMentionUSD float64    `json:"cost_per_new_mention_usd"`
	Days                 []UsageDay `json:"days" doc:"Mentions stored and posts dropped per UTC day over the last 30 days, today last (a trend across the month boundary)."`
}

func (s *Service) usageCaps() []*Capability {
	return []*Capability{
		Define(Capability{Name: "get_usage", Title: "Get usage", Group: "usage", Method: "GET", Path: "/api/v1/usage",
			Scope: UsageRead, Idempotent: true,
			Description: "Quota consumption this month and the measured classifier cost. Check it before creating monitors when near the quota."},
			s.getUsage),
	}
}

func (s *Service) getUsage(ctx context.Context, p *Principal, _ *Empty) (*UsageOut, error) {
	pr, err := s.Store.Project(ctx, p.ProjectID)
	if err != nil {
		return nil, err
	}
	u, err := s.Store.Usage(ctx, p.ProjectID, store.PeriodStart(s.now()))
	if err != nil {
		return nil, err
	}
	q := s.Quota(pr.Plan)
	out := &UsageOut{Plan: pr.Plan, QuotaPeriod: "monthly", MentionsIncluded: q, MentionsUsed: u.MentionsUsed, Unlimited: q == 0,
		MentionsDropped: u.Dropped, PeriodStart: u.PeriodStart, ProviderCostUSD: round6(u.ProviderCostUSD)}
	if q > 0 {
		out.MentionsRemaining = max(0, q-u.MentionsUsed)
	}
	if u.MentionsUsed > 0 {
		out.CostPerNewMentionUSD = round6(u.ProviderCostUSD / float64(u.MentionsUsed))
	}
	if out.Days, err = s.usageDays(ctx, p.ProjectID); err != nil {
		return nil, err
	}
	return out, nil
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// DroppedThisPeriod is how many new posts the project's quota dropped in
// the current period: the dashboard's banner, on every page, so a quota
// never drops posts unseen.
func (s *Service) DroppedThisPeriod(ctx context.Context, projectID string) (int, error) {
	u, err := s.Store.Usage(ctx, projectID, store.PeriodStart(s.now()))
	if err != nil {
		return 0, err
	}
	return u.Dropped, nil
}
