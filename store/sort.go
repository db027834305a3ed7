package store

import "context"

// PositionOf is the keyset position of m in the filter's order: (urgency,
// published_at, id) by urgency, (collected_at, id) in sync mode,
// (published_at, id) otherwise. The next page starts after it.
func PositionOf(m *Mention, f MentionFilter) Position {
	switch {
	case f.CollectedSince != nil:
		return Position{At: m.CollectedAt, ID: m.ID}
	case f.ByUrgency:
		return Position{Urgency: m.Urgency, At: m.PublishedAt, ID: m.ID}
	}
	return Position{At: m.PublishedAt, ID: m.ID}
}

// rareWindowCap: a publication window holding fewer of the project's
// mentions than this is read from the date index and sorted by urgency,
// instead of walking the urgency index and skipping what lies outside it.
var rareWindowCap = 2000

// urgencySource is where an urgency-ordered page reads its rows from
// (mentionQuery's FROM and its arguments). The urgency index (migration
// 091) is walked from the most urgent, newest mention; it carries the
// filterable columns, like the date index, so a row failing the filter
// costs one index entry. A filter value few mentions hold (of any status,
// here: triaged mentions have no urgency-ordered index of their own), or a
// short publication window, is fetched from its own index and sorted,
// which a bounded number of rows keeps cheap.
func (s *Store) urgencySource(ctx context.Context, f MentionFilter) (string, []any) {
	if s.pg { // mentionQuery names the table alone on PostgreSQL
		return `mentions m`, nil
	}
	c, ok := s.rareValue(ctx, f)
	if f.Since != nil {
		w := valueRows{`SELECT rowid AS k FROM mentions INDEXED BY mentions_feed WHERE project_id = ? AND published_at >= ?`,
			"rowid", []any{f.ProjectID, FormatTime(*f.Since)}, rareWindowCap, 0}
		if f.Until != nil {
			w.rows += ` AND published_at < ?`
			w.args = append(w.args, FormatTime(*f.Until))
		}
		limit := rareWindowCap
		if ok {
			limit = min(limit, c.count)
		}
		var n int
		if limit > 0 {
			if err := s.rd(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+w.rows+` LIMIT ?) AS c`, append(w.args, limit)...).Scan(&n); err == nil && n < limit {
				c, ok = w, true
			}
		}
	}
	if ok {
		return `(` + c.rows + `) AS cand CROSS JOIN mentions m ON m.` + c.key + ` = cand.k`, c.args
	}
	return `mentions m INDEXED BY mentions_urgency`, nil
}
