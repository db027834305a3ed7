package deliver

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"earshot/internal/workers"
	"earshot/metrics"
	"earshot/netguard"
	"earshot/store"
	"earshot/webhooksig"
)

// WorkerConfig is how the delivery worker runs; `earshot serve` fills it
// from flags and the environment.
type WorkerConfig struct {
	// AllowPrivate lifts the SSRF guard (EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1).
	AllowPrivate bool
	// Proxy is the operator's outbound proxy (EARSHOT_OUTBOUND_PROXY);
	// nil connects directly. The guard checks each destination before
	// the proxy is asked (netguard.UseProxy).
	Proxy *url.URL
	// Schedule is the retry schedule; nil means DefaultSchedule
	// (EARSHOT_WEBHOOK_SCHEDULE, parsed by the caller with ParseSchedule).
	Schedule Schedule
	// SMTPURL is EARSHOT_SMTP_URL for email alerts; empty fails them.
	SMTPURL string
	// BaseURL is Earshot's public URL, for links in alerts.
	BaseURL string
	// Timeout bounds one attempt; 0 means netguard.DefaultTimeout (15 s).
	Timeout time.Duration
	// Concurrency is how many webhooks and alerts are sent to at once (each
	// one in order) by lanes that are not stalled; 0 means 16.
	Concurrency int
	// StalledLanes is how many lanes may, on top of Concurrency, wait for
	// receivers that are slow to answer (an attempt older than StallAfter)
	// or failed the last time (a retry); 0 means 4 × Concurrency. Such a
	// lane costs a socket and a goroutine, not a share of the CPU or the
	// database, so receivers that hang cannot take the lanes healthy ones
	// need (see stall).
	StalledLanes int
	// StallAfter is how long an attempt may wait for its receiver before
	// its lane counts as stalled; 0 means 250 ms.
	StallAfter time.Duration
	// PollInterval is how often the outbox is checked for new events and
	// due retries when nothing wakes the worker; 0 means 100 ms.
	PollInterval time.Duration
	// InstanceID owns the leases this process takes; "" means random.
	// Another instance takes a delivery over once its lease expires.
	InstanceID string
	// Worker records whether the worker's rounds (fan-out, digests,
	// finding due deliveries) work, for /healthz (nil: not recorded).
	Worker *workers.Worker
}

const (
	defaultConcurrency  = 16
	defaultPollInterval = 100 * time.Millisecond
	defaultStallAfter   = 250 * time.Millisecond
	// runLimit is how many consecutive deliveries of one webhook a lane
	// claims at once; they go out one after the other. (Deliveries the
	// fan-out hands to a running lane come on top, without a claim.)
	runLimit = 64
	// dispatchBatch is how many events one fan-out handles (in
	// transactions of at most 256 rows, see store.DispatchTo).
	dispatchBatch = 256
)

// Worker fans events out into deliveries and alert notifications and sends
// them: per webhook (and per alert) strictly in order, across webhooks
// concurrently. All its state is in the database, leased per queue (the
// lease sits on the head delivery), so several instances can share the work
// and a crash loses nothing. New deliveries of a webhook whose lane runs
// here go to that lane directly (see handoff), leased in the same
// transaction that creates them.
type Worker struct {
	st     *store.Store
	cfg    WorkerConfig
	log    *slog.Logger
	client *http.Client
	wake   chan struct{}
	// writing admits one worker write at a time (see writer).
	writing chan struct{}
	// records carries the lanes' outcomes to the recorder (see record).
	records chan *recordReq
	// The running lanes; the map is Run's (its goroutine only).
	lanes   map[lane]*laneState
	done    chan lane
	laneCtx context.Context
	lanesWG sync.WaitGroup
	// crowded: a due queue is waiting for a lane (all Concurrency are
	// running). Lanes then end as soon as they run dry instead of
	// lingering or taking more, so every queue gets its turn.
	// crowdedStalled is the same for a retry waiting for a stalled lane.
	crowded, crowdedStalled atomic.Bool
	// stalled counts the lanes that are stalled (see stall): they are
	// in lanes but not counted against Concurrency.
	stalled atomic.Int32
	// sending counts the lanes not stalled that are in the middle of an
	// attempt: the recorder waits a little for their answers (see record).
	sending atomic.Int32

	now   func() time.Time        // digest periods; tests move it
	onAck func(lag time.Duration) // tests and the benchmark
	// recordAttempts is st.RecordAttempts; tests make it fail.
	recordAttempts func(ctx context.Context, owner string, recs ...store.Record) error
	email          func(ctx context.Context, to, subject, body string) error

	deliveries *metrics.Counter
	lag        *metrics.Histogram
	alerts     *metrics.Counter
}

