package collect

import (
	"fmt"
	"time"

	"earshot/store"
)

// Source health: after every scan of a source, its record moves to one of ok,
// not_configured, rate_limited, cap_reached, failing, degraded or stale (list_monitors shows it,
// docs/decisions.md#monitors). The rules live here, apart from the scheduler's
// plumbing, so they can be read and tested as one function.

// HealthConfig holds the thresholds of the health rules; zero values take
// the defaults.
type HealthConfig struct {
	// FailureThreshold is how many failed scans in a row emit
	// monitor.scan_failed (once per failing streak). Default 3.
	FailureThreshold int
	// StaleFactor, StaleMin and StaleAfterScans: a source is stale when it
	// has brought no newer post for StaleFactor times its usual gap between
	// posts, and at least StaleMin, after at least StaleAfterScans scans.
	// Defaults 10, 72h, 5.
	StaleFactor     float64
	StaleMin        time.Duration
	StaleAfterScans int
}

func (h HealthConfig) withDefaults() HealthConfig {
	if h.FailureThreshold <= 0 {
		h.FailureThreshold = 3
	}
	if h.StaleFactor <= 0 {
		h.StaleFactor = 10
	}
	if h.StaleMin <= 0 {
		h.StaleMin = 72 * time.Hour
	}
	if h.StaleAfterScans <= 0 {
		h.StaleAfterScans = 5
	}
	return h
}

// scanOutcome is what happened when one source of one monitor was scanned.
type scanOutcome struct {
	started       time.Time
	window        time.Duration // how far back the fetch looked (now - Query.Since)
	notConfigured string        // the missing setting or input; the fetch did not run
	rateLimited   time.Time     // the platform said to come back then
	err           error         // the fetch (or storing what it returned) failed
	state         string        // Batch.State of a successful fetch
	posts         []Post        // what the fetch returned; none when it failed, the completed units' on a PartialError
	capped        *CapReachedError
	summary       *store.ScanSummary // what the fetch read, stored and skipped; nil when it did not run
	defects       int                // posts skipped because the collector or pipeline could not use them (no date, no id)
}

// Skip reasons the pipeline adds to the collector's (Batch.Skipped).
const (
	SkipNoMatch  = "no keyword match"
	SkipNoID     = "no id"
	SkipRepeated = "repeated in the response"
	SkipKnown    = "already stored"
	SkipQuota    = "over the mention quota"
)

// summarize is the scan's summary: what the platform returned (posts the
// collector kept plus those it skipped), what was stored, and why the
// rest was not.
func summarize(b Batch, c ScanCounts) (*store.ScanSummary, int) {
	sum := &store.ScanSummary{Read: len(b.Posts) + b.Skipped.Total(), Stored: c.New, Skipped: map[string]int{}}
	for r, n := range b.Skipped {
		sum.Skipped[r] += n
	}
	for r, n := range map[string]int{SkipNoMatch: c.NoMatch, SkipNoID: c.NoID, SkipRepeated: c.Repeated, SkipKnown: c.Duplicates, SkipQuota: c.DroppedQuota} {
		if n > 0 {
			sum.Skipped[r] += n
		}
	}
	if len(sum.Skipped) == 0 {
		sum.Skipped = nil
	}
	for _, p := range b.Posts {
		if p.Note != "" {
			if sum.Notes == nil {
				sum.Notes = map[string]int{}
			}
			sum.Notes[p.Note]++
		}
	}
	return sum, b.Skipped.Total() + c.NoID
}

// degraded: the platform answered with posts and none could be stored
// because of what they lacked (no date, no id): the silent zero this
// status exists for. Posts already stored, or that do not match the
// monitor's keywords, are an ordinary empty scan.
func degraded(o scanOutcome) bool {
	s := o.summary
	return s != nil && s.Read > 0 && s.Stored == 0 && s.Skipped[SkipKnown] == 0 && o.defects > 0
}

// postGapWeight is the weight of the newest sample in the moving average of
// the gap between posts.
const postGapWeight = 0.3

