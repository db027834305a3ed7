package spike

import (
	"math"
	"math/rand/v2"
	"testing"
)

// poisson draws a Poisson variable (Knuth; rates here are small).
func poisson(r *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda > 60 {
		// Normal approximation keeps large rates fast.
		return max(0, int(math.Round(lambda+math.Sqrt(lambda)*r.NormFloat64())))
	}
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// diurnal is a daily rhythm: near nothing at 03:00 UTC, peak at 15:00,
// quieter weekends (day%7 5 and 6).
func diurnal(peak, floor float64) func(h int) float64 {
	return func(h int) float64 {
		hod := float64(h % 24)
		x := floor + (peak-floor)*math.Pow(math.Max(0, math.Sin((hod-3)/24*2*math.Pi-math.Pi/2)*0.5+0.5), 2)
		if d := (h / 24) % 7; d == 5 || d == 6 {
			x *= 0.6
		}
		return x
	}
}

func series(seed uint64, hours int, rate func(h int) float64) []int {
	r := rand.New(rand.NewPCG(seed, 42))
	out := make([]int, hours)
	for h := range out {
		out[h] = poisson(r, rate(h))
	}
	return out
}

// spikes runs the detector over every evaluable hour.
func spikes(counts []int, p Params, k Kind) []int {
	var out []int
	for _, h := range Scan(counts, 0, 0, p, k) {
		out = append(out, h.I)
	}
	return out
}

func TestNoFalseAlarms(t *testing.T) {
	const hours = 21 * 24
	cases := []struct {
		name string
		rate func(h int) float64
	}{
		{"seasonal busy brand", diurnal(60, 0.5)},
		{"seasonal small brand", diurnal(8, 0)},
		{"quiet monitor", func(int) float64 { return 0.3 }},
		{"steady", func(int) float64 { return 20 }},
		{"night owl traffic", diurnal(3, 0.1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			total := 0
			for seed := uint64(1); seed <= 30; seed++ {
				s := series(seed, hours, c.rate)
				got := spikes(s, Defaults, Volume)
				total += len(got)
				for _, i := range got {
					r := Evaluate(s, i, 0, Defaults, Defaults.MinCount)
					t.Errorf("seed %d: false spike at day %d %02d:00: count %d baseline %.1f score %.1f", seed, i/24, i%24, s[i], r.Baseline, r.Score)
				}
			}
			if total != 0 {
				t.Errorf("%d false alarms over 30 generated histories of 21 days", total)
			}
		})
	}
}

func TestNightIsNotASpike(t *testing.T) {
	// A naive detector comparing with the last day's median would flag the
	// morning rise every day; comparing an hour with itself must not.
	s := series(7, 14*24, diurnal(40, 0))
	for i := 4 * 24; i < len(s); i++ {
		if r := Evaluate(s, i, 0, Defaults, Defaults.MinCount); r.Spike {
			t.Fatalf("hour %d (%02d:00) flagged: %+v", i, i%24, r)
		}
	}
}

func TestQuietMonitorNeedsMinimumCount(t *testing.T) {
	s := make([]int, 10*24)
	s[9*24+10] = 3 // three posts on a monitor that never gets any
	if got := spikes(s, Defaults, Volume); len(got) != 0 {
		t.Fatalf("three posts alarmed: %v", got)
	}
	s[9*24+10] = 12
	if got := spikes(s, Defaults, Volume); len(got) != 1 || got[0] != 9*24+10 {
		t.Fatalf("twelve posts on a silent monitor: got %v", got)
	}
}

func TestKnownBurstsFound(t *testing.T) {
	type burst struct{ day, hour, extra int }
	cases := []struct {
		name   string
		rate   func(h int) float64
		bursts []burst
		kind   Kind
	}{
		{"outage at night", diurnal(40, 0.5), []burst{{10, 3, 15}}, Volume},
		{"viral afternoon", diurnal(40, 0.5), []burst{{12, 15, 80}}, Volume},
		{"two bursts", diurnal(25, 1), []burst{{8, 9, 40}, {13, 20, 30}}, Volume},
		{"steady then burst", func(int) float64 { return 20 }, []burst{{9, 12, 40}}, Volume},
		{"negative wave", diurnal(6, 0.2), []burst{{11, 14, 20}}, Negative},
		{"fifteen outage posts on a quiet monitor", func(int) float64 { return 0.5 }, []burst{{9, 16, 15}}, Volume},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				s := series(seed, 15*24, c.rate)
				want := map[int]bool{}
				for _, b := range c.bursts {
					i := b.day*24 + b.hour
					s[i] += b.extra
					want[i] = true
				}
				got := spikes(s, Defaults, c.kind)
				found := map[int]bool{}
				for _, i := range got {
					found[i] = true
					if !want[i] {
						t.Errorf("seed %d: unexpected spike at day %d %02d:00 (count %d)", seed, i/24, i%24, s[i])
					}
				}
				for i := range want {
					if !found[i] {
						r := Evaluate(s, i, 0, Defaults, Defaults.Min(c.kind))
						t.Errorf("seed %d: burst at day %d %02d:00 missed: %+v", seed, i/24, i%24, r)
					}
				}
			}
		})
	}
}

