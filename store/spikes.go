package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Spikes: the detector (package spike) judges each monitor's and keyword
// group's hourly count of relevant mentions (and of the negative ones)
// against its own history. This file keeps those hourly counts, records the
// spikes found, with a spike.detected event, and serves list_spikes and
// get_spike.

// Spike scopes.
const (
	ScopeMonitor = "monitor"
	ScopeGroup   = "keyword_group"
)

// Spike is a burst of one scope's mentions in one UTC hour, as stored;
// its public record is api.Spike (Record).
type Spike struct {
	ID             string
	Scope          string
	MonitorID      *string
	KeywordGroupID *string
	Kind           string
	BucketStart    string
	BucketEnd      string
	Count          int
	Baseline       float64
	Score          float64
	Threshold      int
	DetectedAt     string
	UpdatedAt      string
	// MonitorIDs are the monitors whose mentions make up the spike: the
	// monitor, or the group's monitors. Each, with the window, is a
	// list_mentions filter.
	MonitorIDs []string
	// MentionsQuery is the list_mentions query that lists the mentions
	// behind a monitor spike; null for a keyword group (list_mentions
	// filters one monitor; get_spike returns the group's mentions).
	MentionsQuery *SpikeMentionsQuery
	MentionsPath  *string

	projectID string
}

// SpikeMentionsQuery is the list_mentions query of a monitor spike.
type SpikeMentionsQuery struct {
	MonitorID  string
	Since      string
	Until      string
	IsRelevant bool
	Sentiment  string
}

const spikeCols = `id, project_id, scope, scope_id, kind, bucket_start, bucket_end, count, baseline, score, detected_at, updated_at, threshold`

func scanSpike(row interface{ Scan(...any) error }) (*Spike, error) {
	var sp Spike
	var scopeID string
	if err := row.Scan(&sp.ID, &sp.projectID, &sp.Scope, &scopeID, &sp.Kind, &sp.BucketStart, &sp.BucketEnd, &sp.Count, &sp.Baseline, &sp.Score,
		&sp.DetectedAt, &sp.UpdatedAt, &sp.Threshold); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	id := scopeID
	if sp.Scope == ScopeMonitor {
		sp.MonitorID = &id
	} else {
		sp.KeywordGroupID = &id
	}
	return &sp, nil
}

// scopeID is the monitor or group id.
func (sp *Spike) scopeID() string {
	if sp.MonitorID != nil {
		return *sp.MonitorID
	}
	return *sp.KeywordGroupID
}

// complete fills the derived fields: the monitors and the mentions query.
func (s *Store) completeSpike(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, sp *Spike) error {
	sp.MonitorIDs = []string{}
	if sp.Scope == ScopeMonitor {
		sp.MonitorIDs = append(sp.MonitorIDs, *sp.MonitorID)
		v := url.Values{"monitor_id": {*sp.MonitorID}, "since": {sp.BucketStart}, "until": {sp.BucketEnd}, "is_relevant": {"true"}}
		if sp.Kind == "negative" {
			v.Set("sentiment", "negative")
		}
		sp.MentionsQuery = &SpikeMentionsQuery{MonitorID: *sp.MonitorID, Since: sp.BucketStart, Until: sp.BucketEnd, IsRelevant: true, Sentiment: v.Get("sentiment")}
		p := "/api/v1/mentions?" + v.Encode()
		sp.MentionsPath = &p
		return nil
	}
	rows, err := q.QueryContext(ctx, `SELECT id FROM monitors WHERE project_id = ? AND group_id = ? ORDER BY created_at, id`, sp.projectID, *sp.KeywordGroupID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		sp.MonitorIDs = append(sp.MonitorIDs, id)
	}
	return rows.Err()
}

// SpikeScope is what a series of counts belongs to.
type SpikeScope struct {
	Scope string // ScopeMonitor or ScopeGroup
	ID    string
}

// HourCount is one hour of one scope.
type HourCount struct {
	Total    int // relevant mentions
	Negative int // of which negative
}

// hourKey is the stored form of the hour containing t.
func hourKey(t time.Time) string { return FormatTime(t.UTC().Truncate(time.Hour)) }

// spikeOverlap re-reads mentions collected this long before the watermark:
// a mention's collected_at is stamped inside its ingest transaction, so one
// in flight when the watermark was taken becomes visible after it, with an
// older stamp. Transactions last well under a second.
const spikeOverlap = 30 * time.Second

