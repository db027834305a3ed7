package classify

import (
	"testing"

	"earshot/vocab"
)

// A signal with a floor (data loss, security, outage) makes a post urgent:
// its floor is at or above the one urgent threshold, whatever it is set to.
func TestUrgencyFloorsAreUrgent(t *testing.T) {
	floors := 0
	for _, s := range urgencySignals {
		if s.floor == 0 {
			continue
		}
		floors++
		if s.floor < vocab.UrgentThreshold {
			t.Errorf("%s: floor %d is below the urgent threshold %d", s.name, s.floor, vocab.UrgentThreshold)
		}
	}
	if floors == 0 {
		t.Fatal("no signal has a floor")
	}
}
