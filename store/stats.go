package store

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"time"
)

// SentimentCounts is a number of mentions, in all and per sentiment.
type SentimentCounts struct {
	Total, Positive, Neutral, Negative int
}

func (c *SentimentCounts) add(sentiment string, n int) {
	c.Total += n
	switch sentiment {
	case "positive":
		c.Positive += n
	case "neutral":
		c.Neutral += n
	case "negative":
		c.Negative += n
	}
}

// countSource is where a count reads the filter's mentions from. Order does
// not matter here, so the choice is about how many index entries are read
// and whether rows are: the date index carries every column a count groups
// by or a common filter tests (migration 072), so a window is counted from
// it alone; an author or curated state from its own date-ordered index. A
// rare search or filter value gives a bounded set of candidates instead
// (ranged false).
//
// On PostgreSQL the table is named bare and its planner chooses (the same
// indexes exist there), a rare search aside (pgSource), and every count is
// ranged.
func (s *Store) countSource(ctx context.Context, f MentionFilter, add func(string, ...any)) (from string, args []any, ranged bool) {
	rare := ""
	if !s.pg {
		rare = s.rareSearch(ctx, f)
	}
	switch {
	case s.pg:
		if f.PublicVisibility == VisibilityFeatured || f.PublicVisibility == VisibilityHidden {
			add(`m.public_visibility <> 'auto'`) // lets the partial index match
		}
		from, args := s.pgSource(ctx, f)
		return from, args, true
	case rare != "":
		return `(SELECT rowid AS k FROM mentions_fts WHERE mentions_fts MATCH ? UNION SELECT rowid FROM fts_pending) AS cand
			CROSS JOIN mentions m ON m.rowid = cand.k`, []any{rare}, false
	case f.AuthorHandle != "":
		return `mentions m INDEXED BY mentions_author`, nil, true
	case f.PublicVisibility == VisibilityFeatured || f.PublicVisibility == VisibilityHidden:
		add(`m.public_visibility <> 'auto'`)
		return `mentions m INDEXED BY mentions_curated`, nil, true
	}
	if c, ok := s.rareValue(ctx, f); ok {
		return `(` + c.rows + `) AS cand CROSS JOIN mentions m ON m.` + c.key + ` = cand.k`, c.args, false
	}
	return `mentions m INDEXED BY mentions_feed`, nil, true
}

// MentionCounts counts the filter's mentions per sentiment in each bucket
// [bounds[i], bounds[i+1]) of publication time (the filter's own Since and
// Until are replaced by the buckets'). Over a date-ordered index each
// bucket is one aggregate over an index range: no sort, no row read for
// the common filters (at 1M mentions a 37-day window of 200,000 takes
// about 0.1 s here, where one GROUP BY over it sorted for 0.3-0.7 s). A
// rare value's few candidates are read once and bucketed here.
//
// A filter on the project, status and sentiment alone (the dashboard's
// overview, and most series) is answered from mention_hours (migration
// 160), whose triggers keep exact counts per hour: whole hours are read
// from it, and only the last bucket's unfinished hour is counted from the
// mentions, so the cost follows the window's length, not its mentions.
func (s *Store) MentionCounts(ctx context.Context, f MentionFilter, bounds []time.Time) ([]SentimentCounts, error) {
	out := make([]SentimentCounts, max(len(bounds)-1, 0))
	if len(out) == 0 {
		return out, nil
	}
	f.Since, f.Until = nil, nil // each query gives its own window
	if hourCountable(f) && hourAligned(bounds) {
		return out, s.hourCounts(ctx, f, bounds, out)
	}
	return out, s.scanCounts(ctx, f, bounds, out)
}

// hourCountable reports whether mention_hours can count f's mentions: it
// keys the project, status and sentiment only. A filter field added later
// makes this false until it is thought about (exact counts first).
func hourCountable(f MentionFilter) bool {
	f.ProjectID, f.Status, f.NotStatus, f.Sentiment = "", "", "", ""
	f.Since, f.Until = nil, nil
	f.ByUrgency, f.CollapseStories = false, false // orders and shapes of lists: they select nothing here
	return reflect.ValueOf(f).IsZero()
}

