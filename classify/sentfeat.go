package classify

import (
	"math"
	"strings"

	"earshot/classify/internal/lr"
)

// sentFeatureCount is the number of features sentFeatures writes.
const sentFeatureCount = 14

// sentFeatures describes a text for the learned sentiment correction: the
// rule engine's measurements plus a few surface cues of neutral,
// informational posts (links, questions, check-ins).
func sentFeatures(text string, d sentDetail, dst []lr.Feature) []lr.Feature {
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	mixed := math.Min(d.Pos, d.Neg)
	q := strings.Count(text, "?")
	ex := strings.Count(text, "!")
	if ex > 4 {
		ex = 4
	}
	low := strings.ToLower(text)
	hitRate := 0.0
	if d.Tokens > 0 {
		hitRate = float64(d.Hits) / float64(d.Tokens)
	}
	vals := [sentFeatureCount]float64{
		d.Compound,
		math.Abs(d.Compound),
		math.Log1p(d.Pos),
		math.Log1p(d.Neg),
		math.Log1p(mixed),
		math.Log1p(float64(d.Hits)),
		math.Log1p(float64(d.Tokens)) / 3,
		b2f(strings.Contains(low, "http") || strings.Contains(low, "www.")),
		b2f(q > 0),
		float64(ex) / 4,
		b2f(strings.HasPrefix(low, "@") || strings.HasPrefix(low, "rt ")),
		b2f(d.Hits == 0),
		hitRate,
		b2f(strings.HasPrefix(low, "i'm at ") || strings.Contains(low, " news") || strings.HasPrefix(low, "new post")),
	}
	for i, v := range vals {
		if v != 0 {
			dst = append(dst, lr.Feature{Index: i, Value: v})
		}
	}
	return dst
}