// lagBuckets span a loopback acknowledgement to a day of retries.
var lagBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 4 * 3600, 12 * 3600, 36 * 3600}

// NewWorker returns a worker over st. reg and log may be nil.
func NewWorker(st *store.Store, cfg WorkerConfig, log *slog.Logger, reg *metrics.Registry) *Worker {
	if len(cfg.Schedule) == 0 {
		cfg.Schedule = DefaultSchedule
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = netguard.DefaultTimeout
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = defaultConcurrency
	}
	if cfg.StalledLanes <= 0 {
		cfg.StalledLanes = 4 * cfg.Concurrency
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = defaultStallAfter
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = defaultPollInterval
	}
	if cfg.InstanceID == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		cfg.InstanceID = "worker-" + hex.EncodeToString(b)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client := netguard.NewClient(cfg.AllowPrivate, cfg.Timeout)
	netguard.UseProxy(client, cfg.Proxy, cfg.AllowPrivate, nil)
	w := &Worker{
		st:      st,
		cfg:     cfg,
		log:     log.With("component", "deliver", "instance", cfg.InstanceID),
		client:  client,
		wake:    make(chan struct{}, 1),
		writing: make(chan struct{}, 1),
		now:     time.Now,
	}
	w.recordAttempts = st.RecordAttempts
	w.email = func(ctx context.Context, to, subject, body string) error {
		if w.cfg.SMTPURL == "" {
			return errors.New("email alerts need EARSHOT_SMTP_URL")
		}
		return SendEmail(ctx, w.cfg.SMTPURL, to, subject, body)
	}
	if reg != nil {
		w.deliveries = reg.Counter("earshot_webhook_deliveries_total", "Webhook delivery attempts by outcome (delivered, retry, failed, gone).", "outcome")
		w.lag = reg.Histogram("earshot_webhook_delivery_lag_seconds", "Seconds from an event being recorded to its delivery being acknowledged.", lagBuckets)
		w.alerts = reg.Counter("earshot_alert_notifications_total", "Alert notification attempts by channel and outcome.", "channel", "outcome")
	}
	return w
}

// Wake asks the worker to look at the outbox now instead of at the next
// poll, e.g. right after a scan recorded events. It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// lane is one webhook's or alert's queue being sent by this process.
type lane struct {
	kind store.Outbox
	id   string
}

// laneState is a running lane, shared by its goroutine and the dispatcher,
// which hands new deliveries of the lane's webhook straight to it (see
// handoff) instead of leaving them to be claimed and read back.
type laneState struct {
	mu       sync.Mutex
	open     bool          // still taking hand-offs
	jobs     []*store.Job  // handed off, not yet taken up by the lane
	until    time.Time     // the earliest lease of those
	lastSeq  int64         // the last delivery the lane holds
	reserved int           // fan-outs in progress that may hand off
	notify   chan struct{} // (cap 1) jobs arrived or reserved dropped
	sending  bool          // an attempt is in flight (see stall)
	// stalled: counted among the stalled lanes, not against Concurrency;
	// set once, by stall or when the lane starts on a retry.
	stalled atomic.Bool
}

func newLaneState() *laneState {
	return &laneState{open: true, notify: make(chan struct{}, 1)}
}

func (ls *laneState) signal() {
	select {
	case ls.notify <- struct{}{}:
	default:
	}
}