// hourAligned reports whether every bound but the last starts an hour
// (the last, "now" usually, may fall inside one) and the window holds at
// least one whole hour.
func hourAligned(bounds []time.Time) bool {
	for _, b := range bounds[:len(bounds)-1] {
		if !b.Equal(b.Truncate(time.Hour)) {
			return false
		}
	}
	last := bounds[len(bounds)-1]
	return last.Truncate(time.Hour).After(bounds[0])
}

// hourCounts fills out from mention_hours for the whole hours, and from
// the mentions for the last, unfinished one.
func (s *Store) hourCounts(ctx context.Context, f MentionFilter, bounds []time.Time, out []SentimentCounts) error {
	last := bounds[len(bounds)-1]
	whole := last.Truncate(time.Hour) // hours before it are whole
	where, args := hourFilter(f, bounds[0], whole)
	// Grouped by hour, the primary key's order: no sort; at most a few
	// hundred rows (a 37-day window is 888 hours).
	q := `SELECT hour, CAST(SUM(n) AS BIGINT), CAST(SUM(CASE WHEN sentiment = 'positive' THEN n ELSE 0 END) AS BIGINT),
		CAST(SUM(CASE WHEN sentiment = 'neutral' THEN n ELSE 0 END) AS BIGINT), CAST(SUM(CASE WHEN sentiment = 'negative' THEN n ELSE 0 END) AS BIGINT)
		FROM mention_hours WHERE ` + where + ` GROUP BY hour`
	err := s.eachRow(ctx, q, args, func(scan func(...any) error) error {
		var hour string
		var c SentimentCounts
		if err := scan(&hour, &c.Total, &c.Positive, &c.Neutral, &c.Negative); err != nil {
			return err
		}
		if i := bucketOf(bounds, hour+":00:00.000Z"); i >= 0 {
			o := &out[i]
			o.Total, o.Positive, o.Neutral, o.Negative = o.Total+c.Total, o.Positive+c.Positive, o.Neutral+c.Neutral, o.Negative+c.Negative
		}
		return nil
	})
	if err != nil || !last.After(whole) {
		return err
	}
	tail := make([]SentimentCounts, 1)
	if err := s.scanCounts(ctx, f, []time.Time{whole, last}, tail); err != nil {
		return err
	}
	o := &out[len(out)-1] // whole is at or after the last bucket's start
	o.Total, o.Positive, o.Neutral, o.Negative = o.Total+tail[0].Total, o.Positive+tail[0].Positive, o.Neutral+tail[0].Neutral, o.Negative+tail[0].Negative
	return nil
}

// hourPrefix is mention_hours.hour for the hour holding t: the first 13
// characters of the stored timestamp.
func hourPrefix(t time.Time) string { return FormatTime(t)[:13] }

// scanCounts is MentionCounts from the mentions themselves.
func (s *Store) scanCounts(ctx context.Context, f MentionFilter, bounds []time.Time, out []SentimentCounts) error {
	plan := s.countPlan(ctx, f)
	first, last := &bounds[0], &bounds[len(bounds)-1]
	if !plan.ranged {
		q, args := plan.query(`SELECT m.published_at, m.sentiment FROM %s WHERE %s`, first, last)
		err := s.eachRow(ctx, q, args, func(scan func(...any) error) error {
			var at, sentiment string
			if err := scan(&at, &sentiment); err != nil {
				return err
			}
			if i := bucketOf(bounds, at); i >= 0 {
				out[i].add(sentiment, 1)
			}
			return nil
		})
		return err
	}
	for i := range out {
		// COUNT(CASE …) rather than SUM(comparison): PostgreSQL cannot sum
		// booleans, and a count is an integer on both.
		q, args := plan.query(`SELECT COUNT(*), COUNT(CASE WHEN m.sentiment = 'positive' THEN 1 END),
			COUNT(CASE WHEN m.sentiment = 'neutral' THEN 1 END), COUNT(CASE WHEN m.sentiment = 'negative' THEN 1 END)
			FROM %s WHERE %s`, &bounds[i], &bounds[i+1])
		c := &out[i]
		if err := s.rd(ctx).QueryRowContext(ctx, q, args...).Scan(&c.Total, &c.Positive, &c.Neutral, &c.Negative); err != nil {
			return err
		}
	}
	return nil
}

