// Package workers keeps serve's background loops alive and visible: a loop
// that fails is retried with capped exponential backoff instead of ending,
// and its health (failing, behind) is recorded in a Registry that /healthz
// and /metrics read. serve creates one Registry and passes it down; there
// is no package-level state.
package workers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Backoff bounds: the first retry after a failure waits MinBackoff, each
// further consecutive failure doubles the wait, up to MaxBackoff. A minute
// keeps a worker that fails for hours (a full disk) from filling the log,
// and one that failed on a passing lock back at work within a second.
const (
	MinBackoff = time.Second
	MaxBackoff = time.Minute
)

// Backoff is the wait before the retry that follows the n-th consecutive
// failure (n ≥ 1).
func Backoff(n int) time.Duration {
	d := MinBackoff
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// Registry holds the health of every background worker of one process.
type Registry struct {
	mu      sync.Mutex
	workers map[string]*Worker
	now     func() time.Time
}

// New returns an empty registry.
func New() *Registry { return &Registry{workers: map[string]*Worker{}, now: time.Now} }

// Worker returns the named worker's health record, registering it (as ok)
// on first use. A nil registry returns a nil *Worker, whose methods do
// nothing, so code run outside serve (tests, tools) needs no registry.
func (r *Registry) Worker(name string) *Worker {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.workers[name]
	if !ok {
		w = &Worker{name: name, now: r.now}
		r.workers[name] = w
	}
	return w
}

// Worker is one background loop's health.
type Worker struct {
	name string
	now  func() time.Time

	mu          sync.Mutex
	failures    int // consecutive, since the last success
	total       int // all failures since start
	lastErr     error
	lastErrAt   time.Time
	lastOKAt    time.Time
	backlog     int64
	hasBacklog  bool
	behindAt    int64 // backlog from which the worker counts as behind (0: never)
	nextRetryAt time.Time
}

// OK records a successful round: the failure streak ends.
func (w *Worker) OK() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures = 0
	w.lastOKAt = w.now()
	w.nextRetryAt = time.Time{}
}

// Fail records a failed round and returns how long to wait before the
// retry (Backoff of the streak).
func (w *Worker) Fail(err error) time.Duration {
	if w == nil {
		return Backoff(1)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures++
	w.total++
	w.lastErr = err
	w.lastErrAt = w.now()
	d := Backoff(w.failures)
	w.nextRetryAt = w.lastErrAt.Add(d)
	return d
}

// Failures is the current streak of consecutive failures.
func (w *Worker) Failures() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failures
}

// SetBacklog records how much work waits (e.g. unindexed mentions); from
// behindAt on (when positive) the worker is reported as behind.
func (w *Worker) SetBacklog(n, behindAt int64) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.backlog, w.hasBacklog, w.behindAt = n, true, behindAt
}