// Run works until ctx is cancelled, then waits for in-flight sends to
// finish or time out, records them, and returns nil.
func (w *Worker) Run(ctx context.Context) error {
	w.log.Info("delivery worker started", "schedule", w.cfg.Schedule.String(), "concurrency", w.cfg.Concurrency,
		"stalled_lanes", w.cfg.StalledLanes)
	w.lanes = map[lane]*laneState{}
	// Every lane ends once and Run may be waiting for all of them (at
	// shutdown): room for all, so a lane never blocks on its end.
	w.done = make(chan lane, w.cfg.Concurrency+w.cfg.StalledLanes)
	w.laneCtx = ctx
	w.records = make(chan *recordReq, w.cfg.Concurrency+w.cfg.StalledLanes)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		w.record(w.records)
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var lastDigest time.Time
	for {
		var roundErr error // the round's first error: it never ends the loop
		if err := w.dispatch(ctx); err != nil && ctx.Err() == nil {
			w.log.Error("dispatching events", "err", err)
			roundErr = cmp.Or(roundErr, err)
		}
		if time.Since(lastDigest) >= w.cfg.PollInterval {
			lastDigest = time.Now()
			if err := w.flushDigests(ctx); err != nil && ctx.Err() == nil {
				w.log.Error("flushing digests", "err", err)
				roundErr = cmp.Or(roundErr, err)
			}
		}
		wait := w.cfg.PollInterval
		for _, kind := range []store.Outbox{store.WebhookOutbox, store.AlertOutbox} {
			next, err := w.startLanes(ctx, kind)
			if err != nil && ctx.Err() == nil {
				w.log.Error("finding due deliveries", "outbox", kind.String(), "err", err)
				roundErr = cmp.Or(roundErr, err)
			}
			if next > 0 {
				wait = min(wait, next)
			}
		}
		if roundErr != nil {
			// A failing database is retried after a growing backoff, not
			// every poll; lanes finishing or new events still wake it.
			wait = w.cfg.Worker.Fail(roundErr)
		} else {
			w.cfg.Worker.OK()
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			w.lanesWG.Wait()
			close(w.records)
			<-recorded
			w.log.Info("delivery worker stopped")
			return nil
		case l := <-w.done:
			w.endLane(l)
		drain:
			for {
				select {
				case l := <-w.done:
					w.endLane(l)
				default:
					break drain
				}
			}
		case <-w.wake:
		case <-timer.C:
		}
	}
}

// startLane runs a lane in its own goroutine (Run's goroutine only).
func (w *Worker) startLane(l lane, ls *laneState) {
	w.lanes[l] = ls
	w.lanesWG.Add(1)
	go func() {
		defer w.lanesWG.Done()
		if err := w.runLane(w.laneCtx, l, ls); err != nil {
			w.log.Error("delivery lane", "outbox", l.kind.String(), "target", l.id, "err", err)
			// A broken database should not turn the loop into a spin.
			select {
			case <-w.laneCtx.Done():
			case <-time.After(w.cfg.PollInterval):
			}
		}
		w.done <- l
	}()
}

// endLane forgets a lane that ended (Run's goroutine only).
func (w *Worker) endLane(l lane) {
	if ls := w.lanes[l]; ls != nil && ls.stalled.Load() {
		w.stalled.Add(-1)
	}
	delete(w.lanes, l)
}

// running is how many lanes count against Concurrency (Run's goroutine).
func (w *Worker) running() int { return len(w.lanes) - int(w.stalled.Load()) }

