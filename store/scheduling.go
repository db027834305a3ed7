package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"earshot/api"

	"github.com/google/uuid"
)

// Scheduling: which monitors are due, who is scanning them, and what each
// source of each monitor remembers between scans (its incremental state and
// its health). Several processes may share one database: a monitor is
// scanned by whoever holds its lease.
//
// Work shared by several processes on one database (PostgreSQL, issue 17),
// and how long after a process dies (kill -9) another takes it over:
//
//   - Monitor scans: ClaimDueMonitors leases in a write transaction (s.tx,
//     which on PostgreSQL holds the per-schema advisory lock; the rows are
//     read FOR UPDATE SKIP LOCKED), so two schedulers never claim one
//     monitor. The lease is the scheduler's
//     Lease, 45 s by default, renewed every third of it while the scan
//     runs (RenewMonitorLease, the heartbeat); a scan whose renewal finds
//     the lease taken stops. A claimed monitor is due again at the end of
//     its lease: a dead scheduler's monitors are taken over at most 45 s
//     after its last renewal (plus the 1 s poll), and at once by a
//     scheduler that knows the holder is dead (same host, process gone:
//     MonitorLeaseOwners, ReleaseMonitorLeases; see collect.ownerDead).
//   - Webhook and alert deliveries: only a queue's head carries a lease
//     (outbox.go). ClaimRun takes it with one conditional UPDATE (pending,
//     due, lease absent or expired, still the head): on PostgreSQL the
//     second of two concurrent updates waits for the row lock and re-checks
//     its WHERE on the committed row, so exactly one wins. The worker
//     leases for 2 x its send timeout + 10 s (40 s with the default 15 s)
//     and renews it as the run goes on; a dead worker's queues are taken
//     over at most 40 s after its last renewal (plus the 100 ms poll). A
//     delivery in flight at the kill may be sent again (at least once).
//   - Fan-out (Dispatch), digests (FlushDigest), spikes (ON CONFLICT DO
//     NOTHING) and the quota ledger need no lease: each is one write
//     transaction or one conditional statement, and the second process
//     finds the work done.
//   - Idempotency answers live in the database, so they are global; a
//     request commits with its answer (idempotency.go), so one that died
//     leaves nothing, and another process's request with the key waits
//     for the running one's transaction, then replays its answer.
//   - The generic leases table (migration 001) is not used by any code.

