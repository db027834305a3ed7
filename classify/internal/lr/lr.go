// Package lr is a small, deterministic binary logistic regression over
// sparse features, trained by full-batch AdaGrad with L2 regularisation.
// The built-in classifier uses it for the category model (one model per
// label, multi-label) and for the sentiment correction. Training uses no
// randomness, so `go generate` always writes the same model.
package lr

import "math"

// Feature is one non-zero feature value of an example.
type Feature struct {
	Index int
	Value float64
}

// Example is a feature vector and its 0/1 label.
type Example struct {
	X []Feature
	Y bool
}

// Options control training.
type Options struct {
	L2     float64 // L2 penalty on the weights (not the bias), per example
	Epochs int     // full passes over the data
	Rate   float64 // AdaGrad base learning rate
	// PosWeight scales the loss of positive examples (1 = unweighted).
	PosWeight float64
}

// DefaultOptions are sensible for a few thousand short texts.
var DefaultOptions = Options{L2: 1e-3, Epochs: 200, Rate: 0.5, PosWeight: 1}

// Model is w·x + b squashed by the logistic function.
type Model struct {
	W []float64 `json:"w"`
	B float64   `json:"b"`
}

// Train fits a model over nFeat features.
func Train(data []Example, nFeat int, o Options) Model {
	if o.PosWeight == 0 {
		o.PosWeight = 1
	}
	w := make([]float64, nFeat)
	g := make([]float64, nFeat)
	hw := make([]float64, nFeat)
	var b, hb float64
	n := float64(len(data))
	if n == 0 {
		return Model{W: w}
	}
	for ep := 0; ep < o.Epochs; ep++ {
		for i := range g {
			g[i] = 0
		}
		gb := 0.0
		for _, ex := range data {
			z := b
			for _, f := range ex.X {
				z += w[f.Index] * f.Value
			}
			p := sigmoid(z)
			var d float64
			if ex.Y {
				d = (p - 1) * o.PosWeight
			} else {
				d = p
			}
			for _, f := range ex.X {
				g[f.Index] += d * f.Value
			}
			gb += d
		}
		for i := range w {
			gi := g[i]/n + o.L2*w[i]
			if gi == 0 {
				continue
			}
			hw[i] += gi * gi
			w[i] -= o.Rate * gi / (math.Sqrt(hw[i]) + 1e-8)
		}
		gb /= n
		hb += gb * gb
		b -= o.Rate * gb / (math.Sqrt(hb) + 1e-8)
	}
	return Model{W: w, B: b}
}

// Score is the raw margin w·x + b.
func (m Model) Score(x []Feature) float64 {
	z := m.B
	for _, f := range x {
		if f.Index < len(m.W) {
			z += m.W[f.Index] * f.Value
		}
	}
	return z
}

// Prob is P(y=1|x).
func (m Model) Prob(x []Feature) float64 { return sigmoid(m.Score(x)) }

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Round rounds the weights to 5 decimals so the model file stays small and
// stable.
func (m *Model) Round() {
	for i, x := range m.W {
		m.W[i] = math.Round(x*1e5) / 1e5
	}
	m.B = math.Round(m.B*1e5) / 1e5
}