// RefreshSpikeCounts brings a project's hourly counts up to date at now for
// the hours since from. The first time (or when from moved before what
// was counted) every hour since from is counted; afterwards only the hours
// that received mentions collected since the last refresh, plus the
// current and the previous hour (a mention reclassified meanwhile), so the
// cost follows the ingest rate, not the history. Hours before from are
// dropped. It reports whether it counted everything.
func (s *Store) RefreshSpikeCounts(ctx context.Context, projectID string, from, now time.Time) (full bool, err error) {
	from, now = from.UTC().Truncate(time.Hour), now.UTC()
	end := now.Truncate(time.Hour).Add(time.Hour)
	var countedFrom, watermark string
	err = s.rd(ctx).QueryRowContext(ctx, `SELECT counted_from, watermark FROM spike_state WHERE project_id = ?`, projectID).Scan(&countedFrom, &watermark)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		full = true
	case err != nil:
		return false, fmt.Errorf("spike state: %w", err)
	default:
		full = countedFrom > FormatTime(from)
	}
	var hours []time.Time // starts of the hours to count again
	if full {
		for h := from; h.Before(end); h = h.Add(time.Hour) {
			hours = append(hours, h)
		}
	} else {
		wm, err := ParseTime(watermark)
		if err != nil {
			return false, fmt.Errorf("spike watermark: %w", err)
		}
		set := map[time.Time]bool{end.Add(-time.Hour): true, end.Add(-2 * time.Hour): true}
		rows, err := s.rd(ctx).QueryContext(ctx, `SELECT DISTINCT substr(published_at, 1, 13) FROM `+s.indexed("mentions", "", "mentions_collected")+`
			WHERE project_id = ? AND collected_at >= ?`, projectID, FormatTime(wm.Add(-spikeOverlap)))
		if err != nil {
			return false, fmt.Errorf("spike dirty hours: %w", err)
		}
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				rows.Close()
				return false, fmt.Errorf("spike dirty hours: %w", err)
			}
			t, err := time.Parse("2006-01-02T15", h)
			if err == nil && !t.Before(from) && t.Before(end) {
				set[t] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return false, fmt.Errorf("spike dirty hours: %w", err)
		}
		for h := range set {
			if !h.Before(from) {
				hours = append(hours, h)
			}
		}
		sort.Slice(hours, func(i, j int) bool { return hours[i].Before(hours[j]) })
	}
	// Count contiguous runs of hours, one read each, then write them all.
	type key struct {
		scope SpikeScope
		hour  string
	}
	counts := map[key]*HourCount{}
	var ranges [][2]time.Time
	for i := 0; i < len(hours); {
		j := i
		for j+1 < len(hours) && hours[j+1].Equal(hours[j].Add(time.Hour)) {
			j++
		}
		ranges = append(ranges, [2]time.Time{hours[i], hours[j].Add(time.Hour)})
		i = j + 1
	}
	// Each monitor's group, read once (a lookup per row would double the
	// cost of a count).
	groupOf := map[string]string{}
	if len(ranges) > 0 {
		rows, err := s.rd(ctx).QueryContext(ctx, `SELECT id, group_id FROM monitors WHERE project_id = ? AND group_id IS NOT NULL`, projectID)
		if err != nil {
			return false, fmt.Errorf("spike counts: %w", err)
		}
		for rows.Next() {
			var id, g string
			if err := rows.Scan(&id, &g); err != nil {
				rows.Close()
				return false, fmt.Errorf("spike counts: %w", err)
			}
			groupOf[id] = g
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return false, fmt.Errorf("spike counts: %w", err)
		}
	}
	for _, r := range ranges {
		// The mentions of the window in date order (the feed index covers
		// relevance and sentiment), each with its monitors. A mention
		// counts once per group however many of the group's monitors
		// matched it; its links are consecutive rows.
		// SQLite's pinned plan (the feed index, then the links) keeps a
		// mention's rows together; PostgreSQL promises no order without
		// ORDER BY.
		order := ``
		if s.pg {
			order = ` ORDER BY m.id`
		}
		rows, err := s.rd(ctx).QueryContext(ctx, `SELECT substr(m.published_at, 1, 13), m.id, m.sentiment = 'negative', mm.monitor_id
			FROM `+s.indexed("mentions", "m", "mentions_feed")+`
			JOIN mention_monitors mm ON mm.mention_id = m.id
			WHERE m.project_id = ? AND m.published_at >= ? AND m.published_at < ? AND m.is_relevant = 1`+order,
			projectID, FormatTime(r[0]), FormatTime(r[1]))
		if err != nil {
			return false, fmt.Errorf("spike counts: %w", err)
		}
		last := ""
		groups := map[string]bool{}
		for rows.Next() {
			var h, id, monitorID string
			var neg bool
			if err := rows.Scan(&h, &id, &neg, &monitorID); err != nil {
				rows.Close()
				return false, fmt.Errorf("spike counts: %w", err)
			}
			h += ":00:00.000Z"
			if id != last {
				last = id
				clear(groups)
			}
			add := func(sc SpikeScope) {
				k := key{sc, h}
				c := counts[k]
				if c == nil {
					c = &HourCount{}
					counts[k] = c
				}
				c.Total++
				if neg {
					c.Negative++
				}
			}
			add(SpikeScope{ScopeMonitor, monitorID})
			if g := groupOf[monitorID]; g != "" && !groups[g] {
				groups[g] = true
				add(SpikeScope{ScopeGroup, g})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return false, fmt.Errorf("spike counts: %w", err)
		}
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		for _, r := range ranges {
			if _, err := tx.ExecContext(ctx, `DELETE FROM spike_counts WHERE project_id = ? AND hour >= ? AND hour < ?`,
				projectID, FormatTime(r[0]), FormatTime(r[1])); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM spike_counts WHERE project_id = ? AND hour < ?`, projectID, FormatTime(from)); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO spike_counts(project_id, scope, scope_id, hour, total, negative) VALUES (?,?,?,?,?,?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for k, c := range counts {
			if _, err := ins.ExecContext(ctx, projectID, k.scope.Scope, k.scope.ID, k.hour, c.Total, c.Negative); err != nil {
				return err
			}
		}
		cf := FormatTime(from) // hours before it were just dropped
		_, err = tx.ExecContext(ctx, `INSERT INTO spike_state(project_id, counted_from, watermark, updated_at) VALUES (?,?,?,?)
			ON CONFLICT(project_id) DO UPDATE SET counted_from = excluded.counted_from, watermark = excluded.watermark, updated_at = excluded.updated_at`,
			projectID, cf, FormatTime(now), FormatTime(now))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store spike counts: %w", err)
	}
	return full, nil
}

// SpikeSeries is the hourly counts of one live scope.
type SpikeSeries struct {
	SpikeScope
	Hours map[string]HourCount // by hour start (store.TimeFormat)
	First string               // the hour it is observed from (see SpikeCounts)
}

// SpikeCounts returns the stored hourly counts of the project's live scopes
// (monitors not deleted, keyword groups that exist) in [from, to).
func (s *Store) SpikeCounts(ctx context.Context, projectID string, from, to time.Time) ([]*SpikeSeries, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT c.scope, c.scope_id, c.hour, c.total, c.negative FROM spike_counts c
		WHERE c.project_id = ? AND c.hour >= ? AND c.hour < ? AND (
			(c.scope = 'monitor' AND EXISTS (SELECT 1 FROM monitors mo WHERE mo.id = c.scope_id AND mo.deleted_at IS NULL))
			OR (c.scope = 'keyword_group' AND EXISTS (SELECT 1 FROM keyword_groups g WHERE g.id = c.scope_id)))
		ORDER BY c.scope, c.scope_id, c.hour`, projectID, FormatTime(from), FormatTime(to))
	if err != nil {
		return nil, fmt.Errorf("spike series: %w", err)
	}
	defer rows.Close()
	var out []*SpikeSeries
	var cur *SpikeSeries
	for rows.Next() {
		var sc SpikeScope
		var h string
		var c HourCount
		if err := rows.Scan(&sc.Scope, &sc.ID, &h, &c.Total, &c.Negative); err != nil {
			return nil, fmt.Errorf("spike series: %w", err)
		}
		if cur == nil || cur.SpikeScope != sc {
			cur = &SpikeSeries{SpikeScope: sc, Hours: map[string]HourCount{}, First: h}
			out = append(out, cur)
		}
		cur.Hours[h] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("spike series: %w", err)
	}
	rows.Close()
	// A scope is observed from its earliest mention or, if earlier, from
	// when its monitor began to look (created minus its backfill): a
	// monitor that stayed silent for days has a history of zeros.
	since := map[SpikeScope]string{}
	mrows, err := s.rd(ctx).QueryContext(ctx, `SELECT id, group_id, created_at, backfill_hours FROM monitors WHERE project_id = ? AND deleted_at IS NULL`, projectID)
	if err != nil {
		return nil, fmt.Errorf("spike series: %w", err)
	}
	defer mrows.Close()
	for mrows.Next() {
		var id, created string
		var group sql.NullString
		var backfill int
		if err := mrows.Scan(&id, &group, &created, &backfill); err != nil {
			return nil, fmt.Errorf("spike series: %w", err)
		}
		t, err := ParseTime(created)
		if err != nil {
			continue
		}
		h := hourKey(t.Add(-time.Duration(backfill) * time.Hour))
		since[SpikeScope{ScopeMonitor, id}] = h
		if g := (SpikeScope{ScopeGroup, group.String}); group.Valid && (since[g] == "" || h < since[g]) {
			since[g] = h
		}
	}
	if err := mrows.Err(); err != nil {
		return nil, fmt.Errorf("spike series: %w", err)
	}
	for _, sr := range out {
		if h := since[sr.SpikeScope]; h != "" && h < sr.First {
			sr.First = h
		}
	}
	return out, nil
}

// SpikeFinding is a spike the detector found.
type SpikeFinding struct {
	SpikeScope
	Kind        string // volume or negative
	BucketStart time.Time
	Count       int
	Baseline    float64
	Score       float64
	Threshold   int
	// Announce: a new record fires spike.detected. Spikes found in old
	// history (the first count of a project) are recorded quietly.
	Announce bool
}

// RecordSpikes stores findings: a new (scope, kind, hour) becomes a spike
// record, with a spike.detected event in the same transaction when
// announced; a known one has its count, baseline and score brought up to
// date (no second event). It returns the new records.
func (s *Store) RecordSpikes(ctx context.Context, projectID string, fs []SpikeFinding) ([]*Spike, error) {
	if len(fs) == 0 {
		return nil, nil
	}
	var created []*Spike
	err := s.tx(ctx, func(tx *sql.Tx) error {
		created = created[:0]
		t := now()
		for _, f := range fs {
			start := FormatTime(f.BucketStart.UTC().Truncate(time.Hour))
			res, err := tx.ExecContext(ctx, `UPDATE spikes SET count = ?, baseline = ?, score = ?, threshold = ?, updated_at = ?
				WHERE project_id = ? AND scope = ? AND scope_id = ? AND kind = ? AND bucket_start = ?
				AND (count <> ? OR baseline <> ? OR score <> ? OR threshold <> ?)`,
				f.Count, f.Baseline, f.Score, f.Threshold, t, projectID, f.Scope, f.ID, f.Kind, start, f.Count, f.Baseline, f.Score, f.Threshold)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				continue
			}
			id := uuid.Must(uuid.NewV7()).String()
			res, err = tx.ExecContext(ctx, `INSERT INTO spikes(`+spikeCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
				ON CONFLICT(project_id, scope, scope_id, kind, bucket_start) DO NOTHING`,
				id, projectID, f.Scope, f.ID, f.Kind, start, FormatTime(f.BucketStart.UTC().Truncate(time.Hour).Add(time.Hour)),
				f.Count, f.Baseline, f.Score, t, t, f.Threshold)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue // known and unchanged
			}
			sp, err := scanSpike(tx.QueryRowContext(ctx, `SELECT `+spikeCols+` FROM spikes WHERE id = ?`, id))
			if err != nil {
				return err
			}
			if err := s.completeSpike(ctx, tx, sp); err != nil {
				return err
			}
			created = append(created, sp)
			if !f.Announce {
				continue
			}
			ev, err := NewEvent(projectID, "spike.detected", map[string]any{"spike": sp.Record()})
			if err != nil {
				return err
			}
			if err := insertEvent(ctx, tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record spikes: %w", err)
	}
	return created, nil
}

// SpikeFilter selects spikes (list_spikes).
type SpikeFilter struct {
	ProjectID      string
	MonitorID      string
	KeywordGroupID string
	Kind           string
	Since, Until   *time.Time // bucket overlaps [Since, Until)
}

// ListSpikes returns up to limit spikes after pos, newest hour first.
func (s *Store) ListSpikes(ctx context.Context, f SpikeFilter, after *Position, limit int) ([]*Spike, error) {
	var where []string
	args := []any{f.ProjectID}
	where = append(where, "project_id = ?")
	if f.MonitorID != "" {
		where = append(where, "scope = 'monitor' AND scope_id = ?")
		args = append(args, f.MonitorID)
	}
	if f.KeywordGroupID != "" {
		where = append(where, "scope = 'keyword_group' AND scope_id = ?")
		args = append(args, f.KeywordGroupID)
	}
	if f.Kind != "" {
		where = append(where, "kind = ?")
		args = append(args, f.Kind)
	}
	if f.Since != nil {
		// An hour that ends after since overlaps the window; hours start
		// on the hour, so that is bucket_start > since - 1h.
		where = append(where, "bucket_start > ?")
		args = append(args, FormatTime(f.Since.Add(-time.Hour)))
	}
	if f.Until != nil {
		where = append(where, "bucket_start < ?")
		args = append(args, FormatTime(*f.Until))
	}
	if after != nil {
		where = append(where, "(bucket_start < ? OR (bucket_start = ? AND id < ?))")
		args = append(args, after.At, after.At, after.ID)
	}
	args = append(args, limit)
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+spikeCols+` FROM `+s.indexed("spikes", "", "spikes_feed")+` WHERE `+strings.Join(where, " AND ")+`
		ORDER BY bucket_start DESC, id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("list spikes: %w", err)
	}
	out := []*Spike{}
	for rows.Next() {
		sp, err := scanSpike(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("list spikes: %w", err)
		}
		out = append(out, sp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list spikes: %w", err)
	}
	for _, sp := range out {
		if err := s.completeSpike(ctx, s.rd(ctx), sp); err != nil {
			return nil, fmt.Errorf("list spikes: %w", err)
		}
	}
	return out, nil
}

// GetSpike returns one spike of the project.
func (s *Store) GetSpike(ctx context.Context, projectID, id string) (*Spike, error) {
	sp, err := scanSpike(s.rd(ctx).QueryRowContext(ctx, `SELECT `+spikeCols+` FROM spikes WHERE id = ? AND project_id = ?`, id, projectID))
	if err != nil {
		return nil, err
	}
	if err := s.completeSpike(ctx, s.rd(ctx), sp); err != nil {
		return nil, fmt.Errorf("get spike: %w", err)
	}
	return sp, nil
}

// SpikeMentions returns up to limit of the mentions behind a spike (its
// scope's relevant mentions of its kind in its hour), most urgent first.
func (s *Store) SpikeMentions(ctx context.Context, sp *Spike, limit int) ([]*Mention, error) {
	scope := `mm.monitor_id = ?`
	if sp.Scope == ScopeGroup {
		scope = `mm.monitor_id IN (SELECT id FROM monitors WHERE group_id = ?)`
	}
	neg := ""
	if sp.Kind == "negative" {
		neg = ` AND m.sentiment = 'negative'`
	}
	return s.queryMentions(ctx, `SELECT `+mentionCols+` FROM mentions m WHERE m.id IN (
			SELECT m.id FROM `+s.indexed("mentions", "m", "mentions_feed")+` JOIN mention_monitors mm ON mm.mention_id = m.id
			WHERE m.project_id = ? AND m.published_at >= ? AND m.published_at < ? AND m.is_relevant = 1`+neg+` AND `+scope+`)
		ORDER BY m.urgency DESC, m.published_at DESC, m.id DESC LIMIT ?`,
		sp.projectID, sp.BucketStart, sp.BucketEnd, sp.scopeID(), limit)
}

// SpikeProjects lists the projects the detector looks at: not archived,
// with at least one monitor that is not deleted.
func (s *Store) SpikeProjects(ctx context.Context) ([]string, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT p.id FROM projects p WHERE p.archived_at IS NULL
		AND EXISTS (SELECT 1 FROM monitors mo WHERE mo.project_id = p.id AND mo.deleted_at IS NULL) ORDER BY p.id`)
	if err != nil {
		return nil, fmt.Errorf("spike projects: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("spike projects: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