// reserveStalled takes a place among the stalled lanes if one is free.
func (w *Worker) reserveStalled() bool {
	for {
		n := w.stalled.Load()
		if int(n) >= w.cfg.StalledLanes {
			return false
		}
		if w.stalled.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// stall moves a lane whose attempt has waited StallAfter for its receiver
// to the stalled lanes, when one is free, and wakes Run to give its place
// to a queue that waits. The queue stays in order (the lane goes on
// sending it); only the count changes, so a receiver that hangs for the
// whole timeout holds no lane a healthy receiver needs. It runs on the
// attempt's timer.
func (w *Worker) stall(ls *laneState) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !ls.sending || ls.stalled.Load() || !w.reserveStalled() {
		return
	}
	ls.stalled.Store(true)
	w.Wake()
}

// crowdedFor reports whether a queue waits for the kind of lane ls is.
func (w *Worker) crowdedFor(ls *laneState) bool {
	if ls.stalled.Load() {
		return w.crowdedStalled.Load()
	}
	return w.crowded.Load()
}

// startLanes starts a lane for every due queue not already being sent, up
// to Concurrency, and returns how long until the next head falls due (0
// when none is known). A queue whose head is a retry (its receiver failed
// the last time: down, erroring, or hanging until the timeout) starts as a
// stalled lane, up to StalledLanes, and never takes a lane of
// Concurrency: receivers that keep failing wait for each other, not
// healthy ones. (The retry schedule spaces their attempts out.)
func (w *Worker) startLanes(ctx context.Context, kind store.Outbox) (time.Duration, error) {
	heads, err := w.st.Heads(ctx, kind)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	nowS := store.FormatTime(now)
	var next time.Duration
	soon := func(at string) {
		t, err := store.ParseTime(at)
		if err != nil {
			return
		}
		if d := max(t.Sub(now), time.Millisecond); next == 0 || d < next {
			next = d
		}
	}
	// The queue waiting longest goes first when lanes are scarce.
	slices.SortStableFunc(heads, func(a, b store.Head) int { return strings.Compare(a.NextAttemptAt, b.NextAttemptAt) })
	crowded, crowdedStalled := false, false
	for _, h := range heads {
		l := lane{kind, h.TargetID}
		if w.lanes[l] != nil {
			continue
		}
		if h.NextAttemptAt > nowS {
			soon(h.NextAttemptAt)
			continue
		}
		if h.LeaseUntil > nowS {
			soon(h.LeaseUntil) // another instance, or one that died
			continue
		}
		ls := newLaneState()
		switch {
		case h.Attempts > 0:
			if !w.reserveStalled() {
				crowdedStalled = true
				continue
			}
			ls.stalled.Store(true)
		case w.running() >= w.cfg.Concurrency:
			crowded = true
			continue
		}
		w.startLane(l, ls)
	}
	if kind == store.WebhookOutbox {
		w.crowded.Store(crowded)
		w.crowdedStalled.Store(crowdedStalled)
	} else {
		if crowded {
			w.crowded.Store(true)
		}
		if crowdedStalled {
			w.crowdedStalled.Store(true)
		}
	}
	return next, nil
}

// handoff is the worker's side of store.Handoff for one fan-out (Run's
// goroutine): new deliveries of a webhook go to its running lane when the
// lane holds everything pending before them, or to a new lane when nothing
// is pending; the first of them carries the lease.
type handoff struct {
	w        *Worker
	reserved []*laneState
	starting []lane
}

func (w *Worker) newHandoff() (*handoff, *store.Handoff) {
	h := &handoff{w: w}
	until := time.Now().Add(w.leaseFor())
	return h, &store.Handoff{Owner: w.cfg.InstanceID, Until: until, Take: h.take,
		Taken: func(id string, jobs []*store.Job) { h.taken(id, jobs, until) }}
}

func (h *handoff) take(webhookID string, lastPending int64) bool {
	l := lane{store.WebhookOutbox, webhookID}
	ls := h.w.lanes[l]
	if ls == nil {
		if lastPending != 0 {
			return false
		}
		if h.w.running() >= h.w.cfg.Concurrency {
			h.w.crowded.Store(true)
			return false
		}
		ls = newLaneState()
		ls.reserved = 1
		h.w.lanes[l] = ls // started in done, with or without the jobs
		h.starting = append(h.starting, l)
		h.reserved = append(h.reserved, ls)
		return true
	}
	if h.w.crowdedFor(ls) {
		return false // the lane is to end and give its turn
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !ls.open || (lastPending != 0 && lastPending != ls.lastSeq) {
		return false
	}
	ls.reserved++
	h.reserved = append(h.reserved, ls)
	return true
}

func (h *handoff) taken(webhookID string, jobs []*store.Job, until time.Time) {
	ls := h.w.lanes[lane{store.WebhookOutbox, webhookID}]
	ls.mu.Lock()
	ls.jobs = append(ls.jobs, jobs...)
	ls.lastSeq = jobs[len(jobs)-1].Seq
	if ls.until.IsZero() || until.Before(ls.until) {
		ls.until = until
	}
	ls.mu.Unlock()
	ls.signal()
}

// done ends the fan-out: reservations are given back and new lanes start.
func (h *handoff) done() {
	for _, ls := range h.reserved {
		ls.mu.Lock()
		ls.reserved--
		ls.mu.Unlock()
		ls.signal()
	}
	for _, l := range h.starting {
		ls := h.w.lanes[l]
		delete(h.w.lanes, l)
		h.w.startLane(l, ls)
	}
	h.reserved, h.starting = nil, nil
}

// writer runs fn as the worker's only write in flight. The store has one
// writer connection that everyone queues for; with every lane queueing its
// own claim, an event being recorded (ingestion) would wait behind all of
// them, and now waits behind one short transaction at most.
func (w *Worker) writer(fn func() error) error {
	w.writing <- struct{}{}
	defer func() { <-w.writing }()
	return fn()
}

// leaseFor is how long a claimed run stays ours: long enough for an attempt
// and its recording; a dead instance's deliveries come back after it.
func (w *Worker) leaseFor() time.Duration { return 2*w.cfg.Timeout + 10*time.Second }

// laneRun is one lane's sending state.
type laneRun struct {
	w     *Worker
	l     lane
	ls    *laneState
	r     *runSender
	at    time.Time // when r was loaded
	until time.Time // our lease on the head (the first job not yet recorded)
	// The outcome not yet handed to the recorder, and handed ones not yet
	// stored.
	worked  bool // has sent something
	batch   []store.Attempt
	acked   []*store.Job
	pending []chan error
}

// senderReload bounds how long a lane sends with a webhook's settings
// (URL, secrets, active) as it loaded them.
const senderReload = time.Second

// runLane sends one queue in order, jobs handed off by the fan-out or
// claimed from the database, until none is left (after lingering a while
// for more, for webhooks), one fails, or ctx is cancelled.
func (w *Worker) runLane(ctx context.Context, l lane, ls *laneState) error {
	lr := &laneRun{w: w, l: l, ls: ls}
	var jobs []*store.Job
	for {
		if len(jobs) == 0 {
			jobs = lr.handedOff()
		}
		if ctx.Err() != nil {
			return lr.stop(jobs, nil)
		}
		if len(jobs) == 0 {
			// The next claim must see every outcome stored.
			lr.submit(nil)
			if err := lr.wait(); err != nil {
				return lr.stop(nil, err)
			}
			var err error
			if jobs, err = lr.next(ctx); err != nil || len(jobs) == 0 {
				return lr.stop(jobs, err)
			}
			continue
		}
		if lr.r == nil || time.Since(lr.at) >= senderReload {
			var err error
			if l.kind == store.WebhookOutbox {
				lr.r, err = w.webhookSender(ctx, l.id)
			} else {
				lr.r, err = w.alertSender(ctx, jobs[0].ProjectID, l.id)
			}
			lr.at = time.Now()
			if err != nil || lr.r == nil {
				// The webhook or alert vanished or was paused: give the
				// queue back (deleted ones went with it).
				return lr.stop(jobs, err)
			}
		}
		// Stop before an attempt that could outlast the lease (another
		// instance would send the same delivery meanwhile).
		if time.Now().Add(w.cfg.Timeout + time.Second).After(lr.until) {
			return lr.stop(jobs, nil)
		}
		j := jobs[0]
		lr.worked = true
		// In-flight attempts finish (or time out) even when ctx ends.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.Timeout)
		res := lr.send(sctx, j)
		cancel()
		at := time.Now()
		a := w.attempt(j, res, at)
		lr.batch = append(lr.batch, a)
		w.count(l.kind, lr.r.channel, res, a)
		jobs = jobs[1:]
		if a.Status == "delivered" {
			lr.acked = append(lr.acked, j)
			if len(jobs) == 0 {
				jobs = lr.handedOff()
			}
			// The answer is stored before the next send: after a crash,
			// only a delivery whose answer was not stored yet, at most
			// the one this lane has in flight, is sent again. (The
			// recorder commits the lanes' outcomes together, so this
			// costs a lane a commit's wait, not a commit each.)
			var next *store.Job
			if len(jobs) > 0 {
				next = jobs[0]
			}
			lr.submit(next)
			if err := lr.wait(); err != nil {
				return lr.stop(jobs, err)
			}
			continue
		}
		w.log.Warn("delivery attempt failed", "outbox", l.kind.String(), "target", j.TargetID, "delivery", j.ID,
			"attempt", j.Attempts+1, "status", a.Status, "code", res.StatusCode, "err", res.Err)
		// The rest waits behind the retry.
		err := lr.stop(jobs, nil)
		if l.kind == store.WebhookOutbox && res.Outcome == Gone {
			derr := w.st.DisableWebhook(context.WithoutCancel(ctx), j.TargetID, "receiver answered 410 Gone")
			w.log.Warn("webhook disabled: receiver answered 410", "webhook", j.TargetID)
			err = errors.Join(err, derr)
		}
		return err
	}
}

// handedOff takes up the jobs the fan-out handed to the lane.
func (lr *laneRun) handedOff() []*store.Job {
	ls := lr.ls
	ls.mu.Lock()
	defer ls.mu.Unlock()
	jobs := ls.jobs
	if len(jobs) > 0 {
		// With every outcome handed to the recorder (the last without a
		// next lease), the lane holds no lease but the hand-off's, on its
		// first job; otherwise its head's lease may be the earlier one.
		if len(lr.batch) == 0 || ls.until.Before(lr.until) {
			lr.until = ls.until
		}
		ls.jobs, ls.until = nil, time.Time{}
	}
	return jobs
}

// next waits for jobs when the lane holds none (all outcomes stored):
// handed off, or claimed from the head of the queue. It returns none when
// the lane should end; the lane is then closed to hand-offs.
func (lr *laneRun) next(ctx context.Context) ([]*store.Job, error) {
	w, ls := lr.w, lr.ls
	// A webhook lane lingers for hand-offs (about one fan-out period) while
	// there are lanes to spare, instead of ending and being started again.
	linger := time.Duration(0)
	if lr.l.kind == store.WebhookOutbox {
		linger = w.cfg.PollInterval
	}
	lingerUntil := time.Now().Add(linger)
	claimed := false
	for ctx.Err() == nil {
		ls.mu.Lock()
		if jobs := ls.jobs; len(jobs) > 0 {
			ls.mu.Unlock()
			return lr.handedOff(), nil
		}
		reserved := ls.reserved > 0
		ls.mu.Unlock()
		if reserved {
			// A fan-out may hand jobs off any moment.
			select {
			case <-ls.notify:
			case <-ctx.Done():
			}
			continue
		}
		if w.crowdedFor(ls) && lr.worked {
			// Other queues wait for a lane: end now; what is left here
			// is started again in its turn.
			lingerUntil, claimed = time.Time{}, true
		}
		if !claimed {
			now := time.Now()
			until := now.Add(w.leaseFor())
			var jobs []*store.Job
			err := w.writer(func() (err error) {
				jobs, err = w.st.ClaimRun(ctx, lr.l.kind, lr.l.id, w.cfg.InstanceID, now, until, runLimit)
				return err
			})
			if err != nil {
				return nil, err
			}
			if len(jobs) > 0 {
				lr.until = until
				ls.mu.Lock()
				ls.lastSeq = max(ls.lastSeq, jobs[len(jobs)-1].Seq)
				ls.mu.Unlock()
				return jobs, nil
			}
			claimed = true
		}
		if d := time.Until(lingerUntil); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ls.notify:
			case <-t.C:
				claimed = false // one more look before ending
				lingerUntil = time.Time{}
			case <-ctx.Done():
			}
			t.Stop()
			continue
		}
		ls.mu.Lock()
		if len(ls.jobs) == 0 && ls.reserved == 0 {
			ls.open = false
			ls.mu.Unlock()
			return nil, nil
		}
		ls.mu.Unlock()
	}
	return nil, nil
}