// MentionCountsByMonitor counts, per monitor that matched them, the
// filter's mentions in each bucket of publication time (as MentionCounts;
// a mention two monitors matched counts for both).
func (s *Store) MentionCountsByMonitor(ctx context.Context, f MentionFilter, bounds []time.Time) (map[string][]int, error) {
	out := map[string][]int{}
	if len(bounds) < 2 {
		return out, nil
	}
	count := func(monitorID string, i, n int) {
		if out[monitorID] == nil {
			out[monitorID] = make([]int, len(bounds)-1)
		}
		out[monitorID][i] += n
	}
	f.Since, f.Until = nil, nil // each query gives its own window
	if hourCountable(f) && hourAligned(bounds) {
		return out, s.monitorHourCounts(ctx, f, bounds, count)
	}
	return out, s.scanMonitorCounts(ctx, f, bounds, count)
}

// hourFilter is the WHERE of a read of mention_hours or
// mention_monitor_hours: the project, the whole hours of [from, to), and
// f's status and sentiment.
func hourFilter(f MentionFilter, from, to time.Time) (string, []any) {
	where := []string{`project_id = ?`, `hour >= ?`, `hour < ?`}
	args := []any{f.ProjectID, hourPrefix(from), hourPrefix(to)}
	if f.Status != "" {
		where, args = append(where, `status = ?`), append(args, f.Status)
	}
	if f.NotStatus != "" {
		where, args = append(where, `status <> ?`), append(args, f.NotStatus)
	}
	if f.Sentiment != "" {
		where, args = append(where, `sentiment = ?`), append(args, f.Sentiment)
	}
	return strings.Join(where, " AND "), args
}

// monitorHourCounts is MentionCountsByMonitor from mention_monitor_hours
// for the whole hours, and from the mentions for the last, unfinished one.
func (s *Store) monitorHourCounts(ctx context.Context, f MentionFilter, bounds []time.Time, count func(string, int, int)) error {
	last := bounds[len(bounds)-1]
	whole := last.Truncate(time.Hour)
	where, args := hourFilter(f, bounds[0], whole)
	err := s.eachRow(ctx, `SELECT hour, monitor_id, CAST(SUM(n) AS BIGINT) FROM mention_monitor_hours WHERE `+where+` GROUP BY hour, monitor_id`, args,
		func(scan func(...any) error) error {
			var hour, monitorID string
			var n int
			if err := scan(&hour, &monitorID, &n); err != nil {
				return err
			}
			if i := bucketOf(bounds, hour+":00:00.000Z"); i >= 0 && n != 0 {
				count(monitorID, i, n)
			}
			return nil
		})
	if err != nil || !last.After(whole) {
		return err
	}
	lastBucket := len(bounds) - 2 // whole is at or after its start
	return s.scanMonitorCounts(ctx, f, []time.Time{whole, last}, func(monitorID string, _, n int) { count(monitorID, lastBucket, n) })
}

