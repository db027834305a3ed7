package collect

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"earshot/classify"
	"earshot/internal/workers"
	"earshot/metrics"
	"earshot/store"
)

// SchedulerConfig tunes the scheduler; zero values take the defaults.
type SchedulerConfig struct {
	// Owner names this scheduler in monitor leases; default
	// host:pid:start:random (see ownerDead). Schedulers sharing a database
	// must have different owners.
	Owner string
	// Poll is how often due monitors are looked for (default 1s); Nudge
	// looks at once.
	Poll time.Duration
	// Lease is how long a claimed monitor belongs to this scheduler
	// without news from it (default 45s). A running scan renews it every
	// third of it (the heartbeat), so it only runs out when the process
	// died or lost the database: then another scheduler takes the monitor
	// over at most Lease after the last renewal. A scan whose renewal finds
	// the lease taken stops at once, so two schedulers never scan one
	// monitor at once.
	Lease time.Duration
	// ScanTimeout cuts off a scan that takes longer (default 15m): a
	// heartbeat keeps its lease, so something must end a scan that hangs.
	ScanTimeout time.Duration
	// Monitors scanned at once (default 4); PerSource fetches of one
	// platform at once (default 2); Fetches at once overall (default 8).
	Monitors  int
	PerSource int
	Fetches   int
	// Jitter spreads scans: the next scan is due after the monitor's
	// interval ± this fraction of it (default 0.1).
	Jitter float64
	// Ledger, when set, is the YouTube quota ledger (store.QuotaLedger),
	// so restarts and several processes share one daily budget.
	Ledger QuotaLedger
	// ScanRetention is how long scan rows are kept (default 30 days).
	ScanRetention time.Duration
	Pipeline      PipelineConfig
	Health        HealthConfig
	// Worker records whether claiming due monitors works, for /healthz
	// (nil: not recorded).
	Worker *workers.Worker
}

// Scheduler scans every active monitor every scan_interval_minutes: it
// claims due monitors (a lease in the database, so several processes can
// share the work), fetches each of the monitor's sources with bounded
// concurrency, runs the posts through the Pipeline and records each
// source's health.
type Scheduler struct {
	st   *store.Store
	reg  *Registry
	pipe *Pipeline
	cfg  SchedulerConfig
	log  *slog.Logger
	now  func() time.Time

	nudge     chan struct{}
	perSource map[string]chan struct{}
	fetches   chan struct{}

	scans     *metrics.Counter   // source, outcome
	scanTime  *metrics.Histogram // source
	failedEvt *metrics.Counter   // source

	storageRetry storageRetries // scans that met a full disk (storage_retry.go)
}

// NewScheduler returns a scheduler over st using the collectors in reg and
// the classifier cls (nil: built-in). m may be nil.
func NewScheduler(st *store.Store, reg *Registry, cls classify.Classifier, cfg SchedulerConfig, log *slog.Logger, m *metrics.Registry) *Scheduler {
	if cfg.Owner == "" {
		cfg.Owner = defaultOwner()
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultScanLease
	}
	if cfg.ScanTimeout <= 0 {
		cfg.ScanTimeout = 15 * time.Minute
	}
	if cfg.Monitors <= 0 {
		cfg.Monitors = 4
	}
	if cfg.PerSource <= 0 {
		cfg.PerSource = 2
	}
	if cfg.Fetches <= 0 {
		cfg.Fetches = 8
	}
	if cfg.Jitter <= 0 {
		cfg.Jitter = 0.1
	}
	if cfg.ScanRetention <= 0 {
		cfg.ScanRetention = 30 * 24 * time.Hour
	}
	cfg.Health = cfg.Health.withDefaults()
	if log == nil {
		log = slog.Default()
	}
	if m == nil {
		m = metrics.New()
	}
	if cfg.Ledger != nil {
		// The registry builds YouTube with an in-memory ledger of its own;
		// give it the shared one before any scan runs.
		if c, ok := reg.Get("youtube"); ok {
			if y, ok := c.(*YouTube); ok {
				y.cfg.Ledger = cfg.Ledger
			}
		}
	}
	s := &Scheduler{
		st: st, reg: reg, cfg: cfg, log: log.With("component", "scheduler"), now: time.Now,
		pipe:      NewPipeline(st, cls, cfg.Pipeline, log, m),
		nudge:     make(chan struct{}, 1),
		perSource: map[string]chan struct{}{},
		fetches:   make(chan struct{}, cfg.Fetches),
		scans:     m.Counter("earshot_scans_total", "Source scans by source and outcome (ok, failing, rate_limited, not_configured, skipped_rate_limited).", "source", "outcome"),
		scanTime:  m.Histogram("earshot_scan_seconds", "Duration of one source scan (fetch and pipeline).", metrics.DefaultBuckets, "source"),
		failedEvt: m.Counter("earshot_scan_failed_events_total", "monitor.scan_failed events emitted, by source.", "source"),
	}
	for _, c := range reg.All() {
		s.perSource[c.Source()] = make(chan struct{}, cfg.PerSource)
	}
	return s
}

