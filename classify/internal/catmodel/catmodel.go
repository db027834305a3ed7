// Package catmodel is the learned part of the built-in category classifier:
// one logistic-regression model per label (bug_report, product_idea), so a
// review can be both a bug report and a product idea, with a decision
// threshold per label chosen by cross-validation on the training data only.
// Feature extraction lives here so the generator (classify/internal/train),
// the evaluation and the classifier cannot disagree about what a feature is.
package catmodel

import (
	"math"
	"sort"
	"strings"

	"earshot/classify/internal/lr"
	"earshot/classify/internal/words"
)

// Labels are the labels the model predicts, in the order of Model's slices.
var Labels = []string{"bug_report", "product_idea"}

// Doc is one training document with its 0/1 labels, indexed like Labels.
type Doc struct {
	Text   string
	Labels []bool
}

// Model holds a weight per feature and label, a bias and a threshold per
// label. It is immutable after training and safe for concurrent use.
type Model struct {
	Labels    []string             `json:"labels"`
	Weights   map[string][]float64 `json:"weights"`
	Bias      []float64            `json:"bias"`
	Threshold []float64            `json:"threshold"`
	L2        []float64            `json:"l2"` // the penalty cross-validation chose, per label
}

var negators = map[string]bool{"not": true, "no": true, "never": true, "cannot": true, "cant": true, "wont": true,
	"dont": true, "doesnt": true, "didnt": true, "isnt": true, "nothing": true, "without": true, "nor": true}

func isNeg(w string) bool { return negators[w] || strings.HasSuffix(w, "n't") }

// cuePhrases are phrases that signal a label in app reviews. Each one found
// is a feature of its own, and the counts per group are features too, so the
// model learns how much each matters from the data.
var cuePhrases = map[string][]string{
	"idea": {"please add", "pls add", "please make", "please bring", "please include", "please consider", "please allow",
		"please let", "please give", "please provide", "please implement", "please support", "would be nice",
		"would be great", "would be good", "would be awesome", "would be helpful", "would be better", "would love",
		"would like", "i'd like", "i'd love", "wish", "i hope", "hope you", "should have", "should add", "should be able",
		"option to", "ability to", "feature", "bring back", "add a", "add an", "add the", "add more", "add support",
		"support for", "can you add", "could you add", "could add", "why not", "how about", "suggest", "suggestion",
		"request", "missing", "lacks", "lacking", "needs a", "needs to", "need a", "needs more", "integrate",
		"integration", "allow", "let us", "let me", "customize", "customise", "widget", "dark mode", "no option",
		"no way to", "there is no", "there's no", "isn't there", "is there a way", "it would be", "instead of",
		"more options", "improve", "improvement", "make it possible", "would", "could",
		"should", "can you", "can we", "i want", "it'd be", "i'd", "needs", "need to", "add", "option",
		"options", "setting", "settings", "able to", "let"},
	"bug": {"crash", "crashes", "crashing", "crashed", "doesn't work", "does not work", "not working", "stopped working",
		"won't", "can't", "cannot", "unable to", "fails", "failed", "error", "bug", "bugs", "buggy", "glitch", "freeze",
		"freezes", "frozen", "stuck", "broken", "not sync", "won't sync", "doesn't sync", "not syncing", "sync",
		"disconnect", "disconnects", "connect", "connection", "pair", "pairing", "not loading", "won't load", "won't open",
		"after the update", "since the update", "after update", "since update", "latest update", "last update",
		"please fix", "fix", "not showing", "doesn't show", "not show", "lost", "missing data", "no data", "login",
		"log in", "sign in", "keeps", "no longer", "anymore", "problem", "issue", "issues", "wrong", "incorrect",
		"inaccurate", "not accurate", "slow", "lag", "drain", "battery", "reinstall", "uninstall", "restart", "reset"},
}

type cueEntry struct {
	phrase string
	words  []string
	group  int // 0 bug, 1 idea
}

// cueIndex maps a cue phrase's first word to the phrases starting with it.
var cueIndex = func() map[string][]cueEntry {
	m := map[string][]cueEntry{}
	for g, name := range [2]string{"bug", "idea"} {
		for _, p := range cuePhrases[name] {
			ws := strings.Fields(p)
			m[ws[0]] = append(m[ws[0]], cueEntry{phrase: p, words: ws, group: g})
		}
	}
	return m
}()

func matchAt(words []string, i int, phrase []string) bool {
	if i+len(phrase) > len(words) {
		return false
	}
	for j, w := range phrase {
		if words[i+j] != w {
			return false
		}
	}
	return true
}