func TestHistoryRequired(t *testing.T) {
	s := make([]int, 5*24)
	s[2*24+5] = 50
	if r := Evaluate(s, 2*24+5, 0, Defaults, 10); r.Ready || r.Spike {
		t.Fatalf("two days of history judged: %+v", r)
	}
	// Observed only from day 2: day 4 has two days before it.
	s[4*24+5] = 50
	if r := Evaluate(s, 4*24+5, 48, Defaults, 10); r.Ready || r.Spike {
		t.Fatalf("hours before first observation used as samples: %+v", r)
	}
	if r := Evaluate(s, 4*24+5, 0, Defaults, 10); !r.Ready || !r.Spike || r.Baseline != 0 || r.Count != 50 {
		t.Fatalf("four days of history: %+v", r)
	}
}

func TestBurstInHistoryDoesNotRaiseBaseline(t *testing.T) {
	s := make([]int, 10*24)
	for i := range s {
		s[i] = 5
	}
	s[8*24+12] = 200 // yesterday's burst at the same hour
	s[9*24+12] = 30
	r := Evaluate(s, 9*24+12, 0, Defaults, 10)
	if r.Baseline != 5 || !r.Spike {
		t.Fatalf("median baseline should ignore one burst: %+v", r)
	}
}

func TestPoissonSurprise(t *testing.T) {
	cases := []struct {
		k      int
		lambda float64
		want   float64 // -log10 P(X >= k)
	}{
		{1, 0.5, -math.Log10(1 - math.Exp(-0.5))},
		{1, 1, 0}, // not above the rate
		{3, 1, -math.Log10(1 - math.Exp(-1)*(1+1+0.5))},
		{0, 1, 0},
		{5000, 10, 99}, // capped, not +Inf
	}
	for _, c := range cases {
		if got := poissonSurprise(c.k, c.lambda); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("poissonSurprise(%d, %v) = %v, want %v", c.k, c.lambda, got, c.want)
		}
	}
}

func TestDailyPeriod(t *testing.T) {
	p := Params{Period: 1}
	s := series(5, 60, func(int) float64 { return 40 })
	if got := spikes(s, p, Volume); len(got) != 0 {
		t.Fatalf("steady daily counts alarmed at %v", got)
	}
	s[45] += 100
	if got := spikes(s, p, Volume); len(got) != 1 || got[0] != 45 {
		t.Fatalf("daily burst: got %v", got)
	}
	if p.History() != 7 || Defaults.History() != 7*24+1 {
		t.Fatalf("History: %d, %d", p.History(), Defaults.History())
	}
}

// The threshold is exactly the count where the verdict turns.
func TestThresholdIsTheTurningPoint(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		s := series(seed, 10*24, diurnal(30, 0.5))
		for _, i := range []int{8*24 + 3, 8*24 + 15, 9*24 + 9} {
			r := Evaluate(s, i, 0, Defaults, Defaults.MinCount)
			s2 := append([]int(nil), s...)
			s2[i] = r.Threshold
			if !Evaluate(s2, i, 0, Defaults, Defaults.MinCount).Spike {
				t.Fatalf("seed %d hour %d: threshold %d is not a spike", seed, i, r.Threshold)
			}
			s2[i] = r.Threshold - 1
			if Evaluate(s2, i, 0, Defaults, Defaults.MinCount).Spike {
				t.Fatalf("seed %d hour %d: threshold-1 = %d is already a spike", seed, i, r.Threshold-1)
			}
		}
	}
}