// DefaultScanLease is the scan lease when none is configured: renewed
// every 15 s while a scan runs, it bounds the takeover of a dead process's
// monitors by another host's scheduler to 45 s after its last renewal
// (plus the 1 s poll).
const DefaultScanLease = 45 * time.Second

// reclaimEvery is how often Run looks for leases of dead holders on this
// host (and at most every heartbeat).
const reclaimEvery = 5 * time.Second

// heartbeat is how often a running scan renews its lease: three renewals
// per lease, so one that fails (a slow or briefly unreachable database)
// does not lose it, and after two in a row the scan stops a heartbeat
// before the lease can run out.
func (s *Scheduler) heartbeat() time.Duration { return s.cfg.Lease / 3 }

// Pipeline returns the scheduler's pipeline.
func (s *Scheduler) Pipeline() *Pipeline { return s.pipe }

// Nudge makes Run look for due monitors now instead of at the next poll.
func (s *Scheduler) Nudge() {
	select {
	case s.nudge <- struct{}{}:
	default:
	}
}

// MonitorChanged fits capability.Service.MonitorChanged: a created,
// changed or re-activated monitor is scanned at once.
// A monitor whose lease a dead process on this host holds is freed too, so
// the change is scanned now rather than when the lease runs out.
func (s *Scheduler) MonitorChanged(projectID, monitorID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.st.NudgeMonitor(ctx, monitorID); err != nil {
		s.log.Warn("nudging monitor", "monitor_id", monitorID, "err", err)
	}
	s.reclaimDead(ctx)
	s.Nudge()
}

// reclaimDead releases the monitor leases of holders known to be dead
// (ownerDead: an earlier run of this process, or a killed process on this
// host), so their monitors are due at once instead of when the leases run
// out. Holders on other hosts are left to their leases' expiry.
func (s *Scheduler) reclaimDead(ctx context.Context) {
	owners, err := s.st.MonitorLeaseOwners(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("listing monitor leases", "err", err)
		}
		return
	}
	for _, o := range owners {
		if !ownerDead(o, s.cfg.Owner) {
			continue
		}
		n, err := s.st.ReleaseMonitorLeases(ctx, o, s.now())
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("releasing a dead holder's monitor leases", "owner", o, "err", err)
			}
			continue
		}
		if n > 0 {
			s.log.Info("released a dead holder's monitor leases", "owner", o, "monitors", n)
		}
	}
}

// Run scans due monitors until ctx is done, then waits for the scans in
// flight (they are cancelled with ctx and their monitors released so they
// are due again at once).
func (s *Scheduler) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, s.cfg.Monitors)
	var pruned, reclaimed time.Time
	for {
		// At start, then every few seconds: an earlier run's scans (this
		// process restarted after kill -9) resume at once, and a killed
		// sibling's on this host within seconds. One small query.
		if now := s.now(); now.Sub(reclaimed) >= min(s.heartbeat(), reclaimEvery) {
			reclaimed = now
			s.reclaimDead(ctx)
		}
		if free := cap(slots) - len(slots); free > 0 {
			ms, err := s.st.ClaimDueMonitors(ctx, s.cfg.Owner, s.now(), s.cfg.Lease, free)
			if err != nil && ctx.Err() == nil {
				// Never fatal: the next claim comes after a backoff that
				// grows while the database keeps failing.
				retry := s.cfg.Worker.Fail(err)
				s.log.Error("claiming due monitors", "err", err, "retry_in", retry.String())
				if !workers.Sleep(ctx, retry) {
					return nil
				}
			} else if err == nil {
				s.cfg.Worker.OK()
			}
			for _, m := range ms {
				slots <- struct{}{}
				wg.Go(func() {
					defer func() { <-slots; s.Nudge() }()
					s.scanMonitor(ctx, m)
				})
			}
		}
		if now := s.now(); now.Sub(pruned) > time.Hour {
			pruned = now
			if _, err := s.st.PruneScans(ctx, now.Add(-s.cfg.ScanRetention)); err != nil && ctx.Err() == nil {
				s.log.Warn("pruning scans", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-s.nudge:
		}
	}
}

// ScanDue claims the monitors due now (up to the Monitors setting), scans
// them and returns how many it scanned. Run does the same continuously;
// tests and tools call this for one deterministic round.
func (s *Scheduler) ScanDue(ctx context.Context) (int, error) {
	ms, err := s.st.ClaimDueMonitors(ctx, s.cfg.Owner, s.now(), s.cfg.Lease, s.cfg.Monitors)
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() { s.scanMonitor(ctx, m) })
	}
	wg.Wait()
	return len(ms), ctx.Err()
}

