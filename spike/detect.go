// Package spike decides whether an hour's mention count is a burst against
// a scope's own history. It is a pure function over hourly counts: the
// store counts, the runner (store.DetectSpikes) records and announces.
//
// The baseline of hour t is the same hour of day on the previous days
// (t-24h, t-48h, … each with its neighbouring hours), so a daily rhythm —
// busy afternoons, silent nights — is compared with itself: a normal
// afternoon is not a spike, and a night with a handful of posts is not
// either. Its level is the median of those samples and its spread the
// median absolute deviation, both robust to the bursts the history already
// holds. A minimum count keeps a quiet monitor from alarming on three posts.
package spike

import (
	"math"
	"slices"
)

// Params tune the detector. Zero fields take the defaults of Defaults.
type Params struct {
	// MinCount is the fewest mentions in the hour for a volume spike.
	MinCount int
	// MinNegative is the fewest negative mentions for a negative spike.
	MinNegative int
	// Threshold is the robust score (count minus baseline, over the
	// spread) an hour must reach.
	Threshold float64
	// Surprise is how improbable the count must be for a Poisson variable
	// at the upper quartile of the history, as -log10 of the tail
	// probability (4: one hour in ten thousand). Counts are skewed at low
	// levels, where a score alone would alarm too often.
	Surprise float64
	// MinRatio: the count must also be at least this many times the
	// baseline, so a steady busy scope needs a real jump, not noise.
	MinRatio float64
	// Days of history the baseline looks back (same hour each day).
	Days int
	// MinDays of observed history the scope needs before it can spike:
	// a new monitor has no baseline yet.
	MinDays int
	// Period is the number of buckets in a day: 24 for hourly counts
	// (the default), 1 for daily counts, whose baseline is then simply the
	// previous Days days.
	Period int
}

// Defaults are the parameters Earshot ships with.
var Defaults = Params{MinCount: 10, MinNegative: 5, Threshold: 3, Surprise: 4, MinRatio: 2, Days: 7, MinDays: 3, Period: 24}

func (p Params) withDefaults() Params {
	d := Defaults
	if p.MinCount > 0 {
		d.MinCount = p.MinCount
	}
	if p.MinNegative > 0 {
		d.MinNegative = p.MinNegative
	}
	if p.Threshold > 0 {
		d.Threshold = p.Threshold
	}
	if p.Surprise > 0 {
		d.Surprise = p.Surprise
	}
	if p.MinRatio > 0 {
		d.MinRatio = p.MinRatio
	}
	if p.Days > 0 {
		d.Days = p.Days
	}
	if p.MinDays > 0 {
		d.MinDays = p.MinDays
	}
	if p.Period > 0 {
		d.Period = p.Period
	}
	if d.MinDays > d.Days {
		d.MinDays = d.Days
	}
	return d
}

// History is how many buckets before the first evaluated one a series
// must hold for a full baseline (Days days and, for hourly counts, one
// neighbouring hour).
func (p Params) History() int {
	p = p.withDefaults()
	if p.Period > 1 {
		return p.Days*p.Period + 1
	}
	return p.Days
}

// Result is the verdict on one hour.
type Result struct {
	Count    int
	Baseline float64 // median of the same hour on previous days
	Spread   float64 // robust spread used for the score (never below a Poisson floor)
	Score    float64 // (Count - Baseline) / Spread
	Surprise float64 // -log10 P(X >= Count) for X Poisson at the history's upper quartile
	// Threshold is the fewest mentions that make this hour a spike (every
	// condition met): a line to draw on a chart.
	Threshold int
	Spike     bool
	// Ready is false when the scope lacks MinDays of history before the hour.
	Ready bool
}