// stop ends the lane: outcomes are stored, the lane is closed to
// hand-offs, and leases on jobs it will not send are given back.
func (lr *laneRun) stop(jobs []*store.Job, err error) error {
	lr.submit(nil)
	err = errors.Join(err, lr.wait())
	ls := lr.ls
	for {
		ls.mu.Lock()
		if ls.reserved == 0 {
			ls.open = false
			jobs = append(jobs, ls.jobs...)
			ls.jobs = nil
			ls.mu.Unlock()
			break
		}
		ls.mu.Unlock()
		<-ls.notify // fan-outs are short and never wait for lanes
	}
	lr.w.release(lr.l.kind, jobs)
	return err
}

// submit hands the outcomes gathered so far to the recorder without
// waiting; next, when the lane goes on, is the job that becomes the head
// and takes over the lease (renewed).
func (lr *laneRun) submit(next *store.Job) {
	if len(lr.batch) == 0 {
		return
	}
	req := &recordReq{rec: store.Record{Outbox: lr.l.kind, Attempts: lr.batch}, acked: lr.acked, done: make(chan error, 1)}
	if next != nil {
		lr.until = time.Now().Add(lr.w.leaseFor())
		req.rec.Next = &store.Lease{Seq: next.Seq, Until: lr.until}
	}
	lr.w.records <- req
	lr.pending = append(lr.pending, req.done)
	lr.batch, lr.acked = nil, nil
}

