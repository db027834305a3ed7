package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// PeriodStart is the first day (UTC) of the monthly quota period holding t.
func PeriodStart(t time.Time) string {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

// UsagePeriod is one project's consumption in one period.
type UsagePeriod struct {
	PeriodStart     string
	MentionsUsed    int
	Dropped         int
	ProviderCostUSD float64
	QuotaNotified   bool
}

// Usage returns the project's consumption in the period starting periodStart.
func (s *Store) Usage(ctx context.Context, projectID, periodStart string) (*UsagePeriod, error) {
	u := &UsagePeriod{PeriodStart: periodStart}
	err := s.rd(ctx).QueryRowContext(ctx, `SELECT mentions_used, dropped, provider_cost_usd, quota_notified FROM usage_periods WHERE project_id = ? AND period_start = ?`,
		projectID, periodStart).Scan(&u.MentionsUsed, &u.Dropped, &u.ProviderCostUSD, &u.QuotaNotified)
	if errors.Is(err, sql.ErrNoRows) {
		return u, nil
	}
	return u, err
}

func addUsage(ctx context.Context, tx *sql.Tx, projectID, periodStart string, used, dropped int, cost float64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO usage_periods(project_id, period_start, mentions_used, dropped, provider_cost_usd) VALUES (?,?,?,?,?)
		ON CONFLICT(project_id, period_start) DO UPDATE SET mentions_used = usage_periods.mentions_used + excluded.mentions_used,
		dropped = usage_periods.dropped + excluded.dropped, provider_cost_usd = usage_periods.provider_cost_usd + excluded.provider_cost_usd`,
		projectID, periodStart, used, dropped, cost)
	return err
}

// AddUsage records consumption outside an ingest batch (tests, admin).
func (s *Store) AddUsage(ctx context.Context, projectID string, at time.Time, used, dropped int, cost float64) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return addUsage(ctx, tx, projectID, PeriodStart(at), used, dropped, cost) })
}