// ClaimDueMonitors leases up to limit monitors that are due at now — active,
// not deleted, of a project that is not archived, with no live lease — to
// owner until now+lease, oldest due first. The claim is one write
// transaction, so two schedulers never get the same monitor. A claimed
// monitor's next scan is moved to the end of its lease: if the scanner dies,
// the monitor becomes due again when the lease runs out.
func (s *Store) ClaimDueMonitors(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]*Monitor, error) {
	if limit <= 0 {
		return nil, nil
	}
	ts, until := FormatTime(now), FormatTime(now.Add(lease))
	var out []*Monitor
	err := s.tx(ctx, func(tx *sql.Tx) error {
		out = nil
		// Claims are serialised by the write transaction, but on
		// PostgreSQL a monitor's other writes (a save, a nudge, a finish)
		// are not: the rows are locked as they are read, so the claim sees
		// their latest version and no change slips in between the read and
		// the lease (one being written right now is left for the next
		// round). SQLite's single writer gives the same for free.
		lock := ``
		if s.pg {
			lock = ` FOR UPDATE SKIP LOCKED`
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+monitorCols+` FROM monitors
			WHERE active = 1 AND deleted_at IS NULL AND next_scan_at <= ?
			AND (lease_until IS NULL OR lease_until <= ?)
			AND project_id IN (SELECT id FROM projects WHERE archived_at IS NULL)
			ORDER BY next_scan_at, id LIMIT ?`+lock, ts, ts, limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			m, err := scanMonitor(rows)
			if err != nil {
				rows.Close()
				return err
			}
			out = append(out, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, m := range out {
			if _, err := tx.ExecContext(ctx, `UPDATE monitors SET lease_owner = ?, lease_until = ?, next_scan_at = ? WHERE id = ?`,
				owner, until, until, m.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claiming due monitors: %w", err)
	}
	return out, nil
}

// ErrLeaseLost is returned by FinishMonitorScan when owner no longer holds
// the monitor's lease (it expired and another scheduler took it, or the
// monitor was deleted).
var ErrLeaseLost = errors.New("monitor lease lost")

// FinishMonitorScan releases owner's lease, records the scan time and makes
// the next scan due at next. A monitor nudged during the scan (NudgeMonitor,
// re-activation) keeps its earlier due time, so the change is scanned next.
func (s *Store) FinishMonitorScan(ctx context.Context, monitorID, owner string, next time.Time) error {
	t := now()
	res, err := s.wr(ctx).ExecContext(ctx, `UPDATE monitors SET
		next_scan_at = CASE WHEN next_scan_at IS NULL OR next_scan_at = lease_until OR next_scan_at > ?1 THEN ?1 ELSE next_scan_at END,
		last_scanned_at = ?2, lease_owner = NULL, lease_until = NULL
		WHERE id = ?3 AND lease_owner = ?4`, FormatTime(next), t, monitorID, owner)
	if err != nil {
		return fmt.Errorf("finishing scan of monitor %s: %w", monitorID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// RenewMonitorLease extends owner's lease on a monitor it is scanning to
// until (the scheduler's heartbeat). A monitor not nudged since its claim
// keeps its next scan at the end of the lease, so it is still due at once
// if the scanner dies. It returns ErrLeaseLost when owner no longer holds
// the lease: another scheduler claimed it after it expired, or it was
// released as a dead holder's. A lease that expired but was not taken is
// still owner's (nobody else scanned the monitor meanwhile), so it renews.
func (s *Store) RenewMonitorLease(ctx context.Context, monitorID, owner string, until time.Time) error {
	u := FormatTime(until)
	res, err := s.wr(ctx).ExecContext(ctx, `UPDATE monitors SET
		next_scan_at = CASE WHEN next_scan_at = lease_until THEN ?1 ELSE next_scan_at END, lease_until = ?1
		WHERE id = ?2 AND lease_owner = ?3`, u, monitorID, owner)
	if err != nil {
		return fmt.Errorf("renewing lease of monitor %s: %w", monitorID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// MonitorLease returns who holds the monitor's lease and until when (""
// and the zero time when nobody does).
func (s *Store) MonitorLease(ctx context.Context, monitorID string) (owner string, until time.Time, err error) {
	var o, u sql.NullString
	if err := s.rd(ctx).QueryRowContext(ctx, `SELECT lease_owner, lease_until FROM monitors WHERE id = ?`, monitorID).Scan(&o, &u); err != nil {
		return "", time.Time{}, fmt.Errorf("reading lease of monitor %s: %w", monitorID, err)
	}
	if u.Valid {
		if until, err = ParseTime(u.String); err != nil {
			return "", time.Time{}, err
		}
	}
	return o.String, until, nil
}

// MonitorLeaseOwners returns the distinct owners of monitor leases, live
// or expired, so a scheduler can release those of holders it knows are
// dead (ReleaseMonitorLeases).
func (s *Store) MonitorLeaseOwners(ctx context.Context) ([]string, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT DISTINCT lease_owner FROM monitors WHERE lease_owner IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("listing monitor lease owners: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, fmt.Errorf("listing monitor lease owners: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// ReleaseMonitorLeases frees every monitor lease of owner, a holder the
// caller knows is dead (an earlier incarnation of a restarted process), and
// makes those monitors due at now: their scans were cut short. It returns
// how many it released. One statement: on PostgreSQL a concurrent claim
// cannot see a half-released set (the rows are leased until it commits).
func (s *Store) ReleaseMonitorLeases(ctx context.Context, owner string, now time.Time) (int64, error) {
	ts := FormatTime(now)
	res, err := s.wr(ctx).ExecContext(ctx, `UPDATE monitors SET lease_owner = NULL, lease_until = NULL,
		next_scan_at = CASE WHEN next_scan_at IS NULL OR next_scan_at > ?1 THEN ?1 ELSE next_scan_at END
		WHERE lease_owner = ?2`, ts, owner)
	if err != nil {
		return 0, fmt.Errorf("releasing monitor leases of %s: %w", owner, err)
	}
	return res.RowsAffected()
}

// NudgeMonitor makes a live monitor's next scan due now (a changed monitor
// is scanned at once rather than at its next interval).
func (s *Store) NudgeMonitor(ctx context.Context, id string) error {
	_, err := s.wr(ctx).ExecContext(ctx, `UPDATE monitors SET next_scan_at = ? WHERE id = ? AND deleted_at IS NULL`, now(), id)
	return err
}

// SourceRecord is what one source of one monitor remembers between scans.
type SourceRecord struct {
	MonitorID           string
	Source              string
	State               string // the collector's opaque incremental state
	Status              string // pending, ok, degraded, not_configured, rate_limited, cap_reached, failing, stale
	Detail              string
	LastError           string
	FailingSince        *time.Time
	ConsecutiveFailures int
	RateLimitedUntil    *time.Time
	LastOKAt            *time.Time // start of the last successful fetch
	LastPostAt          *time.Time // newest publication time the source returned
	EmptyScans          int        // successful scans in a row without a newer post
	Scans               int        // fetches attempted
	PostGap             time.Duration
	LastScan            *ScanSummary // what the latest fetch read, stored and skipped; nil before one ran
}

// ScanSummary is what one scan of a source read from the platform, stored
// and skipped, with the reason of every skip ("no date", "no keyword
// match", "already stored"…): a scan that stores nothing says why.
type ScanSummary struct {
	Read    int            `json:"read"`
	Stored  int            `json:"stored"`
	Skipped map[string]int `json:"skipped,omitempty"`
	// Notes count stored posts with a caveat, e.g. "dated at collection
	// (the feed gives no date)".
	Notes map[string]int `json:"notes,omitempty"`
}

// SkippedTotal is the number of posts skipped for any reason.
func (s ScanSummary) SkippedTotal() int {
	n := 0
	for _, c := range s.Skipped {
		n += c
	}
	return n
}

// String is the one-line form the source status shows:
// "read 50, stored 0, skipped 50: no date".
func (s ScanSummary) String() string {
	out := fmt.Sprintf("read %d, stored %d", s.Read, s.Stored)
	if len(s.Notes) > 0 {
		out += " (" + countList(s.Notes, true) + ")"
	}
	total := s.SkippedTotal()
	if total == 0 {
		return out
	}
	if len(s.Skipped) == 1 {
		for r := range s.Skipped {
			return fmt.Sprintf("%s, skipped %d: %s", out, total, r)
		}
	}
	return fmt.Sprintf("%s, skipped %d: %s", out, total, countList(s.Skipped, false))
}

// countList writes reason counts most frequent first (ties by name, so the
// line is stable): "40 no date, 10 no keyword match".
func countList(m map[string]int, withCounts bool) string {
	reasons := make([]string, 0, len(m))
	for r, n := range m {
		if n > 0 {
			reasons = append(reasons, r)
		}
	}
	sort.Slice(reasons, func(i, j int) bool {
		if m[reasons[i]] != m[reasons[j]] {
			return m[reasons[i]] > m[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = r
		if withCounts || len(reasons) > 1 {
			parts[i] = fmt.Sprintf("%d %s", m[r], r)
		}
	}
	return strings.Join(parts, ", ")
}

// API is the summary as source_status shows it; nil stays nil.
func (s *ScanSummary) API() *api.ScanSummary {
	if s == nil {
		return nil
	}
	return &api.ScanSummary{Read: s.Read, Stored: s.Stored, Skipped: s.SkippedTotal(), SkipReasons: s.Skipped, Notes: s.Notes, Summary: s.String()}
}

func scanSummaryJSON(s *ScanSummary) string {
	if s == nil {
		return ""
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "" // a map of ints always marshals
	}
	return string(b)
}

func parseScanSummary(raw string) *ScanSummary {
	if raw == "" {
		return nil
	}
	var s ScanSummary
	if json.Unmarshal([]byte(raw), &s) != nil {
		return nil
	}
	return &s
}

const sourceCols = `monitor_id, source, state, status, detail, last_error, failing_since, consecutive_failures, rate_limited_until,
	last_ok_at, last_post_at, empty_scans, scans_total, post_gap_seconds`

// sourceSelect reads sourceCols and the latest scan's summary (a table of
// its own, migration 260).
const sourceSelect = `SELECT ` + sourceCols + `, COALESCE(l.summary, '') FROM monitor_sources LEFT JOIN source_last_scan l USING (monitor_id, source)`

func scanSourceRecord(row interface{ Scan(...any) error }) (SourceRecord, error) {
	var r SourceRecord
	var failing, limited, ok, post sql.NullString
	var gap float64
	var last string
	if err := row.Scan(&r.MonitorID, &r.Source, &r.State, &r.Status, &r.Detail, &r.LastError, &failing, &r.ConsecutiveFailures, &limited,
		&ok, &post, &r.EmptyScans, &r.Scans, &gap, &last); err != nil {
		return r, err
	}
	r.LastScan = parseScanSummary(last)
	var err error
	for _, f := range []struct {
		src sql.NullString
		dst **time.Time
	}{{failing, &r.FailingSince}, {limited, &r.RateLimitedUntil}, {ok, &r.LastOKAt}, {post, &r.LastPostAt}} {
		if !f.src.Valid {
			continue
		}
		t, perr := ParseTime(f.src.String)
		if perr != nil {
			err = errors.Join(err, fmt.Errorf("monitor_sources %s/%s: %w", r.MonitorID, r.Source, perr))
			continue
		}
		*f.dst = &t
	}
	r.PostGap = time.Duration(gap * float64(time.Second))
	return r, err
}

// SourceState returns what the source of the monitor remembers; a source
// never scanned has an empty record with status pending.
func (s *Store) SourceState(ctx context.Context, monitorID, source string) (SourceRecord, error) {
	r, err := scanSourceRecord(s.rd(ctx).QueryRowContext(ctx, sourceSelect+` WHERE monitor_id = ? AND source = ?`, monitorID, source))
	if errors.Is(err, sql.ErrNoRows) {
		return SourceRecord{MonitorID: monitorID, Source: source, Status: "pending"}, nil
	}
	return r, err
}

// SourceStates returns the records of every scanned source of a monitor.
func (s *Store) SourceStates(ctx context.Context, monitorID string) (map[string]SourceRecord, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, sourceSelect+` WHERE monitor_id = ?`, monitorID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]SourceRecord{}
	for rows.Next() {
		r, err := scanSourceRecord(rows)
		if err != nil {
			return nil, err
		}
		out[r.Source] = r
	}
	return out, rows.Err()
}

// ScanRecord is one fetch of one source for one monitor (the scans table).
type ScanRecord struct {
	ID           string
	MonitorID    string
	Source       string
	StartedAt    time.Time
	FinishedAt   time.Time
	Fetched      int
	Matched      int
	New          int
	Duplicates   int
	DroppedQuota int
	Error        string
	Read         int            // posts the platform returned, before any skip
	Skipped      map[string]int // reason -> posts not stored for it
}

// SaveSourceResult writes a source's record after a scan and, when scan is
// not nil, the scan's row; ev (e.g. monitor.scan_failed), when not nil, is
// recorded in the same transaction.
func (s *Store) SaveSourceResult(ctx context.Context, rec SourceRecord, scan *ScanRecord, ev *Event) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO monitor_sources(`+sourceCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(monitor_id, source) DO UPDATE SET state = excluded.state, status = excluded.status, detail = excluded.detail,
			last_error = excluded.last_error, failing_since = excluded.failing_since, consecutive_failures = excluded.consecutive_failures,
			rate_limited_until = excluded.rate_limited_until, last_ok_at = excluded.last_ok_at, last_post_at = excluded.last_post_at,
			empty_scans = excluded.empty_scans, scans_total = excluded.scans_total, post_gap_seconds = excluded.post_gap_seconds`,
			rec.MonitorID, rec.Source, rec.State, rec.Status, rec.Detail, rec.LastError, nullTime(rec.FailingSince), rec.ConsecutiveFailures,
			nullTime(rec.RateLimitedUntil), nullTime(rec.LastOKAt), nullTime(rec.LastPostAt), rec.EmptyScans, rec.Scans, rec.PostGap.Seconds())
		if err != nil {
			return fmt.Errorf("saving source %s of monitor %s: %w", rec.Source, rec.MonitorID, err)
		}
		if rec.LastScan != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO source_last_scan(monitor_id, source, summary) VALUES (?,?,?)
				ON CONFLICT(monitor_id, source) DO UPDATE SET summary = excluded.summary`, rec.MonitorID, rec.Source, scanSummaryJSON(rec.LastScan)); err != nil {
				return fmt.Errorf("saving the last scan of source %s of monitor %s: %w", rec.Source, rec.MonitorID, err)
			}
		}
		if scan != nil {
			if scan.ID == "" {
				scan.ID = uuid.NewString()
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO scans(id, monitor_id, source, started_at, finished_at, fetched, matched, new, duplicates, dropped_quota, error)
				VALUES (?,?,?,?,?,?,?,?,?,?,?)`, scan.ID, scan.MonitorID, scan.Source, FormatTime(scan.StartedAt), nullTime(&scan.FinishedAt),
				scan.Fetched, scan.Matched, scan.New, scan.Duplicates, scan.DroppedQuota, scan.Error); err != nil {
				return fmt.Errorf("recording scan: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO scan_counts(scan_id, posts_read, skipped) VALUES (?,?,?)`,
				scan.ID, scan.Read, skippedJSON(scan.Skipped)); err != nil {
				return fmt.Errorf("recording scan counts: %w", err)
			}
		}
		if ev != nil {
			return insertEvent(ctx, tx, ev)
		}
		return nil
	})
}

func skippedJSON(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}

// RecentScans lists a monitor's latest scans, newest first.
func (s *Store) RecentScans(ctx context.Context, monitorID string, limit int) ([]ScanRecord, error) {
	rows, err := s.rd(ctx).QueryContext(ctx, `SELECT id, monitor_id, source, started_at, COALESCE(finished_at, started_at), fetched, matched, new, duplicates, dropped_quota, error,
		COALESCE(c.posts_read, 0), COALESCE(c.skipped, '') FROM scans LEFT JOIN scan_counts c ON c.scan_id = scans.id WHERE monitor_id = ? ORDER BY started_at DESC, id DESC LIMIT ?`, monitorID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ScanRecord
	for rows.Next() {
		var r ScanRecord
		var started, finished, skipped string
		if err := rows.Scan(&r.ID, &r.MonitorID, &r.Source, &started, &finished, &r.Fetched, &r.Matched, &r.New, &r.Duplicates, &r.DroppedQuota, &r.Error,
			&r.Read, &skipped); err != nil {
			return nil, err
		}
		if skipped != "" {
			if err := json.Unmarshal([]byte(skipped), &r.Skipped); err != nil {
				return nil, fmt.Errorf("scan %s: skipped: %w", r.ID, err)
			}
		}
		if r.StartedAt, err = ParseTime(started); err != nil {
			return nil, err
		}
		if r.FinishedAt, err = ParseTime(finished); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PruneScans deletes scan rows started before before; the scans table is a
// recent history, not an archive.
func (s *Store) PruneScans(ctx context.Context, before time.Time) (int64, error) {
	// scan_counts rows go with their scans (ON DELETE CASCADE), deleted
	// first all the same so no backend's foreign-key setting matters.
	if _, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM scan_counts WHERE scan_id IN (SELECT id FROM scans WHERE started_at < ?)`, FormatTime(before)); err != nil {
		return 0, err
	}
	res, err := s.wr(ctx).ExecContext(ctx, `DELETE FROM scans WHERE started_at < ?`, FormatTime(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// QuotaLedger is the database-backed daily budget of metered platform APIs
// (it satisfies collect.QuotaLedger): restarts and several processes share
// one count.
type QuotaLedger struct{ s *Store }

// QuotaLedger returns the store's ledger.
func (s *Store) QuotaLedger() *QuotaLedger { return &QuotaLedger{s: s} }

// Spend adds units to (source, day) and reports true when the total stays
// within limit; when it would not, nothing is recorded and it reports false.
// One statement on the single writer, so concurrent spenders never overdraw.
func (l *QuotaLedger) Spend(ctx context.Context, source, day string, units, limit int) (bool, error) {
	if units > limit {
		return false, nil
	}
	res, err := l.s.wr(ctx).ExecContext(ctx, `INSERT INTO quota_ledger(source, day, units) VALUES (?1, ?2, ?3)
		ON CONFLICT(source, day) DO UPDATE SET units = quota_ledger.units + excluded.units WHERE quota_ledger.units + excluded.units <= ?4`,
		source, day, units, limit)
	if err != nil {
		return false, fmt.Errorf("spending %s quota: %w", source, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Spent returns the units recorded for source on day.
func (l *QuotaLedger) Spent(ctx context.Context, source, day string) (int, error) {
	var n int
	err := l.s.rd(ctx).QueryRowContext(ctx, `SELECT units FROM quota_ledger WHERE source = ? AND day = ?`, source, day).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// RefreshEngagement replaces the counters of mentions the project holds
// (source, external id -> counters): posts stored without them (YouTube
// when videos.list was refused) get them on a later scan. Ids the project
// does not hold are ignored.
func (s *Store) RefreshEngagement(ctx context.Context, projectID, source string, eng map[string]map[string]int64) error {
	if len(eng) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		for ext, e := range eng {
			if _, err := tx.ExecContext(ctx, `UPDATE mentions SET engagement = ? WHERE project_id = ? AND source = ? AND external_id = ?`,
				toJSON(e), projectID, source, ext); err != nil {
				return fmt.Errorf("refreshing counters of %s %s: %w", source, ext, err)
			}
		}
		return nil
	})
}

// KnownMentionMonitors returns, for those of ids already stored for
// (project, source), the monitors their mention lists; a pipeline skips a
// post its monitor already has and only links the others.
func (s *Store) KnownMentionMonitors(ctx context.Context, projectID, source string, ids []string) (map[string][]string, error) {
	known, err := s.knownMentions(ctx, s.rd(ctx), projectID, source, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(known))
	for ext, k := range known {
		out[ext] = k.monitorIDs
	}
	return out, nil
}