// send makes one attempt; when the receiver takes longer than StallAfter
// to answer, the lane is stalled (see stall).
func (lr *laneRun) send(ctx context.Context, j *store.Job) Result {
	ls := lr.ls
	if ls.stalled.Load() {
		return lr.r.send(ctx, j)
	}
	lr.w.sending.Add(1)
	defer lr.w.sending.Add(-1)
	ls.mu.Lock()
	ls.sending = true
	ls.mu.Unlock()
	t := time.AfterFunc(lr.w.cfg.StallAfter, func() { lr.w.stall(ls) })
	res := lr.r.send(ctx, j)
	t.Stop()
	ls.mu.Lock()
	ls.sending = false
	ls.mu.Unlock()
	return res
}

// wait returns once every submitted outcome is stored.
func (lr *laneRun) wait() error {
	var err error
	for _, c := range lr.pending {
		err = errors.Join(err, <-c)
	}
	lr.pending = nil
	return err
}

// runSender makes one attempt of one job; channel labels alert metrics.
type runSender struct {
	send    func(ctx context.Context, j *store.Job) Result
	channel string
}

// recordReq is one lane's batch of outcomes for the recorder.
type recordReq struct {
	rec   store.Record
	acked []*store.Job
	done  chan error // buffered: the recorder never waits for the lane
}

