// Package sentmodel is the learned layer of the built-in sentiment
// classifier: a three-class (negative, neutral, positive) logistic
// regression over dense rule features (the lexicon score, the complaint
// rules' evidence, punctuation, length) and hashed words, bigrams and
// negated words. The classifier computes the features (classify's
// learnedFeatures); this package hashes, trains and predicts. Training is
// full-batch AdaGrad with no randomness, so `go generate` always writes the
// same model from the same data.
package sentmodel

import "math"

// Classes are the model's classes, in the order of its rows.
var Classes = []string{"negative", "neutral", "positive"}

// Feature is one non-zero feature: an index into the model's columns and
// its value.
type Feature struct {
	Index int
	Value float64
}

// Model is the trained layer. Columns 0..len(Dense)-1 are the dense
// features, then Buckets hashed ones.
type Model struct {
	Classes []string    `json:"classes"`
	Dense   []string    `json:"dense"` // names of the dense features, for reading the file
	Buckets int         `json:"buckets"`
	W       [][]float32 `json:"w"` // per class, one weight per column
	B       []float64   `json:"b"`
	// Vocab is the training data's frequent words, which the hashtag
	// segmenter may use (words, not texts).
	Vocab []string `json:"vocab,omitempty"`
	// Trained records what the model was trained on, for the NOTICE and
	// EVAL.md.
	Trained string `json:"trained,omitempty"`
	// Features fingerprints the feature extraction the model was trained
	// with (classify's FeatureFingerprint); a model whose fingerprint
	// differs from the code's was trained on other features.
	Features string `json:"features,omitempty"`
}

// FNV-1a, inlined so hashing a feature allocates nothing.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

func fnvAdd(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime
	}
	return h
}

// Index maps a sparse feature, named by the concatenation of parts, to its
// column after nDense dense ones. Index(n, b, "n:", "good") is the column of
// the feature "n:good".
func Index(nDense, buckets int, a, b string) int {
	h := fnvAdd(fnvAdd(fnvOffset, a), b)
	return nDense + int(h%uint32(buckets))
}

// Probs returns P(class | x), indexed like Classes.
func (m *Model) Probs(x []Feature) [3]float64 {
	var z [3]float64
	for k := range z {
		z[k] = m.B[k]
		w := m.W[k]
		for _, f := range x {
			if f.Index < len(w) {
				z[k] += float64(w[f.Index]) * f.Value
			}
		}
	}
	return softmax(z)
}

func softmax(z [3]float64) [3]float64 {
	mx := math.Max(z[0], math.Max(z[1], z[2]))
	var s float64
	for k := range z {
		z[k] = math.Exp(z[k] - mx)
		s += z[k]
	}
	for k := range z {
		z[k] /= s
	}
	return z
}

// Example is one training example: features, class (index into Classes)
// and weight.
type Example struct {
	X      []Feature
	Y      int
	Weight float64
}

// Options control training.
type Options struct {
	L2     float64 // penalty on the weights, per unit of example weight
	Epochs int
	Rate   float64 // AdaGrad base rate
}

// Train fits the model's weights over nCols columns.
func Train(data []Example, nCols int, o Options) (w [][]float32, b []float64) {
	W := make([][]float64, 3)
	G := make([][]float64, 3)
	H := make([][]float64, 3)
	for k := range W {
		W[k] = make([]float64, nCols)
		G[k] = make([]float64, nCols)
		H[k] = make([]float64, nCols)
	}
	B := make([]float64, 3)
	HB := make([]float64, 3)
	total := 0.0
	for _, ex := range data {
		total += ex.Weight
	}
	if total == 0 {
		total = 1
	}
	for ep := 0; ep < o.Epochs; ep++ {
		for k := range G {
			clear(G[k])
		}
		var gb [3]float64
		for _, ex := range data {
			var z [3]float64
			for k := range z {
				z[k] = B[k]
				for _, f := range ex.X {
					z[k] += W[k][f.Index] * f.Value
				}
			}
			p := softmax(z)
			for k := range p {
				d := p[k]
				if k == ex.Y {
					d -= 1
				}
				d *= ex.Weight
				if d == 0 {
					continue
				}
				for _, f := range ex.X {
					G[k][f.Index] += d * f.Value
				}
				gb[k] += d
			}
		}
		for k := range W {
			for i := range W[k] {
				g := G[k][i]/total + o.L2*W[k][i]
				if g == 0 {
					continue
				}
				H[k][i] += g * g
				W[k][i] -= o.Rate * g / (math.Sqrt(H[k][i]) + 1e-8)
			}
			g := gb[k] / total
			HB[k] += g * g
			B[k] -= o.Rate * g / (math.Sqrt(HB[k]) + 1e-8)
		}
	}
	w = make([][]float32, 3)
	for k := range W {
		w[k] = make([]float32, nCols)
		for i, x := range W[k] {
			w[k][i] = float32(math.Round(x*1e4) / 1e4)
		}
		B[k] = math.Round(B[k]*1e4) / 1e4
	}
	return w, B
}
