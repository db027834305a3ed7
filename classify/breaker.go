package classify

import (
	"sync"
	"time"
)

// breaker is the Ollama classifier's circuit breaker. Closed, every post
// goes to Ollama. Open (Ollama unreachable, or failing again and again),
// posts go straight to the built-in classifier until the cooldown ends;
// then one post probes Ollama (half-open): an answer closes the breaker, a
// failure opens it again for twice as long (at most ten times the base).
type breaker struct {
	base time.Duration
	now  func() time.Time

	mu        sync.Mutex
	state     int // breakerClosed, breakerOpen, breakerHalfOpen
	failures  int // consecutive failures while closed
	cooldown  time.Duration
	openUntil time.Time
	lastErr   string
	opened    int64 // times the breaker opened
}

const (
	breakerClosed = iota
	breakerOpen
	breakerHalfOpen
)

// breakerThreshold is how many consecutive server failures open the
// breaker when none of them says the server is gone.
const breakerThreshold = 3

// allow reports whether a post may go to Ollama, and whether it is the
// half-open probe.
func (b *breaker) allow() (probe, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case breakerOpen:
		if b.now().Before(b.openUntil) {
			return false, false
		}
		b.state = breakerHalfOpen
		return true, true
	case breakerHalfOpen:
		return false, false // one probe at a time
	}
	return false, true
}

func (b *breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state, b.failures, b.cooldown = breakerClosed, 0, 0
}

// failure records a failed post; now opens the breaker at once.
func (b *breaker) failure(err error, now bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.lastErr = err.Error()
	}
	b.failures++
	if !now && b.state == breakerClosed && b.failures < breakerThreshold {
		return
	}
	switch {
	case b.cooldown == 0:
		b.cooldown = b.base
	case b.state == breakerHalfOpen:
		b.cooldown = min(2*b.cooldown, 10*b.base)
	}
	b.state = breakerOpen
	b.openUntil = b.now().Add(b.cooldown)
	b.opened++
}

// abandon gives back a probe that ended without a verdict (the caller's
// context ended, or the model answered out of schema).
func (b *breaker) abandon(probe bool) {
	if !probe {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == breakerHalfOpen {
		b.state = breakerOpen // the next post probes again
	}
}

func (b *breaker) lastError() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastErr
}

// BreakerState is the circuit breaker as /healthz reports it.
type BreakerState struct {
	State     string    `json:"state"` // closed, open or half-open
	OpenUntil time.Time `json:"open_until,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	Opened    int64     `json:"opened"` // times it opened since start
}

func (b *breaker) snapshot() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := BreakerState{State: [...]string{"closed", "open", "half-open"}[b.state], LastError: b.lastErr, Opened: b.opened}
	if b.state == breakerOpen {
		st.OpenUntil = b.openUntil.UTC()
	}
	return st
}
