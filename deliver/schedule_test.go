package deliver

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestDefaultSchedule(t *testing.T) {
	want := "0s,5s,5m0s,30m0s,2h0m0s,5h0m0s,10h0m0s,10h0m0s"
	if got := DefaultSchedule.String(); got != want {
		t.Fatalf("DefaultSchedule = %s, want %s", got, want)
	}
	parsed, err := ParseSchedule(want)
	if err != nil || parsed.String() != want {
		t.Fatalf("round trip: %v, %v", parsed, err)
	}
}

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"0s,1s,2s", "0s,1s,2s", false},
		{" 0s , 100ms ,1m ", "0s,100ms,1m0s", false},
		{"0", "0s", false},
		{"", "", true},
		{"  ", "", true},
		{"1s,,2s", "", true},
		{"1s,-1s", "", true},
		{"5", "", true}, // a bare number is ambiguous
		{"1x", "", true},
	}
	for _, tt := range tests {
		got, err := ParseSchedule(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseSchedule(%q) err = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && got.String() != tt.want {
			t.Errorf("ParseSchedule(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestScheduleNext(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	s := DefaultSchedule

	// Every attempt's delay stays within ±10 % of the schedule and the
	// jitter really varies.
	for attempt, base := range s {
		lo, hi := time.Duration(float64(base)*0.9), time.Duration(float64(base)*1.1)
		seen := map[time.Duration]bool{}
		for range 200 {
			d, ok := s.Next(attempt, 0, rnd)
			if !ok || d < lo || d > hi {
				t.Fatalf("Next(%d) = %s, %v; want within [%s, %s]", attempt, d, ok, lo, hi)
			}
			seen[d] = true
		}
		if base > 0 && len(seen) < 50 {
			t.Errorf("Next(%d): only %d distinct delays in 200 draws", attempt, len(seen))
		}
	}
	if d, ok := s.Next(0, 0, rnd); d != 0 || !ok {
		t.Errorf("first attempt: %s, %v; want immediately", d, ok)
	}

	// The schedule runs out: the delivery is failed.
	if _, ok := s.Next(len(s), 0, rnd); ok {
		t.Error("Next after the last attempt: ok")
	}
	if _, ok := s.Next(len(s), time.Minute, rnd); ok {
		t.Error("Retry-After extends the schedule")
	}
	if _, ok := s.Next(-1, 0, rnd); ok {
		t.Error("Next(-1): ok")
	}

	// A longer Retry-After wins; a shorter one does not shorten the wait.
	if d, _ := s.Next(1, time.Hour, rnd); d != time.Hour {
		t.Errorf("Next(1, 1h) = %s, want 1h", d)
	}
	if d, _ := s.Next(4, time.Second, rnd); d < 108*time.Minute {
		t.Errorf("Next(4, 1s) = %s, want about 2h", d)
	}
	if d, _ := s.Next(1, 1000*time.Hour, rnd); d != MaxRetryAfter {
		t.Errorf("Next(1, 1000h) = %s, want %s", d, MaxRetryAfter)
	}

	// nil uses the shared source.
	if d, ok := s.Next(1, 0, nil); !ok || d < 4500*time.Millisecond || d > 5500*time.Millisecond {
		t.Errorf("Next(1, nil rnd) = %s, %v", d, ok)
	}

	// A test schedule.
	fast, _ := ParseSchedule("0s,1s,2s")
	var attempts int
	for {
		if _, ok := fast.Next(attempts, 0, rnd); !ok {
			break
		}
		attempts++
	}
	if attempts != 3 {
		t.Errorf("fast schedule allows %d attempts, want 3", attempts)
	}
}
