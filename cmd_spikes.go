package main

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"earshot/metrics"
	"earshot/spike"
	"earshot/store"
)

// spikeRunner configures spike detection from the environment:
// EARSHOT_SPIKE_INTERVAL (how often it runs, default 5m; 0 turns it off),
// EARSHOT_SPIKE_MIN_COUNT and EARSHOT_SPIKE_MIN_NEGATIVE (the fewest
// mentions in an hour for a volume or a negative spike). nil when off.
func spikeRunner(st *store.Store, getenv func(string) string, log *slog.Logger, reg *metrics.Registry) (*spike.Runner, error) {
	r := &spike.Runner{Store: st, Interval: 5 * time.Minute, Log: log, Metrics: reg}
	if v := getenv("EARSHOT_SPIKE_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("EARSHOT_SPIKE_INTERVAL: %q is not a duration like 5m (0 turns detection off)", v)
		}
		if d == 0 {
			return nil, nil
		}
		r.Interval = d
	}
	for _, e := range []struct {
		name string
		dst  *int
	}{{"EARSHOT_SPIKE_MIN_COUNT", &r.Params.MinCount}, {"EARSHOT_SPIKE_MIN_NEGATIVE", &r.Params.MinNegative}} {
		if v := getenv(e.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000000 {
				return nil, fmt.Errorf("%s: %q is not a whole number from 1", e.name, v)
			}
			*e.dst = n
		}
	}
	return r, nil
}
