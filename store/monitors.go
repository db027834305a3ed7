package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"earshot/api"

	"github.com/google/uuid"
)

// Monitor is a keyword set watched across sources.
type Monitor struct {
	ID                  string
	ProjectID           string
	Name                string
	Keywords            []string
	ExcludeKeywords     []string
	QueryMode           string
	WatchAccounts       []string
	FeedURLs            []string
	ReviewURLs          []string
	Sources             []string
	GroupName           string
	GroupID             *string
	Active              bool
	ScanIntervalMinutes int
	BackfillHours       int
	LastScannedAt       *string
	CreatedAt           string
	UpdatedAt           string
	DeletedAt           *string
	SourceStatus        []SourceStatus
}

// HasSomethingToWatch reports whether the monitor can collect anything.
func (m *Monitor) HasSomethingToWatch() bool {
	return len(m.Keywords) > 0 || len(m.WatchAccounts) > 0 || len(m.FeedURLs) > 0 || len(m.ReviewURLs) > 0
}

const monitorCols = `id, project_id, name, keywords, exclude_keywords, query_mode, watch_accounts, feed_urls, review_urls, sources,
	group_name, group_id, active, scan_interval_minutes, backfill_hours, last_scanned_at, created_at, updated_at, deleted_at`

func scanMonitor(row interface{ Scan(...any) error }) (*Monitor, error) {
	var m Monitor
	var kw, ex, wa, fu, ru, src string
	err := row.Scan(&m.ID, &m.ProjectID, &m.Name, &kw, &ex, &m.QueryMode, &wa, &fu, &ru, &src,
		&m.GroupName, &m.GroupID, &m.Active, &m.ScanIntervalMinutes, &m.BackfillHours, &m.LastScannedAt, &m.CreatedAt, &m.UpdatedAt, &m.DeletedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	m.Keywords, m.ExcludeKeywords, m.WatchAccounts = strList(kw), strList(ex), strList(wa)
	m.FeedURLs, m.ReviewURLs, m.Sources = strList(fu), strList(ru), strList(src)
	m.SourceStatus = []SourceStatus{}
	return &m, nil
}

// CreateMonitor inserts m (ID and timestamps are set here); the first scan
// is due immediately.
func (s *Store) CreateMonitor(ctx context.Context, m *Monitor) error {
	m.ID = uuid.NewString()
	m.CreatedAt = now()
	m.UpdatedAt = m.CreatedAt
	m.SourceStatus = []SourceStatus{}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO monitors(id,project_id,name,keywords,exclude_keywords,query_mode,watch_accounts,feed_urls,review_urls,sources,
		group_name,group_id,active,scan_interval_minutes,backfill_hours,next_scan_at,created_at,updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.ID, m.ProjectID, m.Name, toJSON(m.Keywords), toJSON(m.ExcludeKeywords), m.QueryMode, toJSON(m.WatchAccounts), toJSON(m.FeedURLs),
		toJSON(m.ReviewURLs), toJSON(m.Sources), m.GroupName, m.GroupID, boolInt(m.Active), m.ScanIntervalMinutes, m.BackfillHours,
		m.CreatedAt, m.CreatedAt, m.UpdatedAt)
	return err
}

// Monitor returns a live (not deleted) monitor of the project.
func (s *Store) Monitor(ctx context.Context, projectID, id string) (*Monitor, error) {
	m, err := scanMonitor(s.rd(ctx).QueryRowContext(ctx, `SELECT `+monitorCols+` FROM monitors WHERE id = ? AND project_id = ? AND deleted_at IS NULL`, id, projectID))
	if err != nil {
		return nil, err
	}
	return m, s.attachStatus(ctx, []*Monitor{m})
}

// MonitorAny returns a monitor of the project even if deleted (mention filters).
func (s *Store) MonitorAny(ctx context.Context, projectID, id string) (*Monitor, error) {
	return scanMonitor(s.rd(ctx).QueryRowContext(ctx, `SELECT `+monitorCols+` FROM monitors WHERE id = ? AND project_id = ?`, id, projectID))
}

// ListMonitors lists a project's live monitors, oldest first.
func (s *Store) ListMonitors(ctx context.Context, projectID string) ([]*Monitor, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT `+monitorCols+` FROM monitors WHERE project_id = ? AND deleted_at IS NULL ORDER BY created_at, rowid`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Monitor{}
	for rows.Next() {
		m, err := scanMonitor(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.attachStatus(ctx, out)
}

// SaveMonitor writes every mutable field of m back (update_monitor).
// Reactivating a monitor makes its next scan due now.
func (s *Store) SaveMonitor(ctx context.Context, m *Monitor, reactivated bool) error {
	m.UpdatedAt = now()
	q := `UPDATE monitors SET name=?, keywords=?, exclude_keywords=?, query_mode=?, watch_accounts=?, feed_urls=?, review_urls=?, sources=?,
		group_name=?, group_id=?, active=?, scan_interval_minutes=?, backfill_hours=?, updated_at=?`
	args := []any{m.Name, toJSON(m.Keywords), toJSON(m.ExcludeKeywords), m.QueryMode, toJSON(m.WatchAccounts), toJSON(m.FeedURLs),
		toJSON(m.ReviewURLs), toJSON(m.Sources), m.GroupName, m.GroupID, boolInt(m.Active), m.ScanIntervalMinutes, m.BackfillHours, m.UpdatedAt}
	if reactivated {
		q += `, next_scan_at = ?`
		args = append(args, m.UpdatedAt)
	}
	q += ` WHERE id = ? AND project_id = ? AND deleted_at IS NULL`
	args = append(args, m.ID, m.ProjectID)
	return s.execOne(ctx, q, args...)
}

// DeleteMonitor stops a monitor permanently; its mentions stay.
func (s *Store) DeleteMonitor(ctx context.Context, projectID, id string) error {
	t := now()
	return s.execOne(ctx, `UPDATE monitors SET deleted_at = ?, active = 0, updated_at = ? WHERE id = ? AND project_id = ? AND deleted_at IS NULL`, t, t, id, projectID)
}

// RemoveKeyword removes keyword (compared case-insensitively, as matching
// is) from every live monitor of the project; monitors left with nothing
// to watch become inactive. It returns the affected monitors.
func (s *Store) RemoveKeyword(ctx context.Context, projectID, keyword string) ([]*Monitor, error) {
	var changed []*Monitor
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+monitorCols+` FROM monitors WHERE project_id = ? AND deleted_at IS NULL`, projectID)
		if err != nil {
			return err
		}
		var all []*Monitor
		for rows.Next() {
			m, err := scanMonitor(rows)
			if err != nil {
				rows.Close()
				return err
			}
			all = append(all, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		t := now()
		for _, m := range all {
			kept := make([]string, 0, len(m.Keywords))
			for _, k := range m.Keywords {
				if !strings.EqualFold(k, keyword) {
					kept = append(kept, k)
				}
			}
			if len(kept) == len(m.Keywords) {
				continue
			}
			m.Keywords = kept
			if !m.HasSomethingToWatch() {
				m.Active = false
			}
			m.UpdatedAt = t
			if _, err := tx.ExecContext(ctx, `UPDATE monitors SET keywords = ?, active = ?, updated_at = ? WHERE id = ?`,
				toJSON(m.Keywords), boolInt(m.Active), t, m.ID); err != nil {
				return err
			}
			changed = append(changed, m)
		}
		return nil
	})
	return changed, err
}

// SourceStatus is the health of one source of one monitor.
type SourceStatus struct {
	Source           string
	Status           string // pending, ok, degraded, not_configured, rate_limited, cap_reached, failing, stale, quota_reached
	Detail           string
	LastError        string
	FailingSince     *string
	RateLimitedUntil *string
	LastOKAt         *string
	LastPostAt       *string
	QuotaDropped     int // new posts of this source dropped over the quota this period (scan history)
	LastScan         *api.ScanSummary
}

func (s *Store) attachStatus(ctx context.Context, ms []*Monitor) error {
	if len(ms) == 0 {
		return nil
	}
	byID := make(map[string]*Monitor, len(ms))
	ids := make([]any, 0, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
		ids = append(ids, m.ID)
	}
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT monitor_id, source, status, detail, last_error, failing_since, rate_limited_until, last_ok_at, last_post_at, COALESCE(l.summary, '')
		FROM monitor_sources LEFT JOIN source_last_scan l USING (monitor_id, source) WHERE monitor_id IN (`+placeholders(len(ids))+`) ORDER BY monitor_id, source`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	got := map[string]map[string]SourceStatus{}
	for rows.Next() {
		var id string
		var st SourceStatus
		var last string
		if err := rows.Scan(&id, &st.Source, &st.Status, &st.Detail, &st.LastError, &st.FailingSince, &st.RateLimitedUntil, &st.LastOKAt, &st.LastPostAt, &last); err != nil {
			return err
		}
		st.LastScan = parseScanSummary(last).API()
		if got[id] == nil {
			got[id] = map[string]SourceStatus{}
		}
		got[id][st.Source] = st
	}
	if err := rows.Err(); err != nil {
		return err
	}
	drops, err := s.quotaDrops(ctx, ids)
	if err != nil {
		return err
	}
	for _, m := range ms {
		m.SourceStatus = make([]SourceStatus, 0, len(m.Sources))
		for _, src := range m.Sources {
			st, ok := got[m.ID][src]
			if !ok {
				st = SourceStatus{Source: src, Status: "pending"}
			}
			if d, ok := drops[m.ID+"\x00"+src]; ok {
				st.QuotaDropped = d.n
				// A source that fetches fine but whose new posts are
				// dropped is not ok: it says so until a scan stores a
				// new post again (the plan changed) or the period ends.
				if d.blocked && (st.Status == "ok" || st.Status == "stale") {
					st.Status = "quota_reached"
					st.Detail = fmt.Sprintf("%d new posts dropped this month: the project's mention quota is used up (earshot project set-plan changes the plan)", d.n)
				}
			}
			m.SourceStatus = append(m.SourceStatus, st)
		}
	}
	return nil
}

type quotaDrop struct {
	n       int
	blocked bool // the latest scan that dropped posts is newer than the latest that stored one
}

// quotaDrops sums the posts each source of the monitors dropped over the
// quota in the current period, from the scan history (kept 30 days, so on
// the 31st of a month the first day's drops are no longer counted; the
// project's exact count is in get_usage).
func (s *Store) quotaDrops(ctx context.Context, monitorIDs []any) (map[string]quotaDrop, error) {
	args := append([]any{PeriodStart(time.Now())}, monitorIDs...)
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT monitor_id, source, CAST(SUM(dropped_quota) AS BIGINT),
		MAX(CASE WHEN dropped_quota > 0 THEN started_at END), COALESCE(MAX(CASE WHEN new > 0 THEN started_at END), '')
		FROM scans WHERE started_at >= ? AND monitor_id IN (`+placeholders(len(monitorIDs))+`)
		GROUP BY monitor_id, source HAVING SUM(dropped_quota) > 0`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]quotaDrop{}
	for rows.Next() {
		var id, src, lastDrop, lastNew string
		var n int
		if err := rows.Scan(&id, &src, &n, &lastDrop, &lastNew); err != nil {
			return nil, err
		}
		out[id+"\x00"+src] = quotaDrop{n: n, blocked: lastDrop > lastNew}
	}
	return out, rows.Err()
}

func placeholders(n int) string {
	if n == 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

// KeywordGroup is a labelled pile of monitors' keywords.
type KeywordGroup struct {
	ID        string
	Name      string
	IsOwn     bool
	CreatedAt string
}

// CreateKeywordGroup inserts a group.
func (s *Store) CreateKeywordGroup(ctx context.Context, projectID, name string, isOwn bool) (*KeywordGroup, error) {
	g := &KeywordGroup{ID: uuid.NewString(), Name: name, IsOwn: isOwn, CreatedAt: now()}
	_, err := s.wr(ctx).ExecContext(ctx, `INSERT INTO keyword_groups(id,project_id,name,is_own,created_at) VALUES (?,?,?,?,?)`, g.ID, projectID, name, boolInt(isOwn), g.CreatedAt)
	return g, err
}

// KeywordGroup returns a group of the project.
func (s *Store) KeywordGroup(ctx context.Context, projectID, id string) (*KeywordGroup, error) {
	var g KeywordGroup
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT id, name, is_own, created_at FROM keyword_groups WHERE id = ? AND project_id = ?`, id, projectID).
		Scan(&g.ID, &g.Name, &g.IsOwn, &g.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &g, err
}

// ListKeywordGroups lists a project's groups, oldest first.
func (s *Store) ListKeywordGroups(ctx context.Context, projectID string) ([]*KeywordGroup, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT id, name, is_own, created_at FROM keyword_groups WHERE project_id = ? ORDER BY created_at, rowid`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*KeywordGroup{}
	for rows.Next() {
		var g KeywordGroup
		if err := rows.Scan(&g.ID, &g.Name, &g.IsOwn, &g.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, &g)
	}
	return out, rows.Err()
}

// UpdateKeywordGroup changes the set fields.
func (s *Store) UpdateKeywordGroup(ctx context.Context, projectID, id string, name *string, isOwn *bool) (*KeywordGroup, error) {
	var g KeywordGroup
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if name != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE keyword_groups SET name = ? WHERE id = ? AND project_id = ?`, *name, id, projectID); err != nil {
				return err
			}
		}
		if isOwn != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE keyword_groups SET is_own = ? WHERE id = ? AND project_id = ?`, boolInt(*isOwn), id, projectID); err != nil {
				return err
			}
		}
		err := tx.QueryRowContext(ctx, `SELECT id, name, is_own, created_at FROM keyword_groups WHERE id = ? AND project_id = ?`, id, projectID).
			Scan(&g.ID, &g.Name, &g.IsOwn, &g.CreatedAt)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// DeleteKeywordGroup deletes a group; its monitors become ungrouped.
func (s *Store) DeleteKeywordGroup(ctx context.Context, projectID, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE monitors SET group_id = NULL WHERE group_id = ? AND project_id = ?`, id, projectID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM keyword_groups WHERE id = ? AND project_id = ?`, id, projectID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// RestartCollection makes a monitor's next scan a backfill again (after its
// keywords, accounts or feeds changed): the collectors' incremental state is
// dropped, so new terms are searched over the backfill window. Stored
// mentions are deduplicated, so nothing is collected twice.
func (s *Store) RestartCollection(ctx context.Context, monitorID string) error {
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE monitor_sources SET state = '', last_ok_at = NULL WHERE monitor_id = ?`, monitorID)
	return err
}