// Status is a worker's health as /healthz shows it. The error's text is
// not in it (/healthz answers anyone, and a PostgreSQL error can name the
// database's host): LastError is a coarse kind, the text goes to the log.
type Status struct {
	Status              string `json:"status" doc:"ok, or degraded while it fails or is behind"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	Failures            int    `json:"failures_total"`
	LastError           string `json:"last_error,omitempty" doc:"kind of the last failure: database_busy, storage_full, timeout, error"`
	LastErrorAt         string `json:"last_error_at,omitempty"`
	NextRetryAt         string `json:"next_retry_at,omitempty"`
	LastOKAt            string `json:"last_ok_at,omitempty"`
	Backlog             *int64 `json:"backlog,omitempty" doc:"work waiting (search_indexer: mentions not yet searchable by the index)"`
	Behind              bool   `json:"behind,omitempty"`
}

func (w *Worker) status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := Status{Status: "ok", ConsecutiveFailures: w.failures, Failures: w.total}
	if w.lastErr != nil {
		st.LastError = Kind(w.lastErr)
		st.LastErrorAt = stamp(w.lastErrAt)
	}
	if w.failures > 0 {
		st.Status = "degraded"
		st.NextRetryAt = stamp(w.nextRetryAt)
	}
	st.LastOKAt = stamp(w.lastOKAt)
	if w.hasBacklog {
		n := w.backlog
		st.Backlog = &n
		if w.behindAt > 0 && n >= w.behindAt {
			st.Behind, st.Status = true, "degraded"
		}
	}
	return st
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Snapshot is every worker's status by name, and whether any is degraded.
func (r *Registry) Snapshot() (map[string]Status, bool) {
	out := map[string]Status{}
	if r == nil {
		return out, false
	}
	r.mu.Lock()
	ws := make([]*Worker, 0, len(r.workers))
	for _, w := range r.workers {
		ws = append(ws, w)
	}
	r.mu.Unlock()
	degraded := false
	for _, w := range ws {
		st := w.status()
		degraded = degraded || st.Status != "ok"
		out[w.name] = st
	}
	return out, degraded
}

// WriteMetrics writes the workers' gauges in the Prometheus text format,
// to follow the registry of package metrics on /metrics.
func (r *Registry) WriteMetrics(out io.Writer) {
	snap, _ := r.Snapshot()
	names := make([]string, 0, len(snap))
	for n := range snap {
		names = append(names, n)
	}
	sort.Strings(names)
	gauge := func(name, help, typ string, value func(Status) (float64, bool)) {
		fmt.Fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, n := range names {
			if v, ok := value(snap[n]); ok {
				fmt.Fprintf(out, "%s{worker=%q} %g\n", name, n, v)
			}
		}
	}
	gauge("earshot_worker_degraded", "1 while a background worker fails or is behind, else 0.", "gauge", func(s Status) (float64, bool) {
		if s.Status != "ok" {
			return 1, true
		}
		return 0, true
	})
	gauge("earshot_worker_consecutive_failures", "Failed rounds of a background worker since its last success.", "gauge", func(s Status) (float64, bool) {
		return float64(s.ConsecutiveFailures), true
	})
	gauge("earshot_worker_failures_total", "Failed rounds of a background worker since the process started.", "counter", func(s Status) (float64, bool) {
		return float64(s.Failures), true
	})
	gauge("earshot_worker_backlog", "Work waiting for a background worker (search_indexer: unindexed mentions).", "gauge", func(s Status) (float64, bool) {
		if s.Backlog == nil {
			return 0, false
		}
		return float64(*s.Backlog), true
	})
}

// Kind is a coarse, safe-to-publish name for why a round failed.
func Kind(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "disk is full") || strings.Contains(msg, "no space left") || strings.Contains(msg, "disk full"):
		return "storage_full"
	case strings.Contains(msg, "database is locked") || strings.Contains(msg, "sqlite_busy") || strings.Contains(msg, "table is locked"):
		return "database_busy"
	case strings.Contains(msg, "connection refused") || strings.Contains(msg, "connect:") || strings.Contains(msg, "broken pipe") ||
		strings.Contains(msg, "terminating connection"):
		return "database_unreachable"
	}
	return "error"
}

// Sleep waits d or until ctx ends; it reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Retry runs fn until it succeeds or ctx ends: a failure is recorded on w,
// logged, and retried after the backoff. It is for one-shot work that must
// happen eventually (warming an index); it returns ctx's error if ctx ended
// first.
func Retry(ctx context.Context, w *Worker, log *slog.Logger, fn func(context.Context) error) error {
	for {
		err := fn(ctx)
		if err == nil {
			w.OK()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d := w.Fail(err)
		log.Warn("background worker failed; retrying", "worker", w.Name(), "err", err, "retry_in", d.String(), "consecutive_failures", w.Failures())
		if !Sleep(ctx, d) {
			return ctx.Err()
		}
	}
}

// Loop runs round every interval until ctx ends. A failed round is
// recorded, logged and retried after the backoff (not after interval),
// so a loop never stops for good; a successful one clears the streak.
func Loop(ctx context.Context, w *Worker, log *slog.Logger, interval time.Duration, round func(context.Context) error) {
	for {
		wait := interval
		if err := round(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			wait = w.Fail(err)
			log.Warn("background worker failed; retrying", "worker", w.Name(), "err", err, "retry_in", wait.String(), "consecutive_failures", w.Failures())
		} else {
			w.OK()
		}
		if !Sleep(ctx, wait) {
			return
		}
	}
}

// Name is the worker's name ("" for nil).
func (w *Worker) Name() string {
	if w == nil {
		return ""
	}
	return w.name
}