// Features lists the features of a text: unigrams (without stop words) and
// their stems ("s:" prefix), bigrams, words in the scope of a negation ("n:"
// prefix, up to three words or the end of the clause), cue phrases ("c:"),
// cue-group counts and a length bucket. Duplicates are removed.
func Features(text string) []string { return FeaturesOf(words.WithBreaks(text)) }

// FeaturesOf is Features of a text already split by words.WithBreaks.
func FeaturesOf(ws []string) []string {
	out := make([]string, 0, 3*len(ws)+8)
	neg := 0
	for i, w := range ws {
		if w == words.Break {
			neg = 0
			continue
		}
		if !words.IsStopword(w) && len(w) > 1 {
			out = append(out, w, "s:"+stem(w))
		}
		if neg > 0 && !words.IsStopword(w) {
			out = append(out, "n:"+w)
		}
		if neg > 0 {
			neg--
		}
		if isNeg(w) {
			neg = 3
		}
		if i+1 < len(ws) && ws[i+1] != words.Break {
			out = append(out, w+" "+ws[i+1])
		}
	}
	// Cue phrases, matched word by word from an index on their first word.
	var groupCount [2]int
	for i, w := range ws {
		for _, c := range cueIndex[w] {
			if matchAt(ws, i, c.words) {
				out = append(out, "c:"+c.phrase)
				groupCount[c.group]++
			}
		}
	}
	for g, name := range [2]string{"bug", "idea"} {
		n := groupCount[g]
		switch {
		case n >= 3:
			out = append(out, "g:"+name+"3")
			fallthrough
		case n >= 2:
			out = append(out, "g:"+name+"2")
			fallthrough
		case n >= 1:
			out = append(out, "g:"+name+"1")
		}
	}
	nw := 0
	for _, w := range ws {
		if w != words.Break {
			nw++
		}
	}
	switch {
	case nw <= 3:
		out = append(out, "len:tiny")
	case nw <= 8:
		out = append(out, "len:short")
	case nw <= 25:
		out = append(out, "len:mid")
	default:
		out = append(out, "len:long")
	}
	sort.Strings(out)
	k := 0
	for i, f := range out {
		if i == 0 || f != out[k-1] {
			out[k] = f
			k++
		}
	}
	return out[:k]
}

