package deliver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"earshot/metrics"
	"earshot/store"
)

// WorkerConfig is how the delivery worker runs; `earshot serve` fills it
// from flags and the environment.
type WorkerConfig struct {
	// AllowPrivate lifts the SSRF guard (EARSHOT_ALLOW_PRIVATE_WEBHOOKS=1).
	AllowPrivate bool
	// Schedule is the retry schedule; nil means DefaultSchedule
	// (EARSHOT_WEBHOOK_SCHEDULE, parsed by the caller with ParseSchedule).
	Schedule Schedule
	// SMTPURL is EARSHOT_SMTP_URL for email alerts; empty fails them.
	SMTPURL string
	// BaseURL is Earshot's public URL, for links in alerts.
	BaseURL string
	// Timeout bounds one attempt; 0 means DefaultTimeout (15 s).
	Timeout time.Duration
	// Concurrency is how many webhooks and alerts are sent to at once (each
	// one in order); 0 means 16.
	Concurrency int
	// PollInterval is how often the outbox is checked for new events and
	// due retries when nothing wakes the worker; 0 means 100 ms.
	PollInterval time.Duration
	// InstanceID owns the leases this process takes; "" means random.
	// Another instance takes a delivery over once its lease expires.
	InstanceID string
}

const (
	defaultConcurrency  = 16
	defaultPollInterval = 100 * time.Millisecond
	// runLimit is how many consecutive deliveries of one webhook a lane
	// leases at once; they go out one after the other.
	runLimit = 64
	// dispatchBatch is how many events one fan-out transaction handles.
	dispatchBatch = 256
	// flushEvery bounds how long a lane keeps acknowledged deliveries in
	// memory before handing them to the recorder.
	flushEvery = 20 * time.Millisecond
	flushMax   = 64
)

// Worker fans events out into deliveries and alert notifications and sends
// them: per webhook (and per alert) strictly in order, across webhooks
// concurrently. All its state is in the database, leased per delivery, so
// several instances can share the work and a crash loses nothing.
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

	now   func() time.Time        // digest periods; tests move it
	onAck func(lag time.Duration) // tests and the benchmark
	email func(ctx context.Context, to, subject, body string) error

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
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = defaultConcurrency
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
	w := &Worker{
		st:      st,
		cfg:     cfg,
		log:     log.With("component", "deliver", "instance", cfg.InstanceID),
		client:  NewClient(cfg.AllowPrivate, cfg.Timeout),
		wake:    make(chan struct{}, 1),
		writing: make(chan struct{}, 1),
		now:     time.Now,
	}
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

