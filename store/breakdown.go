package store

import (
	"context"
	"time"
)

// Breakdown counts a filter's mentions in [since, until) per source and per
// category (the agent's brief, capability/brief.go).
type Breakdown struct {
	BySource   map[string]int
	ByCategory map[string]int
}

// MentionBreakdown is one grouped count over the filter's index range: a
// few dozen groups, whatever the window holds.
func (s *Store) MentionBreakdown(ctx context.Context, f MentionFilter, since, until time.Time) (*Breakdown, error) {
	f.Since, f.Until = nil, nil
	q, args := s.countPlan(ctx, f).query(`SELECT m.source, m.category, COUNT(*) FROM %s WHERE %s GROUP BY m.source, m.category`, &since, &until)
	out := &Breakdown{BySource: map[string]int{}, ByCategory: map[string]int{}}
	err := s.eachRow(ctx, q, args, func(scan func(...any) error) error {
		var source, category string
		var n int
		if err := scan(&source, &category, &n); err != nil {
			return err
		}
		out.BySource[source] += n
		out.ByCategory[category] += n
		return nil
	})
	return out, err
}