// recordMax bounds the attempts one recorder transaction writes.
const recordMax = 256

// gatherWindow bounds how long the recorder waits for lanes in the
// middle of an attempt before it commits what it has.
const gatherWindow = time.Millisecond

// record commits the outcomes of all lanes together (group commit), so ten
// busy webhooks cost one short write instead of ten: what the lanes handed
// over while the previous commit ran, and what lanes in the middle of an
// attempt (on loopback, a fraction of a millisecond) hand over within
// gatherWindow. Lanes waiting for a receiver that is slow (stalled) or
// for nothing are not waited for. It returns when reqs is closed.
func (w *Worker) record(reqs <-chan *recordReq) {
	window := time.NewTimer(time.Hour)
	window.Stop()
	for r := range reqs {
		group := []*recordReq{r}
		n := len(r.rec.Attempts)
		deadline := time.Now().Add(gatherWindow)
	gather:
		for n < recordMax {
			select {
			case r, ok := <-reqs:
				if !ok {
					break gather
				}
				group = append(group, r)
				n += len(r.rec.Attempts)
				continue
			default:
			}
			wait := time.Until(deadline)
			if wait <= 0 || w.sending.Load() == 0 {
				break
			}
			window.Reset(wait)
			select {
			case r, ok := <-reqs:
				window.Stop()
				if !ok {
					break gather
				}
				group = append(group, r)
				n += len(r.rec.Attempts)
			case <-window.C:
				break gather
			}
		}
		recs := make([]store.Record, len(group))
		for i, g := range group {
			recs[i] = g.rec
		}
		// Not tied to Run's context: these sends already happened. 10 s
		// stays within the lanes' leases (at least Timeout + 10 s left
		// after a send).
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := w.storeRecords(ctx, recs)
		cancel()
		at := time.Now()
		for _, g := range group {
			if err == nil {
				for _, j := range g.acked {
					w.acknowledged(g.rec.Outbox, j, at)
				}
			}
			g.done <- err
		}
	}
}