// scanMonitor scans every source of a claimed monitor in parallel, then
// releases it with its next scan due after its interval (jittered).
func (s *Scheduler) scanMonitor(ctx context.Context, m *store.Monitor) {
	start := s.now()
	log := s.log.With("monitor_id", m.ID, "project_id", m.ProjectID)
	lctx, lose := context.WithCancelCause(ctx)
	defer lose(nil)
	sctx, cancel := context.WithTimeout(lctx, s.cfg.ScanTimeout)
	defer cancel()
	stopBeat := s.keepLease(lctx, lose, log, m.ID, start)
	next := s.nextScan(m, start)
	storageFailures := s.st.StorageFailures()
	states, err := s.st.SourceStates(sctx, m.ID)
	if err != nil {
		log.Error("loading source states", "err", err)
		next = start.Add(time.Minute)
	} else {
		var wg sync.WaitGroup
		seen := map[string]bool{}
		for _, src := range m.Sources {
			c, ok := s.reg.Get(src)
			if !ok || seen[src] {
				continue
			}
			seen[src] = true
			prev, ok := states[src]
			if !ok {
				prev = store.SourceRecord{MonitorID: m.ID, Source: src, Status: "pending"}
			}
			wg.Go(func() { s.scanSource(sctx, log.With("source", src), m, c, prev) })
		}
		wg.Wait()
	}
	stopBeat()
	if errors.Is(context.Cause(lctx), store.ErrLeaseLost) {
		return // another scheduler has the monitor: its scan decides
	}
	// A write refused for lack of space meanwhile (this scan's, most
	// likely): retry soon, not at the next interval (storage_retry.go).
	next = s.storageRetry.next(m.ID, s.st.StorageFailures() != storageFailures, s.now(), next)
	if ctx.Err() != nil {
		next = s.now() // shutting down: due again at once, for whoever runs next
	}
	if err := s.st.FinishMonitorScan(context.WithoutCancel(ctx), m.ID, s.cfg.Owner, next); err != nil {
		log.Warn("releasing monitor", "err", err)
	}
}