// Evaluate judges counts[i], an hourly series. first is the index of the
// first hour the scope was observed (its earliest mention, or when
// counting began); hours before it are not samples. min is the minimum
// count for this kind (Params.MinCount or Params.MinNegative, by Kind).
func Evaluate(counts []int, i, first int, p Params, min int) Result {
	p = p.withDefaults()
	r := Result{Count: counts[i]}
	if first < 0 {
		first = 0
	}
	samples := make([]float64, 0, 3*p.Days)
	days := 0
	for k := 1; k <= p.Days; k++ {
		j := i - p.Period*k
		if p.Period == 1 {
			// Daily counts: the previous days themselves.
			if j < first {
				break
			}
			days++
			samples = append(samples, float64(counts[j]))
			continue
		}
		if j-1 < first {
			break
		}
		days++
		for _, h := range [3]int{j - 1, j, j + 1} {
			samples = append(samples, float64(counts[h]))
		}
	}
	if days < p.MinDays {
		return r
	}
	r.Ready = true
	r.Baseline = median(samples)
	dev := make([]float64, len(samples))
	for k, v := range samples {
		dev[k] = math.Abs(v - r.Baseline)
	}
	// 1.4826·MAD estimates a standard deviation; counts are at least as
	// noisy as a Poisson variable (sqrt of the level), and never below one
	// post, so a flat history does not make every extra post a spike.
	r.Spread = max(1.4826*median(dev), math.Sqrt(max(r.Baseline, 1)))
	r.Score = (float64(r.Count) - r.Baseline) / r.Spread
	if min < 1 {
		min = 1
	}
	lambda := max(quantile(samples, 0.75), r.Baseline, 0.5)
	r.Surprise = poissonSurprise(r.Count, lambda)
	r.Spike = r.Count >= min && r.Score >= p.Threshold && r.Surprise >= p.Surprise && float64(r.Count) >= p.MinRatio*r.Baseline
	// The other conditions are monotonic in the count: start where the
	// score, ratio and minimum allow and step up to the Poisson gate
	// (a few steps; the tail shrinks faster than geometrically).
	c := max(min, int(math.Ceil(p.MinRatio*r.Baseline-1e-9)), int(math.Ceil(r.Baseline+p.Threshold*r.Spread-1e-9)))
	for poissonSurprise(c, lambda) < p.Surprise {
		c++
	}
	r.Threshold = c
	return r
}

// Hit is a spike Scan found at index I of the series.
type Hit struct {
	I int
	Result
}

// Scan judges every bucket of series from index start on (the buckets
// before it are history; give p.History() of them for a full baseline) and
// returns the spikes of kind k, in order. first is as for Evaluate.
func Scan(series []int, start, first int, p Params, k Kind) []Hit {
	var out []Hit
	for i := max(start, 0); i < len(series); i++ {
		if r := Evaluate(series, i, first, p, p.Min(k)); r.Spike {
			out = append(out, Hit{I: i, Result: r})
		}
	}
	return out
}

// Kind names what was counted.
type Kind string

const (
	Volume   Kind = "volume"   // relevant mentions
	Negative Kind = "negative" // relevant negative mentions
)

// Min is the minimum count of kind k under p.
func (p Params) Min(k Kind) int {
	p = p.withDefaults()
	if k == Negative {
		return p.MinNegative
	}
	return p.MinCount
}

// Round rounds to one decimal, for the record.
func Round(f float64) float64 { return math.Round(f*10) / 10 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// quantile is the q-quantile of v (nearest rank).
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
}

// poissonSurprise is -log10 P(X >= k) for X ~ Poisson(lambda), computed in
// log space so a huge burst does not underflow to +Inf; 0 when k is not
// above the rate.
func poissonSurprise(k int, lambda float64) float64 {
	if float64(k) <= lambda {
		return 0
	}
	lg, _ := math.Lgamma(float64(k) + 1)
	logPMF := float64(k)*math.Log(lambda) - lambda - lg
	// P(X >= k) = pmf(k) * (1 + λ/(k+1) + λ²/((k+1)(k+2)) + …); the terms
	// shrink since k > λ.
	sum, term := 1.0, 1.0
	for i := k + 1; term > 1e-12*sum && i < k+10000; i++ {
		term *= lambda / float64(i)
		sum += term
	}
	return math.Min(99, -(logPMF+math.Log(sum))/math.Ln10)
}
