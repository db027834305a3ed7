package server

import (
	"testing"
	"time"
)

// A slow limiter (OAuth registration: 20 an hour) must not hand back a
// full bucket to a caller who waits out the ten-minute clean-up of idle
// buckets: a bucket is dropped only once it would have refilled.
func TestSlowLimiterKeepsAnIdleEmptyBucket(t *testing.T) {
	l := newLimiter(registrationsPerSec, registrationBurst)
	if !l.allowN("a", registrationBurst) {
		t.Fatal("a fresh bucket holds the burst")
	}
	// Eleven minutes on: the bucket has been idle past ten minutes, and the
	// clean-up is due. (The limiter reads the wall clock, so the bucket's
	// and the clean-up's times are moved back instead.)
	l.mu.Lock()
	l.buckets["a"].seen = time.Now().Add(-11 * time.Minute)
	l.lastGC = time.Now().Add(-2 * time.Minute)
	l.mu.Unlock()
	if l.allowN("a", registrationBurst) {
		t.Error("the emptied bucket was replaced by a full one")
	}
	// The default API limiter (100 at 50/s) refills in two seconds: its
	// idle buckets still go after ten minutes.
	if d := newLimiter(50, 100).idle; d != 10*time.Minute {
		t.Errorf("API limiter idle %v, want 10m", d)
	}
}
