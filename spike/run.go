package spike

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"earshot/internal/workers"
	"earshot/metrics"
	"earshot/store"
)

// Runner detects spikes in the background of serve: on every tick, for
// each project, it brings the hourly counts up to date (only the hours that
// received newly collected mentions are counted again), judges the recent
// hours of every monitor and keyword group, and records what it finds. One
// record per (scope, kind, hour) however often it runs; a new one fires
// spike.detected.
type Runner struct {
	Store    *store.Store
	Params   Params
	Interval time.Duration    // between runs; 5 minutes when zero
	Now      func() time.Time // time.Now when nil
	Log      *slog.Logger
	Metrics  *metrics.Registry // optional
	// Worker records each run's health for /healthz (nil: not recorded).
	Worker *workers.Worker
}

// Recent is how far back each run judges hours again, and announces what
// it finds: long enough for posts a platform indexes late, or a monitor's
// backfill, to complete an hour after it ended.
const Recent = 26 * time.Hour

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// Run runs until ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	every := r.Interval
	if every <= 0 {
		every = 5 * time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var found *metrics.Counter
	var took *metrics.Histogram
	if r.Metrics != nil {
		found = r.Metrics.Counter("earshot_spikes_detected_total", "Spike records created, by kind (volume, negative) and scope (monitor, keyword_group).", "kind", "scope")
		took = r.Metrics.Histogram("earshot_spike_run_seconds", "Duration of one spike detection run over every project.", []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 30})
	}
	first := true
	for {
		start := time.Now()
		sps, failed, err := r.run(ctx)
		if err == nil && failed > 0 {
			err = fmt.Errorf("spike detection failed for %d project(s)", failed)
		}
		took.Since(start)
		for _, sp := range sps {
			found.Inc(sp.Kind, sp.Scope)
		}
		if err != nil && ctx.Err() == nil {
			// Retried after a backoff rather than a whole interval, and
			// never given up: a locked or full database passes.
			wait := r.Worker.Fail(err)
			r.log().Warn("spike detection", "err", err, "retry_in", wait.String())
			if !workers.Sleep(ctx, min(wait, every)) {
				return nil
			}
			continue
		}
		r.Worker.OK()
		if first && every > firstRerun {
			// A fresh start (or the demo) backfills in its first seconds:
			// look again soon instead of a whole interval later.
			first = false
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(firstRerun):
			}
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// firstRerun is when the run after the start-up one comes.
const firstRerun = 30 * time.Second

// RunOnce runs detection over every project and returns the new spikes.
// A failing project is logged and skipped.
func (r *Runner) RunOnce(ctx context.Context) ([]*store.Spike, error) {
	out, _, err := r.run(ctx)
	return out, err
}

// run is RunOnce that also counts the projects that failed (Run reports
// them as a failed round).
func (r *Runner) run(ctx context.Context) ([]*store.Spike, int, error) {
	ids, err := r.Store.SpikeProjects(ctx)
	if err != nil {
		return nil, 0, err
	}
	var out []*store.Spike
	failed := 0
	for _, id := range ids {
		if ctx.Err() != nil {
			return out, failed, ctx.Err()
		}
		sp, err := r.Project(ctx, id)
		if err != nil {
			r.log().Warn("spike detection", "project", id, "err", err)
			failed++
			continue
		}
		out = append(out, sp...)
	}
	return out, failed, nil
}

// Project runs detection for one project.
func (r *Runner) Project(ctx context.Context, projectID string) ([]*store.Spike, error) {
	p := r.Params.withDefaults()
	now := r.now()
	cur := now.Truncate(time.Hour) // the hour in progress
	// History for the baseline of every recent hour.
	from := cur.Add(-Recent - time.Duration(p.History()+1)*time.Hour)
	full, err := r.Store.RefreshSpikeCounts(ctx, projectID, from, now)
	if err != nil {
		return nil, err
	}
	series, err := r.Store.SpikeCounts(ctx, projectID, from, cur.Add(time.Hour))
	if err != nil {
		return nil, err
	}
	n := int(cur.Sub(from)/time.Hour) + 1
	// The first count judges the whole history, so the chart shows its
	// bands; only recent hours are announced.
	judgeFrom := cur.Add(-Recent)
	if full {
		judgeFrom = from
	}
	var found []store.SpikeFinding
	total, neg := make([]int, n), make([]int, n)
	for _, sr := range series {
		clear(total)
		clear(neg)
		for h, c := range sr.Hours {
			t, err := store.ParseTime(h)
			if err != nil {
				continue
			}
			if i := int(t.Sub(from) / time.Hour); i >= 0 && i < n {
				total[i], neg[i] = c.Total, c.Negative
			}
		}
		first := 0
		if t, err := store.ParseTime(sr.First); err == nil && t.After(from) {
			first = int(t.Sub(from) / time.Hour)
		}
		for i := max(0, int(judgeFrom.Sub(from)/time.Hour)); i < n; i++ {
			start := from.Add(time.Duration(i) * time.Hour)
			for _, k := range []struct {
				kind   Kind
				counts []int
			}{{Volume, total}, {Negative, neg}} {
				res := Evaluate(k.counts, i, first, p, p.Min(k.kind))
				if !res.Spike {
					continue
				}
				found = append(found, store.SpikeFinding{SpikeScope: sr.SpikeScope, Kind: string(k.kind), BucketStart: start,
					Count: res.Count, Baseline: Round(res.Baseline), Score: Round(res.Score), Threshold: res.Threshold,
					Announce: start.Add(time.Hour).After(now.Add(-Recent))})
			}
		}
	}
	return r.Store.RecordSpikes(ctx, projectID, found)
}