// Run works until ctx is cancelled, then waits for in-flight sends to
// finish or time out, records them, and returns nil.
func (w *Worker) Run(ctx context.Context) error {
	w.log.Info("delivery worker started", "schedule", w.cfg.Schedule.String(), "concurrency", w.cfg.Concurrency)
	busy := map[lane]bool{}
	done := make(chan lane, w.cfg.Concurrency)
	var wg sync.WaitGroup
	w.records = make(chan *recordReq, w.cfg.Concurrency)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		w.record(w.records)
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var lastDigest time.Time
	for {
		if err := w.dispatch(ctx); err != nil && ctx.Err() == nil {
			w.log.Error("dispatching events", "err", err)
		}
		if time.Since(lastDigest) >= w.cfg.PollInterval {
			lastDigest = time.Now()
			if err := w.flushDigests(ctx); err != nil && ctx.Err() == nil {
				w.log.Error("flushing digests", "err", err)
			}
		}
		wait := w.cfg.PollInterval
		for _, kind := range []store.Outbox{store.WebhookOutbox, store.AlertOutbox} {
			next, err := w.startLanes(ctx, kind, busy, done, &wg)
			if err != nil && ctx.Err() == nil {
				w.log.Error("finding due deliveries", "outbox", kind.String(), "err", err)
			}
			if next > 0 {
				wait = min(wait, next)
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			wg.Wait()
			close(w.records)
			<-recorded
			w.log.Info("delivery worker stopped")
			return nil
		case l := <-done:
			delete(busy, l)
		drain:
			for {
				select {
				case l := <-done:
					delete(busy, l)
				default:
					break drain
				}
			}
		case <-w.wake:
		case <-timer.C:
		}
	}
}

// startLanes starts a lane for every due queue not already being sent, up
// to Concurrency, and returns how long until the next head falls due (0
// when none is known).
func (w *Worker) startLanes(ctx context.Context, kind store.Outbox, busy map[lane]bool, done chan<- lane, wg *sync.WaitGroup) (time.Duration, error) {
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
	for _, h := range heads {
		l := lane{kind, h.TargetID}
		if busy[l] {
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
		if len(busy) >= w.cfg.Concurrency {
			break
		}
		busy[l] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.runLane(ctx, l); err != nil {
				w.log.Error("delivery lane", "outbox", l.kind.String(), "target", l.id, "err", err)
				// A broken database should not turn the loop into a spin.
				select {
				case <-ctx.Done():
				case <-time.After(w.cfg.PollInterval):
				}
			}
			done <- l
		}()
	}
	return next, nil
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

// runLane sends one queue's due deliveries in order until none is left,
// one fails, or ctx is cancelled.
func (w *Worker) runLane(ctx context.Context, l lane) error {
	for ctx.Err() == nil {
		now := time.Now()
		leaseUntil := now.Add(w.leaseFor())
		var jobs []*store.Job
		err := w.writer(func() (err error) {
			jobs, err = w.st.ClaimRun(ctx, l.kind, l.id, w.cfg.InstanceID, now, leaseUntil, runLimit)
			return err
		})
		if err != nil || len(jobs) == 0 {
			return err
		}
		var r *runSender
		if l.kind == store.WebhookOutbox {
			r, err = w.webhookSender(ctx, l.id)
		} else {
			r, err = w.alertSender(ctx, jobs[0].ProjectID, l.id)
		}
		if err != nil || r == nil {
			// The webhook or alert vanished or was paused after the claim:
			// give the queue back (deleted ones went with it).
			w.release(l.kind, jobs[:1])
			return err
		}
		more, err := w.sendRun(ctx, l.kind, r, jobs, leaseUntil)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// runSender makes one attempt of one job; channel labels alert metrics.
type runSender struct {
	send    func(ctx context.Context, j *store.Job) Result
	channel string
}

// sendRun sends jobs one after the other; a failure stops the run (the
// rest waits behind the retry). It reports whether the lane may go on.
//
// The lease sits on the first job not yet recorded, which is the queue's
// head in the database; each recorded batch of successes moves it to the
// next job in the same transaction and renews it. Batches go to the
// recorder without waiting, except before anything that must see them
// stored: a failure, and the end of the run (the next claim).
func (w *Worker) sendRun(ctx context.Context, kind store.Outbox, r *runSender, jobs []*store.Job, leaseUntil time.Time) (bool, error) {
	var batch []store.Attempt
	var acked []*store.Job
	var pending []chan error
	lastFlush := time.Now()
	submit := func(next *store.Job) {
		if len(batch) == 0 {
			return
		}
		req := &recordReq{rec: store.Record{Outbox: kind, Attempts: batch}, acked: acked, done: make(chan error, 1)}
		if next != nil {
			leaseUntil = time.Now().Add(w.leaseFor())
			req.rec.Next = &store.Lease{Seq: next.Seq, Until: leaseUntil}
		}
		w.records <- req
		pending = append(pending, req.done)
		batch, acked, lastFlush = nil, nil, time.Now()
	}
	wait := func() error {
		var err error
		for _, c := range pending {
			err = errors.Join(err, <-c)
		}
		pending = nil
		return err
	}
	for i, j := range jobs {
		// Stop at shutdown, and before an attempt that could outlast the
		// lease (another instance would send the same delivery meanwhile).
		if ctx.Err() != nil || time.Now().Add(w.cfg.Timeout+time.Second).After(leaseUntil) {
			submit(nil)
			err := wait()
			w.release(kind, jobs[i:i+1])
			return false, err
		}
		// In-flight attempts finish (or time out) even when ctx ends.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.Timeout)
		res := r.send(sctx, j)
		cancel()
		at := time.Now()
		a := w.attempt(j, res, at)
		batch = append(batch, a)
		w.count(kind, r.channel, res, a)
		if a.Status == "delivered" {
			acked = append(acked, j)
			if i+1 < len(jobs) && (len(batch) >= flushMax || time.Since(lastFlush) >= flushEvery) {
				submit(jobs[i+1])
			}
			continue
		}
		w.log.Warn("delivery attempt failed", "outbox", kind.String(), "target", j.TargetID, "delivery", j.ID,
			"attempt", j.Attempts+1, "status", a.Status, "code", res.StatusCode, "err", res.Err)
		submit(nil)
		err := wait()
		if kind == store.WebhookOutbox && res.Outcome == Gone {
			derr := w.st.DisableWebhook(context.WithoutCancel(ctx), j.TargetID, "receiver answered 410 Gone")
			w.log.Warn("webhook disabled: receiver answered 410", "webhook", j.TargetID)
			err = errors.Join(err, derr)
		}
		return false, err
	}
	submit(nil)
	err := wait()
	return err == nil, err
}

// recordReq is one lane's batch of outcomes for the recorder.
type recordReq struct {
	rec   store.Record
	acked []*store.Job
	done  chan error // buffered: the recorder never waits for the lane
}

// recordMax bounds the attempts one recorder transaction writes.
const recordMax = 128

// record commits the batches of all lanes together: while one commit
// runs, the next batches gather (group commit), so ten busy webhooks cost
// one short write instead of ten. It returns when reqs is closed.
func (w *Worker) record(reqs <-chan *recordReq) {
	for r := range reqs {
		group := []*recordReq{r}
		n := len(r.rec.Attempts)
	gather:
		for n < recordMax {
			select {
			case r, ok := <-reqs:
				if !ok {
					break gather
				}
				group = append(group, r)
				n += len(r.rec.Attempts)
			default:
				break gather
			}
		}
		recs := make([]store.Record, len(group))
		for i, g := range group {
			recs[i] = g.rec
		}
		// Not tied to Run's context: these sends already happened.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := w.writer(func() error { return w.st.RecordAttempts(ctx, w.cfg.InstanceID, recs...) })
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
	return &runSender{send: func(ctx context.Context, j *store.Job) Result {
		now := time.Now()
		return Send(ctx, w.client, hook.URL, hook.Secrets(now), j.EventID, []byte(j.Payload), now)
	}}, nil
}
