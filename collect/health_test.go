package collect

import (
	"errors"
	"testing"
	"time"

	"earshot/store"
)

func TestNextHealth(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	post := func(at time.Time) Post { return Post{ExternalID: at.String(), PublishedAt: at} }
	var h HealthConfig

	// First successful scan: state saved, newest post and the gap between posts learnt.
	rec, failed := nextHealth(store.SourceRecord{Status: "pending"}, scanOutcome{started: t0, window: 24 * time.Hour, state: "s1",
		posts: []Post{post(t0.Add(-3 * time.Hour)), post(t0.Add(-2 * time.Hour)), post(t0.Add(-time.Hour))}}, h)
	if failed || rec.Status != "ok" || rec.State != "s1" || !rec.LastPostAt.Equal(t0.Add(-time.Hour)) || rec.PostGap != time.Hour || rec.Scans != 1 {
		t.Fatalf("first scan: %+v", rec)
	}
	// A failure keeps the state, counts the streak, remembers since when.
	rec, failed = nextHealth(rec, scanOutcome{started: t0.Add(15 * time.Minute), err: errors.New("HTTP 500")}, h)
	if failed || rec.Status != "failing" || rec.State != "s1" || rec.ConsecutiveFailures != 1 || !rec.FailingSince.Equal(t0.Add(15*time.Minute)) {
		t.Fatalf("failure: %+v", rec)
	}
	rec, _ = nextHealth(rec, scanOutcome{started: t0.Add(30 * time.Minute), err: errors.New("HTTP 500")}, h)
	rec, failed = nextHealth(rec, scanOutcome{started: t0.Add(45 * time.Minute), err: errors.New("HTTP 502")}, h)
	if !failed || rec.ConsecutiveFailures != 3 || !rec.FailingSince.Equal(t0.Add(15*time.Minute)) || rec.LastError != "HTTP 502" {
		t.Fatalf("third failure: failed=%v %+v", failed, rec)
	}
	rec, failed = nextHealth(rec, scanOutcome{started: t0.Add(time.Hour), err: errors.New("HTTP 502")}, h)
	if failed {
		t.Fatal("fourth failure of the same streak reported again")
	}
	// Rate limited: not a failure, says until when.
	until := t0.Add(2 * time.Hour)
	rl, failed := nextHealth(rec, scanOutcome{started: t0.Add(time.Hour), rateLimited: until}, h)
	if failed || rl.Status != "rate_limited" || !rl.RateLimitedUntil.Equal(until) || rl.ConsecutiveFailures != 4 {
		t.Fatalf("rate limited: %+v", rl)
	}
	// Recovery clears the streak.
	rec, _ = nextHealth(rl, scanOutcome{started: t0.Add(3 * time.Hour), state: "s2"}, h)
	if rec.Status != "ok" || rec.ConsecutiveFailures != 0 || rec.FailingSince != nil || rec.LastError != "" || rec.RateLimitedUntil != nil || rec.State != "s2" {
		t.Fatalf("recovered: %+v", rec)
	}
	// Not configured.
	nc, _ := nextHealth(rec, scanOutcome{started: t0, notConfigured: "set EARSHOT_X_BEARER_TOKEN"}, h)
	if nc.Status != "not_configured" || nc.Detail != "set EARSHOT_X_BEARER_TOKEN" {
		t.Fatalf("not configured: %+v", nc)
	}
}

// A source that usually brings a post an hour is stale after three days
// (the minimum) without one; one that brings a post a day after ten days.
func TestNextHealthStale(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		gap       time.Duration
		quiet     time.Duration
		scans     int
		wantStale bool
	}{
		{"hourly source, 2 days quiet", time.Hour, 48 * time.Hour, 100, false},
		{"hourly source, 4 days quiet", time.Hour, 96 * time.Hour, 100, true},
		{"daily source, 4 days quiet", 24 * time.Hour, 96 * time.Hour, 100, false},
		{"daily source, 11 days quiet", 24 * time.Hour, 11 * 24 * time.Hour, 100, true},
		{"too few scans to judge", time.Hour, 96 * time.Hour, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := t0.Add(-tc.quiet)
			prev := store.SourceRecord{Status: "ok", LastPostAt: &last, PostGap: tc.gap, Scans: tc.scans, EmptyScans: 10}
			rec, _ := nextHealth(prev, scanOutcome{started: t0, posts: []Post{post(last)}}, HealthConfig{})
			if got := rec.Status == "stale"; got != tc.wantStale {
				t.Errorf("status %s (%s), want stale=%v", rec.Status, rec.Detail, tc.wantStale)
			}
			if rec.EmptyScans != 11 {
				t.Errorf("empty scans %d, want 11 (the old post is not new)", rec.EmptyScans)
			}
		})
	}
	// A new post ends staleness.
	last := t0.Add(-30 * 24 * time.Hour)
	prev := store.SourceRecord{Status: "stale", LastPostAt: &last, PostGap: time.Hour, Scans: 100, EmptyScans: 50}
	rec, _ := nextHealth(prev, scanOutcome{started: t0, posts: []Post{post(t0.Add(-time.Minute))}}, HealthConfig{})
	if rec.Status != "ok" || rec.EmptyScans != 0 {
		t.Errorf("after a new post: %+v", rec)
	}
}

func post(at time.Time) Post { return Post{ExternalID: at.String(), PublishedAt: at} }
