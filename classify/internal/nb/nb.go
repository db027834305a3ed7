// Package nb is the multinomial naive-Bayes text model behind the built-in
// category classifier: the feature extraction, training and prediction that
// both the generator (classify/internal/train) and the classifier use, so
// the two can never disagree about what a feature is.
package nb

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Model is a trained multinomial naive-Bayes model. It is immutable after
// Finish and safe for concurrent use.
type Model struct {
	Classes []string `json:"classes"`
	// Prior is log P(class).
	Prior []float64 `json:"prior"`
	// Weights maps a feature to log P(feature|class), one per class.
	Weights map[string][]float64 `json:"weights"`
	// Unseen is log P(unseen feature|class), used for features not in Weights.
	Unseen []float64 `json:"unseen"`
}

// Doc is one training document; it may carry several classes (multi-hot).
type Doc struct {
	Text    string
	Classes []string
}

// stopwords carry no category signal and are left out of unigrams.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on at for with is are was were be been it its
		this that these those i me my we our you your he she they them their his her as by from so
		am do does did has have had just very also than then there here what which who`) {
		m[w] = true
	}
	return m
}()

// Words splits text into lower-case words of letters, digits and apostrophes.
// Numbers are folded into "<num>" so error codes generalise.
func Words(text string) []string {
	var out []string
	start := -1
	hasDigit := false
	emit := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(strings.ToLower(text[start:end]), "'")
		w = strings.ReplaceAll(w, "’", "'")
		if w != "" {
			if hasDigit {
				w = "<num>"
			}
			out = append(out, w)
		}
		start = -1
		hasDigit = false
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' {
			if start < 0 {
				start = i
			}
			if unicode.IsDigit(r) {
				hasDigit = true
			}
			continue
		}
		emit(i)
	}
	emit(len(text))
	return out
}

// Features are unigrams (without stop words) and bigrams of the words.
func Features(words []string) []string {
	out := make([]string, 0, 2*len(words))
	for i, w := range words {
		if !stopwords[w] && len(w) > 1 {
			out = append(out, w)
		}
		if i+1 < len(words) {
			out = append(out, w+" "+words[i+1])
		}
	}
	return out
}

// Train fits a model with Laplace smoothing alpha. Features seen fewer than
// minCount times in total are dropped to keep the model small.
func Train(docs []Doc, classes []string, alpha float64, minCount int) *Model {
	ci := map[string]int{}
	for i, c := range classes {
		ci[c] = i
	}
	counts := map[string][]float64{}
	totals := make([]float64, len(classes))
	docCounts := make([]float64, len(classes))
	for _, d := range docs {
		feats := Features(Words(d.Text))
		for _, c := range d.Classes {
			k, ok := ci[c]
			if !ok {
				continue
			}
			docCounts[k]++
			for _, f := range feats {
				v := counts[f]
				if v == nil {
					v = make([]float64, len(classes))
					counts[f] = v
				}
				v[k]++
			}
		}
	}
	// Prune rare features, then recount totals over what remains.
	for f, v := range counts {
		s := 0.0
		for _, x := range v {
			s += x
		}
		if s < float64(minCount) {
			delete(counts, f)
			continue
		}
		for k, x := range v {
			totals[k] += x
		}
	}
	vocab := float64(len(counts)) + 1
	m := &Model{Classes: classes, Prior: make([]float64, len(classes)), Unseen: make([]float64, len(classes)), Weights: make(map[string][]float64, len(counts))}
	nDocs := 0.0
	for _, n := range docCounts {
		nDocs += n
	}
	for k := range classes {
		m.Prior[k] = math.Log((docCounts[k] + 1) / (nDocs + float64(len(classes))))
		m.Unseen[k] = math.Log(alpha / (totals[k] + alpha*vocab))
	}
	for f, v := range counts {
		w := make([]float64, len(classes))
		for k := range classes {
			w[k] = round4(math.Log((v[k] + alpha) / (totals[k] + alpha*vocab)))
		}
		m.Weights[f] = w
	}
	return m
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Posterior returns P(class|features), in the order of m.Classes, written
// into dst (allocated when too short). Unknown features are ignored: they
// carry no evidence about the class.
func (m *Model) Posterior(feats []string, dst []float64) []float64 {
	if cap(dst) < len(m.Classes) {
		dst = make([]float64, len(m.Classes))
	}
	dst = dst[:len(m.Classes)]
	copy(dst, m.Prior)
	for _, f := range feats {
		w, ok := m.Weights[f]
		if !ok {
			continue
		}
		for k := range dst {
			dst[k] += w[k]
		}
	}
	// Normalise in log space; softmax.
	mx := math.Inf(-1)
	for _, x := range dst {
		if x > mx {
			mx = x
		}
	}
	sum := 0.0
	for k, x := range dst {
		dst[k] = math.Exp(x - mx)
		sum += dst[k]
	}
	for k := range dst {
		dst[k] /= sum
	}
	return dst
}

// TopFeatures lists the n features most indicative of class c, for
// inspection and documentation.
func (m *Model) TopFeatures(c string, n int) []string {
	k := -1
	for i, x := range m.Classes {
		if x == c {
			k = i
		}
	}
	if k < 0 {
		return nil
	}
	type fw struct {
		f string
		w float64
	}
	var l []fw
	for f, w := range m.Weights {
		other := math.Inf(-1)
		for j, x := range w {
			if j != k && x > other {
				other = x
			}
		}
		l = append(l, fw{f, w[k] - other})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].w > l[j].w || l[i].w == l[j].w && l[i].f < l[j].f })
	var out []string
	for i := 0; i < n && i < len(l); i++ {
		out = append(out, l[i].f)
	}
	return out
}

// IsStopword reports whether w is left out of the unigram features.
func IsStopword(w string) bool { return stopwords[w] }
