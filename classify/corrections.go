package classify

import (
	"math"
	"slices"
	"strings"
)

// Corrections that teach (issue 28). A person corrects a mention's
// category or sentiment; the project's corrections train a CorrectionModel
// the same way triage trains the RelevanceModel: per project, retrained
// when the corrections change, linear in their length, and read by the
// built-in classifier for every later post of the project. It only speaks
// when the words of a post are clearly those of one corrected class, so a
// handful of corrections moves the posts like them and leaves the rest to
// the rules.

// Correction is one human label: the post's text and the category and/or
// sentiment a person gave it ("" for a field not corrected).
type Correction struct {
	Text      string
	Category  string
	Sentiment string
}

// MaxCorrections bounds what trains a project's model (the most recent
// corrections), so its cost is bounded however many a team makes.
const MaxCorrections = 2000

// CorrectionModel is a project's classes learned from corrections. It is
// immutable and safe for concurrent use; retrain to update it.
type CorrectionModel struct {
	category, sentiment labelModel
	n                   int
}

// labelModel finds the corrected posts most like a new one: an inverted
// index from a word to the corrected posts that hold it, words weighed by
// their rarity among the corrections (idf), cosine similarity. A post
// takes the label of the most similar corrected post when they share
// enough of their words (correctionSimilarity); otherwise the rules keep
// it. A learned model of word weights was tried first and hurt on the
// learning curve: a few corrections make every frequent word a class's.
type labelModel struct {
	postings map[string][]int32 // word -> corrected posts holding it
	idf      map[string]float64
	norm     []float64
	label    []string
}

// correctionSimilarity is the cosine similarity a post needs with a
// corrected one to take its label. Chosen on the development rows of the
// customer set and on Mini-BAR Garmin (TestCorrectionLearningCurve),
// never on the held-out rows or on Huawei.
const correctionSimilarity = 0.5

// TrainCorrections learns from a project's corrections (at most
// MaxCorrections of them, the first ones given: pass the most recent
// first). Nil when there is nothing to learn. Linear in their length.
func TrainCorrections(cs []Correction) *CorrectionModel {
	if len(cs) > MaxCorrections {
		cs = cs[:MaxCorrections]
	}
	var catEx, sentEx []labelled
	for _, c := range cs {
		ws := relevanceWords(c.Text)
		if c.Category != "" {
			catEx = append(catEx, labelled{ws, c.Category})
		}
		if c.Sentiment != "" {
			sentEx = append(sentEx, labelled{ws, c.Sentiment})
		}
	}
	if len(catEx) == 0 && len(sentEx) == 0 {
		return nil
	}
	return &CorrectionModel{n: len(cs), category: indexLabels(catEx), sentiment: indexLabels(sentEx)}
}

type labelled struct {
	words []string
	label string
}

func indexLabels(ex []labelled) labelModel {
	lm := labelModel{postings: map[string][]int32{}, idf: map[string]float64{}}
	for i, e := range ex {
		seen := map[string]bool{}
		for _, w := range e.words {
			if !seen[w] {
				seen[w] = true
				lm.postings[w] = append(lm.postings[w], int32(i))
			}
		}
		lm.label = append(lm.label, e.label)
	}
	n := float64(len(ex))
	for w, ps := range lm.postings {
		lm.idf[w] = math.Log((n+1)/float64(len(ps))) + 1
	}
	lm.norm = make([]float64, len(ex))
	for w, ps := range lm.postings {
		for _, p := range ps {
			lm.norm[p] += lm.idf[w] * lm.idf[w]
		}
	}
	for i := range lm.norm {
		lm.norm[i] = math.Sqrt(lm.norm[i])
	}
	return lm
}

// Count is how many corrections trained the model.
func (m *CorrectionModel) Count() int {
	if m == nil {
		return 0
	}
	return m.n
}

// predict returns the label of the corrected post most like words, the
// similarity and the rarest word they share, or "" when none is similar
// enough. Words unknown to the corrections weigh as the rarest known ones
// (they make the post less like any corrected one).
func (lm *labelModel) predict(words []string, exclude []string) (label string, score float64, cue string) {
	if len(lm.label) == 0 {
		return "", 0, ""
	}
	unknown := math.Log(float64(len(lm.label))+1) + 1
	dot := map[int32]float64{}
	var norm float64
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		if seen[w] || excluded(w, exclude) {
			continue
		}
		seen[w] = true
		idf, ok := lm.idf[w]
		if !ok {
			norm += unknown * unknown
			continue
		}
		norm += idf * idf
		for _, p := range lm.postings[w] {
			dot[p] += idf * idf
		}
	}
	if norm == 0 {
		return "", 0, ""
	}
	best := int32(-1)
	for p, d := range dot {
		sim := d / (math.Sqrt(norm) * lm.norm[p])
		if sim > score || sim == score && p < best {
			best, score = p, sim
		}
	}
	if best < 0 || score < correctionSimilarity {
		return "", score, ""
	}
	for _, w := range words { // the rarest shared word, for the reason
		if slices.Contains(lm.postings[w], best) && (cue == "" || lm.idf[w] > lm.idf[cue]) {
			cue = w
		}
	}
	return lm.label[best], score, cue
}

func excluded(w string, exclude []string) bool {
	for _, e := range exclude {
		if w == e || strings.Contains(e, w) && strings.Contains(e, " ") {
			return true
		}
	}
	return false
}

// Predict returns the category and sentiment the project's corrections
// teach for text ("" where they teach nothing), ignoring the brand terms
// (they occur in every post).
func (m *CorrectionModel) Predict(text string, exclude []string) (category, sentiment string) {
	if m == nil {
		return "", ""
	}
	ws := relevanceWords(text)
	category, _, _ = m.category.predict(ws, exclude)
	sentiment, _, _ = m.sentiment.predict(ws, exclude)
	return category, sentiment
}