// scanMonitorCounts is MentionCountsByMonitor from the mentions themselves.
func (s *Store) scanMonitorCounts(ctx context.Context, f MentionFilter, bounds []time.Time, count func(string, int, int)) error {
	plan := s.countPlan(ctx, f)
	first, last := &bounds[0], &bounds[len(bounds)-1]
	if !plan.ranged {
		q, args := plan.query(`SELECT m.published_at, mm.monitor_id FROM %s JOIN mention_monitors mm ON mm.mention_id = m.id WHERE %s`, first, last)
		err := s.eachRow(ctx, q, args, func(scan func(...any) error) error {
			var at, monitorID string
			if err := scan(&at, &monitorID); err != nil {
				return err
			}
			if i := bucketOf(bounds, at); i >= 0 {
				count(monitorID, i, 1)
			}
			return nil
		})
		return err
	}
	for i := 0; i+1 < len(bounds); i++ {
		q, args := plan.query(`SELECT mm.monitor_id, COUNT(*) FROM %s JOIN mention_monitors mm ON mm.mention_id = m.id WHERE %s GROUP BY mm.monitor_id`,
			&bounds[i], &bounds[i+1])
		err := s.eachRow(ctx, q, args, func(scan func(...any) error) error {
			var monitorID string
			var n int
			if err := scan(&monitorID, &n); err != nil {
				return err
			}
			count(monitorID, i, n)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// bucketOf is the bucket [bounds[i], bounds[i+1]) holding a stored
// timestamp, or -1.
func bucketOf(bounds []time.Time, at string) int {
	t, err := ParseTime(at)
	if err != nil {
		return -1
	}
	i := sort.Search(len(bounds), func(i int) bool { return bounds[i].After(t) }) - 1
	if i < 0 || i >= len(bounds)-1 {
		return -1
	}
	return i
}

// eachRow runs q on the read pool and calls fn for each row.
func (s *Store) eachRow(ctx context.Context, q string, args []any, fn func(scan func(...any) error) error) error {
	rows, err := s.rd(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// countPlan is a count's FROM and WHERE for a filter, chosen once: the
// source's choice asks the indexes how rare the filter's values are, which
// a count split into buckets must not repeat per bucket.
type countPlan struct {
	from     string
	fromArgs []any
	where    []string
	args     []any
	ranged   bool // from is a date-ordered index: buckets are ranges of it
}

func (s *Store) countPlan(ctx context.Context, f MentionFilter) *countPlan {
	p := &countPlan{}
	add := func(cond string, a ...any) {
		p.where = append(p.where, cond)
		p.args = append(p.args, a...)
	}
	p.from, p.fromArgs, p.ranged = s.countSource(ctx, f, add)
	f.conditions(s.pg, add)
	return p
}

// query fills shape's FROM (%s) and WHERE (%s), the publication window
// [since, until) added to the filter's conditions when given.
func (p *countPlan) query(shape string, since, until *time.Time) (string, []any) {
	where := append([]string(nil), p.where...)
	args := append(append([]any(nil), p.fromArgs...), p.args...)
	if since != nil {
		where = append(where, `m.published_at >= ?`)
		args = append(args, FormatTime(*since))
	}
	if until != nil {
		where = append(where, `m.published_at < ?`)
		args = append(args, FormatTime(*until))
	}
	q := strings.Replace(shape, "%s", p.from, 1)
	return strings.Replace(q, "%s", strings.Join(where, " AND "), 1), args
}

// CountMentions counts the filter's mentions up to limit (the count stops
// there, so it costs at most about as much as reading a page of limit).
func (s *Store) CountMentions(ctx context.Context, f MentionFilter, limit int) (int, error) {
	q, args := s.countPlan(ctx, f).query(`SELECT COUNT(*) FROM (SELECT 1 FROM %s WHERE %s LIMIT ?) AS c`, nil, nil)
	var n int
	err := s.rd(ctx).QueryRowContext(ctx, q, append(args, limit)...).Scan(&n)
	return n, err
}

// ExplainCount returns the backend's plan for one bucket of MentionCounts
// over the filter's Since and Until (tests).
func (s *Store) ExplainCount(ctx context.Context, f MentionFilter) (string, error) {
	q, args := s.countPlan(ctx, f).query(`SELECT COUNT(*), COUNT(CASE WHEN m.sentiment = 'negative' THEN 1 END) FROM %s WHERE %s`, nil, nil)
	return s.explain(ctx, q, args)
}

// UsageDay is a project's consumption on one UTC day.
type UsageDay struct {
	Day               string
	Mentions, Dropped int
}

// UsageDays returns the project's days from since (a UTC day, inclusive)
// that stored or dropped something, oldest first (migration 092 keeps
// them beside the period counters).
func (s *Store) UsageDays(ctx context.Context, projectID string, since time.Time) ([]UsageDay, error) {
	var out []UsageDay
	err := s.eachRow(ctx, `SELECT day, mentions, dropped FROM usage_days WHERE project_id = ? AND day >= ? ORDER BY day`,
		[]any{projectID, since.UTC().Format("2006-01-02")}, func(scan func(...any) error) error {
			var d UsageDay
			if err := scan(&d.Day, &d.Mentions, &d.Dropped); err != nil {
				return err
			}
			out = append(out, d)
			return nil
		})
	return out, err
}