// nextHealth returns the source's record after a scan, and whether this
// scan makes the failing streak reach the threshold (emit
// monitor.scan_failed: exactly once per streak).
func nextHealth(prev store.SourceRecord, o scanOutcome, h HealthConfig) (rec store.SourceRecord, failedNow bool) {
	h = h.withDefaults()
	rec = prev
	if rec.Status == "" {
		rec.Status = "pending"
	}
	switch {
	case o.notConfigured != "":
		rec.Status, rec.Detail = "not_configured", o.notConfigured
		rec.LastError, rec.FailingSince, rec.ConsecutiveFailures, rec.RateLimitedUntil = "", nil, 0, nil
		return rec, false
	case o.capped != nil:
		until := o.capped.Until.UTC()
		rec.Status, rec.RateLimitedUntil = "cap_reached", &until
		rec.Detail = fmt.Sprintf("the platform's usage cap is used up (%s); next scan after %s", o.capped.Detail, until.Format(time.RFC3339))
		rec.Scans++
		return rec, false
	case !o.rateLimited.IsZero():
		until := o.rateLimited.UTC()
		rec.Status, rec.RateLimitedUntil = "rate_limited", &until
		rec.Detail = "rate limited by the platform until " + until.Format(time.RFC3339)
		rec.Scans++
		if o.summary != nil && o.summary.Read > 0 {
			// A partial scan (the GitHub issues kept when their comments
			// were refused) stored posts: say what it read and left out.
			rec.LastScan = o.summary
		}
		observePosts(&rec, o)
		return rec, false
	}
	rec.Scans++
	rec.RateLimitedUntil = nil
	rec.LastScan = o.summary
	observePosts(&rec, o)
	if o.err != nil {
		rec.ConsecutiveFailures++
		if rec.FailingSince == nil {
			t := o.started.UTC()
			rec.FailingSince = &t
		}
		rec.Status, rec.LastError = "failing", o.err.Error()
		rec.Detail = fmt.Sprintf("%d failed scans in a row since %s", rec.ConsecutiveFailures, rec.FailingSince.Format(time.RFC3339))
		return rec, rec.ConsecutiveFailures == h.FailureThreshold
	}
	t := o.started.UTC()
	rec.LastOKAt = &t
	rec.ConsecutiveFailures, rec.FailingSince, rec.LastError = 0, nil, ""
	if o.state != "" {
		rec.State = o.state
	}
	rec.Status, rec.Detail = "ok", ""
	if degraded(o) {
		rec.Status, rec.Detail = "degraded", o.summary.String()
		return rec, false
	}
	if rec.Scans >= h.StaleAfterScans && rec.EmptyScans > 0 && rec.LastPostAt != nil {
		limit := max(h.StaleMin, time.Duration(h.StaleFactor*float64(rec.PostGap)))
		if quiet := o.started.Sub(*rec.LastPostAt); quiet > limit {
			rec.Status = "stale"
			rec.Detail = fmt.Sprintf("no new post since %s (%s); usually one every %s", rec.LastPostAt.Format(time.RFC3339),
				roundDuration(quiet), roundDuration(rec.PostGap))
		}
	}
	return rec, false
}

// observePosts updates the newest post time, the usual gap between posts
// and the count of scans without a newer post.
func observePosts(rec *store.SourceRecord, o scanOutcome) {
	var newest, oldest time.Time
	n := 0 // posts newer than the previous newest
	for _, p := range o.posts {
		if rec.LastPostAt != nil && !p.PublishedAt.After(*rec.LastPostAt) {
			continue
		}
		n++
		if p.PublishedAt.After(newest) {
			newest = p.PublishedAt
		}
		if oldest.IsZero() || p.PublishedAt.Before(oldest) {
			oldest = p.PublishedAt
		}
	}
	if n == 0 {
		if o.err == nil && o.rateLimited.IsZero() {
			rec.EmptyScans++
		}
		return
	}
	var sample time.Duration
	switch {
	case rec.LastPostAt != nil:
		sample = newest.Sub(*rec.LastPostAt) / time.Duration(n)
	case n >= 2:
		sample = newest.Sub(oldest) / time.Duration(n-1)
	default:
		sample = o.window
	}
	if sample > 0 {
		if rec.PostGap > 0 {
			// One long silence (an outage, a holiday) must not teach the
			// source to be silent: a sample counts at most 4x the usual gap.
			sample = min(sample, 4*rec.PostGap)
		}
		if rec.PostGap <= 0 {
			rec.PostGap = sample
		} else {
			rec.PostGap = time.Duration((1-postGapWeight)*float64(rec.PostGap) + postGapWeight*float64(sample))
		}
	}
	newest = newest.UTC()
	rec.LastPostAt = &newest
	rec.EmptyScans = 0
}

func roundDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	case d >= 2*time.Hour:
		return fmt.Sprintf("%.0f hours", d.Hours())
	default:
		return d.Round(time.Minute).String()
	}
}