// stem strips one common inflectional suffix, so "adding", "added" and
// "adds" share the feature "s:add" (and "options" shares "s:option"): a
// crude stemmer, but it lets evidence carry across word forms, which helps
// most when the model is applied to reviews of another app.
func stem(w string) string {
	for _, suf := range [...]string{"ing", "ed", "es", "s", "ly"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// Options control training.
type Options struct {
	MinDocs int       // features in fewer training documents are dropped
	Folds   int       // cross-validation folds for choosing L2 and the thresholds
	L2      []float64 // candidate L2 penalties; cross-validation picks one
	LR      lr.Options
}

// DefaultOptions are the settings the shipped model and the evaluation use.
var DefaultOptions = Options{MinDocs: 2, Folds: 5, L2: []float64{1e-4, 1e-3, 1e-2},
	LR: lr.Options{Epochs: 300, Rate: 0.3, PosWeight: 1}}

// Train fits one model per label on docs. The L2 penalty and each label's
// threshold are chosen by Folds-fold cross-validation within docs (folds by
// position, so training is deterministic): each label gets the penalty with
// its best out-of-fold F1, and the threshold that maximises that F1.
func Train(docs []Doc, o Options) *Model {
	feats := make([][]string, len(docs))
	for i, d := range docs {
		feats[i] = Features(d.Text)
	}
	if len(o.L2) == 0 {
		o.L2 = []float64{o.LR.L2}
	}
	if o.Folds < 2 {
		o.LR.L2 = o.L2[0]
		m := fit(docs, feats, o)
		for range Labels {
			m.Threshold = append(m.Threshold, 0.5)
			m.L2 = append(m.L2, o.L2[0])
		}
		return m
	}
	// Each label gets the penalty with its best out-of-fold F1.
	bestF := make([]float64, len(Labels))
	bestL2 := make([]float64, len(Labels))
	bestTh := make([]float64, len(Labels))
	for k := range bestF {
		bestF[k] = -1
	}
	for _, l2 := range o.L2 {
		o.LR.L2 = l2
		th, f1 := crossValidate(docs, feats, o)
		for k := range Labels {
			if f1[k] > bestF[k]+1e-12 {
				bestF[k], bestL2[k], bestTh[k] = f1[k], l2, th[k]
			}
		}
	}
	fits := map[float64]*Model{}
	for _, l2 := range bestL2 {
		if fits[l2] == nil {
			o.LR.L2 = l2
			fits[l2] = fit(docs, feats, o)
		}
	}
	m := &Model{Labels: Labels, Weights: map[string][]float64{}, Threshold: bestTh, L2: bestL2}
	for k, l2 := range bestL2 {
		fm := fits[l2]
		m.Bias = append(m.Bias, fm.Bias[k])
		for f, w := range fm.Weights {
			if w[k] == 0 {
				continue
			}
			if m.Weights[f] == nil {
				m.Weights[f] = make([]float64, len(Labels))
			}
			m.Weights[f][k] = w[k]
		}
	}
	return m
}

// crossValidate returns, per label, the threshold with the best out-of-fold
// F1 and that F1.
func crossValidate(docs []Doc, feats [][]string, o Options) (th, f1s []float64) {
	probs := make([][]float64, len(Labels))
	for k := range probs {
		probs[k] = make([]float64, len(docs))
	}
	for f := 0; f < o.Folds; f++ {
		var trD []Doc
		var trF [][]string
		for i := range docs {
			if i%o.Folds != f {
				trD = append(trD, docs[i])
				trF = append(trF, feats[i])
			}
		}
		fm := fit(trD, trF, o)
		for i := range docs {
			if i%o.Folds == f {
				p := fm.Probs(feats[i], nil)
				for k := range Labels {
					probs[k][i] = p[k]
				}
			}
		}
	}
	for k := range Labels {
		best, bestF := 0.5, -1.0
		for ti := 10; ti <= 90; ti++ {
			t := float64(ti) / 100
			tp, fp, fn := 0, 0, 0
			for i, d := range docs {
				p := probs[k][i] >= t
				switch {
				case p && d.Labels[k]:
					tp++
				case p:
					fp++
				case d.Labels[k]:
					fn++
				}
			}
			f1 := 0.0
			if tp > 0 {
				f1 = 2 * float64(tp) / float64(2*tp+fp+fn)
			}
			if f1 > bestF+1e-12 {
				best, bestF = t, f1
			}
		}
		th = append(th, best)
		f1s = append(f1s, bestF)
	}
	return th, f1s
}

func fit(docs []Doc, feats [][]string, o Options) *Model {
	df := map[string]int{}
	for _, fs := range feats {
		for _, f := range fs {
			df[f]++
		}
	}
	names := make([]string, 0, len(df))
	for f, n := range df {
		if n >= o.MinDocs {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	index := make(map[string]int, len(names))
	for i, f := range names {
		index[f] = i
	}
	xs := make([][]lr.Feature, len(docs))
	for i, fs := range feats {
		for _, f := range fs {
			if j, ok := index[f]; ok {
				xs[i] = append(xs[i], lr.Feature{Index: j, Value: 1})
			}
		}
	}
	m := &Model{Labels: Labels, Weights: make(map[string][]float64, len(names))}
	for _, f := range names {
		m.Weights[f] = make([]float64, len(Labels))
	}
	for k := range Labels {
		ex := make([]lr.Example, len(docs))
		for i, d := range docs {
			ex[i] = lr.Example{X: xs[i], Y: d.Labels[k]}
		}
		lm := lr.Train(ex, len(names), o.LR)
		lm.Round()
		for i, f := range names {
			m.Weights[f][k] = lm.W[i]
		}
		m.Bias = append(m.Bias, lm.B)
	}
	// Drop features whose weights all rounded to zero.
	for f, w := range m.Weights {
		zero := true
		for _, x := range w {
			if x != 0 {
				zero = false
			}
		}
		if zero {
			delete(m.Weights, f)
		}
	}
	return m
}

// Probs returns P(label|features) per label, written into dst.
func (m *Model) Probs(feats []string, dst []float64) []float64 {
	if cap(dst) < len(m.Labels) {
		dst = make([]float64, len(m.Labels))
	}
	dst = dst[:len(m.Labels)]
	copy(dst, m.Bias)
	for _, f := range feats {
		if w, ok := m.Weights[f]; ok {
			for k := range dst {
				dst[k] += w[k]
			}
		}
	}
	for k, z := range dst {
		dst[k] = 1 / (1 + math.Exp(-z))
	}
	return dst
}