// keepLease renews the lease of the monitor being scanned every heartbeat
// until the returned stop is called. When the lease is lost (another
// scheduler took the monitor), or renewals keep failing so that it would
// run out before the next try, it cancels the scan with
// store.ErrLeaseLost: a scan that is no longer the monitor's only one
// stops writing (a post it already stored is not stored twice either way:
// mentions are unique by project, source and id).
func (s *Scheduler) keepLease(ctx context.Context, lose context.CancelCauseFunc, log *slog.Logger, monitorID string, claimed time.Time) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(s.heartbeat())
		defer t.Stop()
		held := claimed.Add(s.cfg.Lease) // until when the lease is surely ours
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now := s.now()
			err := s.st.RenewMonitorLease(ctx, monitorID, s.cfg.Owner, now.Add(s.cfg.Lease))
			switch {
			case err == nil:
				held = now.Add(s.cfg.Lease)
			case errors.Is(err, store.ErrLeaseLost):
				log.Warn("scan stopped: monitor lease taken over by another scheduler")
				lose(store.ErrLeaseLost)
				return
			case ctx.Err() != nil:
				return
			case !now.Add(s.heartbeat()).Before(held):
				// The lease would run out before the next try: stop now,
				// before another scheduler may take the monitor.
				log.Warn("scan stopped: monitor lease about to run out, renewals failing", "err", err)
				lose(store.ErrLeaseLost)
				return
			default:
				log.Warn("renewing monitor lease", "err", err)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// nextScan is start + the monitor's interval ± Jitter.
func (s *Scheduler) nextScan(m *store.Monitor, start time.Time) time.Time {
	iv := time.Duration(max(m.ScanIntervalMinutes, 1)) * time.Minute
	j := (rand.Float64()*2 - 1) * s.cfg.Jitter
	return start.Add(time.Duration(float64(iv) * (1 + j)))
}

// query is what the collector is asked: since the backfill window on the
// source's first scan; afterwards its saved State and, with an overlap for
// posts indexed late, since the last successful scan.
func (s *Scheduler) query(m *store.Monitor, prev store.SourceRecord, now time.Time) Query {
	q := Query{MonitorID: m.ID, Keywords: m.Keywords, ExcludeKeywords: m.ExcludeKeywords, QueryMode: m.QueryMode,
		WatchAccounts: m.WatchAccounts, FeedURLs: m.FeedURLs, ReviewURLs: m.ReviewURLs, State: prev.State}
	backfill := time.Duration(max(m.BackfillHours, 1)) * time.Hour
	if prev.LastOKAt == nil {
		q.Since = now.Add(-backfill)
		return q
	}
	iv := time.Duration(max(m.ScanIntervalMinutes, 1)) * time.Minute
	overlap := max(time.Hour, 2*iv)
	q.Since = prev.LastOKAt.Add(-overlap)
	if floor := now.Add(-max(backfill, 24*time.Hour)); q.Since.Before(floor) {
		q.Since = floor
	}
	return q
}

// unconfigured says why a source cannot run for this monitor ("" when it
// can): a missing setting, or nothing in the monitor it could look for.
func (s *Scheduler) unconfigured(m *store.Monitor, c Collector) string {
	src := c.Source()
	if src == "linkedin" && len(LinkedInOrganizations(m.WatchAccounts)) == 0 {
		return LinkedInNoKeywordSearch
	}
	if ok, missing := c.Configured(); !ok {
		return "set " + missing
	}
	switch src {
	case "linkedin":
	case "youtube", "threads":
		// Both search by keyword only (README, Known limitations): a
		// monitor that watches accounts alone gives them nothing to ask.
		if len(queryKeywords(m.Keywords, "")) == 0 {
			return src + " searches by keyword only, and this monitor has no keywords (watch_accounts is not used for " + src + ")"
		}
	case "reviews":
		if len(m.ReviewURLs) == 0 {
			return "this monitor has no review_urls to read"
		}
	case "news":
		if len(m.Keywords) == 0 && len(m.FeedURLs) == 0 {
			return "this monitor has no keywords or feed_urls"
		}
	default:
		if len(queryKeywords(m.Keywords, "")) == 0 && len(watchHandles(src, m.WatchAccounts)) == 0 {
			if len(m.WatchAccounts) > 0 {
				return "this monitor has no keywords, and none of its watch_accounts is a " + src + " account"
			}
			return "this monitor has no keywords or watch_accounts"
		}
	}
	return ""
}

// acquire takes a fetch slot of source and an overall one; nil when ctx
// ended first.
func (s *Scheduler) acquire(ctx context.Context, source string) (release func()) {
	per := s.perSource[source]
	if per == nil {
		per = make(chan struct{}, 1) // not reachable: every registry source has one
	}
	select {
	case per <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	select {
	case s.fetches <- struct{}{}:
	case <-ctx.Done():
		<-per
		return nil
	}
	return func() { <-s.fetches; <-per }
}

// scanSource fetches one source for a monitor, processes what it returned
// and records the source's health and the scan.
func (s *Scheduler) scanSource(ctx context.Context, log *slog.Logger, m *store.Monitor, c Collector, prev store.SourceRecord) {
	src := c.Source()
	now := s.now()
	// Configuration first: a source whose credentials were removed (or a
	// monitor left with nothing to search) while it was rate limited is
	// not_configured now, not rate_limited until the platform's reset.
	why := s.unconfigured(m, c)
	if why == "" && prev.RateLimitedUntil != nil && now.Before(*prev.RateLimitedUntil) {
		s.scans.Inc(src, "skipped_rate_limited")
		return
	}
	o := scanOutcome{started: now}
	var counts ScanCounts
	if why != "" {
		o.notConfigured = why
	} else {
		release := s.acquire(ctx, src)
		if release == nil {
			return
		}
		q := s.query(m, prev, now)
		o.window = now.Sub(q.Since)
		batch, err := c.Fetch(ctx, q)
		release()
		if ctx.Err() != nil {
			return // shutting down or out of lease time: no verdict on the source
		}
		var pe *PartialError
		if err != nil && !errors.As(err, &pe) {
			// A failed fetch stores nothing (see PartialError): posts that
			// came with the error are from before the failure.
			batch.Posts = nil
		}
		o.posts = batch.Posts
		var capped *CapReachedError
		if errors.As(err, &capped) {
			o.capped = capped
		} else if rl, ok := IsRateLimited(err); ok {
			o.rateLimited = rl.Until
		} else if errors.Is(err, ErrLinkedInNoOrganizations) {
			o.notConfigured = LinkedInNoKeywordSearch
		} else if err != nil {
			o.err = err
		} else {
			o.state = batch.State
		}
		if len(batch.Posts) > 0 {
			var perr error
			counts, perr = s.pipe.Process(ctx, m, src, batch.Posts)
			if perr != nil {
				if ctx.Err() != nil {
					return
				}
				// Not the platform's fault, but the posts are not stored:
				// keep the old State so the next scan fetches them again.
				log.Error("processing posts", "err", perr)
				o.err = errors.Join(o.err, perr)
				o.rateLimited = time.Time{}
				o.capped = nil
				o.state = ""
			}
		}
		if len(batch.Refresh) > 0 && o.err == nil {
			eng := make(map[string]map[string]int64, len(batch.Refresh))
			for _, p := range batch.Refresh {
				eng[p.ExternalID] = p.Engagement
			}
			if err := s.st.RefreshEngagement(context.WithoutCancel(ctx), m.ProjectID, src, eng); err != nil {
				log.Error("refreshing counters", "err", err)
				o.err, o.state = err, "" // asked again next scan
			}
		}
		o.summary, o.defects = summarize(batch, counts)
	}
	rec, failedNow := nextHealth(prev, o, s.cfg.Health)
	rec.MonitorID, rec.Source = m.ID, src
	if n, ok := c.(StatusNoter); ok && rec.Status == "ok" && rec.Detail == "" {
		rec.Detail = n.StatusNote()
	}
	var scan *store.ScanRecord
	if o.notConfigured == "" || len(o.posts) > 0 {
		scan = &store.ScanRecord{MonitorID: m.ID, Source: src, StartedAt: now, FinishedAt: s.now(), Fetched: counts.Fetched,
			Matched: counts.Matched, New: counts.New, Duplicates: counts.Duplicates, DroppedQuota: counts.DroppedQuota}
		if o.summary != nil {
			scan.Read, scan.Skipped = o.summary.Read, o.summary.Skipped
		}
		switch {
		case o.err != nil:
			scan.Error = o.err.Error()
		case !o.rateLimited.IsZero() || o.capped != nil:
			scan.Error = rec.Detail
		}
	}
	var ev *store.Event
	if failedNow {
		var err error
		ev, err = store.NewEvent(m.ProjectID, "monitor.scan_failed", map[string]any{
			"monitor_id": m.ID, "monitor_name": m.Name, "source": src, "error": rec.LastError,
			"consecutive_failures": rec.ConsecutiveFailures, "failing_since": store.FormatTime(*rec.FailingSince),
		})
		if err != nil {
			log.Error("building monitor.scan_failed", "err", err)
			ev = nil
		}
	}
	if err := s.st.SaveSourceResult(context.WithoutCancel(ctx), rec, scan, ev); err != nil {
		log.Error("saving source result", "err", err)
		return
	}
	if ev != nil {
		s.failedEvt.Inc(src)
		log.Warn("source failing", "consecutive_failures", rec.ConsecutiveFailures, "err", rec.LastError)
	}
	outcome := rec.Status
	if outcome == "stale" {
		outcome = "ok"
	}
	s.scans.Inc(src, outcome)
	s.scanTime.Since(now, src)
	if o.err != nil {
		log.Info("scan failed", "err", o.err, "consecutive_failures", rec.ConsecutiveFailures)
	} else {
		log.Debug("scanned", "status", rec.Status, "fetched", counts.Fetched, "matched", counts.Matched, "new", counts.New,
			"duplicates", counts.Duplicates, "dropped_quota", counts.DroppedQuota)
	}
}
