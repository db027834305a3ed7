package deliver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Schedule is the delay before each attempt of a delivery: Schedule[0]
// before the first, Schedule[1] after the first failure, and so on. Its
// length is the number of attempts before the delivery is failed.
type Schedule []time.Duration

// DefaultSchedule is docs/decisions.md#webhooks: immediately, 5 s, 5 min, 30
// min, 2 h, 5 h, 10 h, 10 h, i.e. eight attempts over about a day and a
// quarter.
var DefaultSchedule = Schedule{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	10 * time.Hour,
}

// jitter spreads retries by ±10 % so that deliveries that failed together
// (a receiver outage) do not all come back at the same second.
const jitter = 0.10

// ParseSchedule reads a comma-separated list of Go durations, e.g.
// "0s,1s,2s" (EARSHOT_WEBHOOK_SCHEDULE, used by tests to retry quickly).
func ParseSchedule(s string) (Schedule, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("parse schedule: empty")
	}
	parts := strings.Split(s, ",")
	out := make(Schedule, 0, len(parts))
	for _, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("parse schedule %q: %w", s, err)
		}
		if d < 0 {
			return nil, fmt.Errorf("parse schedule %q: negative delay %s", s, d)
		}
		out = append(out, d)
	}
	return out, nil
}

// String formats the schedule the way ParseSchedule reads it.
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// Next returns how long to wait before the next attempt, given how many
// attempts were already made (0 before the first) and the receiver's
// Retry-After hint (0 when none). The scheduled delay gets ±10 % jitter; a
// longer Retry-After (capped at MaxRetryAfter) wins. ok is false when the
// schedule is used up: the delivery is failed. rnd may be nil to use the
// shared, goroutine-safe source.
func (s Schedule) Next(attempt int, retryAfter time.Duration, rnd *rand.Rand) (delay time.Duration, ok bool) {
	if attempt < 0 || attempt >= len(s) {
		return 0, false
	}
	f := rand.Float64
	if rnd != nil {
		f = rnd.Float64
	}
	delay = time.Duration(float64(s[attempt]) * (1 - jitter + 2*jitter*f()))
	retryAfter = min(retryAfter, MaxRetryAfter)
	return max(delay, retryAfter), true
}