// storeRecords stores the lanes' answers, trying again while ctx lasts
// when a commit fails (the database busy past its timeout, or briefly
// gone): an answer not stored means its delivery is sent again once the
// lease expires.
func (w *Worker) storeRecords(ctx context.Context, recs []store.Record) error {
	backoff := 50 * time.Millisecond
	for {
		err := w.writer(func() error { return w.recordAttempts(ctx, w.cfg.InstanceID, recs...) })
		if err == nil {
			return nil
		}
		w.log.Warn("storing delivery answers failed, trying again", "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// attempt turns a Result into what the delivery log stores.
func (w *Worker) attempt(j *store.Job, res Result, at time.Time) store.Attempt {
	a := store.Attempt{Seq: j.Seq, StatusCode: res.StatusCode, Response: strings.ToValidUTF8(string(res.Body), "\uFFFD"), At: at}
	if res.Err != nil {
		a.Error = res.Err.Error()
	}
	switch res.Outcome {
	case Success:
		a.Status = "delivered"
	case Gone:
		a.Status = "failed"
	default:
		if delay, ok := w.cfg.Schedule.Next(j.Attempts+1, res.RetryAfter, nil); ok {
			a.Status, a.NextAttemptAt = "pending", at.Add(delay)
		} else {
			a.Status = "failed"
		}
	}
	return a
}

func (w *Worker) count(kind store.Outbox, channel string, res Result, a store.Attempt) {
	outcome := a.Status
	switch {
	case res.Outcome == Gone:
		outcome = "gone"
	case a.Status == "pending":
		outcome = "retry"
	}
	if kind == store.WebhookOutbox {
		w.deliveries.Inc(outcome)
		return
	}
	w.alerts.Inc(channel, outcome)
}

// acknowledged observes the lag of a recorded webhook success (replays
// would only measure how old the event is).
func (w *Worker) acknowledged(kind store.Outbox, j *store.Job, at time.Time) {
	if kind != store.WebhookOutbox || j.Replay {
		return
	}
	t, err := store.ParseTime(j.EventAt)
	if err != nil {
		return
	}
	lag := at.Sub(t)
	w.lag.Observe(lag.Seconds())
	if w.onAck != nil {
		w.onAck(lag)
	}
}

// release gives back leased jobs that were not attempted.
func (w *Worker) release(kind store.Outbox, jobs []*store.Job) {
	if len(jobs) == 0 {
		return
	}
	seqs := make([]int64, len(jobs))
	for i, j := range jobs {
		seqs[i] = j.Seq
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.st.ReleaseLeases(ctx, kind, w.cfg.InstanceID, seqs); err != nil {
		// The leases expire on their own; the deliveries are only late.
		w.log.Warn("releasing leases", "outbox", kind.String(), "err", err)
	}
}

// webhookSender loads the webhook once per run; nil when it is gone or
// inactive.
func (w *Worker) webhookSender(ctx context.Context, id string) (*runSender, error) {
	hook, err := w.st.Webhook(ctx, "", id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !hook.Active {
		return nil, nil
	}
	sg := &webhooksig.Signer{}
	return &runSender{send: func(ctx context.Context, j *store.Job) Result {
		now := time.Now()
		// The body is only read (signed, sent): no copy of the string.
		body := unsafe.Slice(unsafe.StringData(j.Payload), len(j.Payload))
		sig, err := sg.Header(hook.Secrets(now), j.EventID, now, body)
		return sendSigned(ctx, w.client, hook.URL, sig, err, j.EventID, body, now)
	}}, nil
}
