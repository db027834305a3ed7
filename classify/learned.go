package classify

import (
	_ "embed"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"earshot/classify/internal/sentmodel"
	"earshot/classify/internal/words"
)

// The learned layer of the sentiment classifier (internal/sentmodel): a
// three-class logistic regression over the lexicon score, the complaint
// rules' evidence and hashed words and bigrams, trained at `go generate`
// time on permissively licensed data (GoEmotions, VADER tweets, Mini-BAR
// star ratings; see NOTICE and internal/trainsent) and embedded as
// weights. The rules still decide where they are sure: a service failure
// told as fact is negative, praise for a solved problem positive.

//go:generate go run ./internal/trainsent -out sentiment_model.json

//go:embed sentiment_model.json
var sentimentModelJSON []byte

// sentimentModel is nil when the embedded file holds no model (a fresh
// checkout before `go generate` writes one is still buildable).
var sentimentModel = func() *sentmodel.Model {
	var m sentmodel.Model
	if err := json.Unmarshal(sentimentModelJSON, &m); err != nil {
		panic("classify: embedded sentiment model: " + err.Error())
	}
	if len(m.W) != 3 || m.Buckets <= 0 || len(m.Dense) != len(denseNames) {
		return nil
	}
	return &m
}()

// denseNames name the dense features, in column order.
var denseNames = []string{"lex", "lex<-0.5", "lex<-0.05", "lex~0", "lex>0.05", "lex>0.5", "pos", "neg",
	"fail", "told", "question", "demand", "sarcasm", "duration", "resolved", "praise", "grievance", "bugcue",
	"excl", "qmark", "url", "at", "hash", "emoji", "len<=5", "len<=12", "len<=25", "len>25", "negation", "laugh"}

// FeatureFingerprint identifies the learned layer's feature extraction:
// the dense features and every phrase list and weight they read. The
// generator stores it in the model; a test fails when the code's differs
// (a cue changed after the model was trained: run go generate ./classify).
func FeatureFingerprint() string {
	h := fnv.New64a()
	w := func(ss ...string) {
		for _, s := range ss {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	w(denseNames...)
	for _, c := range failureCues {
		w(c.phrase, strconv.FormatFloat(c.weight, 'g', -1, 64))
	}
	for _, cl := range []*cueList{bugCues, complaintCues, praiseCues} {
		for _, c := range cl.cues {
			w(c.phrase, strconv.FormatFloat(c.weight, 'g', -1, 64))
		}
	}
	for _, ps := range []*phraseSet{demandSet, sarcasmSet, resolutionSet} {
		w(ps.phrases...)
	}
	w(problemQuestions...)
	w(strconv.Itoa(SentimentBuckets))
	return strconv.FormatUint(h.Sum64(), 16)
}

// SentimentBuckets is the number of hashed columns of the learned layer.
const SentimentBuckets = 1 << 15

// DenseFeatureNames lists the learned layer's dense features (for the
// generator).
func DenseFeatureNames() []string { return denseNames }

// LearnedFeatures is the learned layer's input for one text, as the
// generator (internal/trainsent) trains it; hashtags are not split here
// (the split uses the model's own vocabulary).
func LearnedFeatures(text string) []sentmodel.Feature {
	a := analyze(text)
	cs := readCues(a.low)
	ce := detectComplaint(a.low, a.toks)
	return learnedFeatures(a, cs, ce, nil)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var laughWords = map[string]bool{"lol": true, "lmao": true, "lmfao": true, "haha": true, "hahaha": true, "rofl": true, "lolol": true}

func learnedFeatures(a analysis, cs cueScores, ce complaintEvidence, dst []sentmodel.Feature) []sentmodel.Feature {
	c := a.sent.Compound
	var pos, neg float64
	emoji, negation, laugh := false, false, false
	for _, t := range a.toks {
		if v, ok := lookup(t); ok {
			if v > 0 {
				pos += v
			} else {
				neg -= v
			}
		}
		emoji = emoji || t.emoji
		negation = negation || isNegation(t.low)
		laugh = laugh || laughWords[t.low]
	}
	n := len(a.words)
	dense := [...]float64{
		c, b2f(c < -0.5), b2f(c >= -0.5 && c < -0.05), b2f(c >= -0.05 && c <= 0.05), b2f(c > 0.05 && c <= 0.5), b2f(c > 0.5),
		pos / (2 + pos), neg / (2 + neg),
		min(ce.Score, 5) / 5, b2f(ce.Told()), b2f(ce.Question), b2f(ce.Demand), b2f(ce.Sarcasm), b2f(ce.Duration != ""), b2f(ce.Resolved),
		cs.praise / 4, cs.grievance / 4, cs.bug / 4,
		b2f(strings.Contains(a.text, "!")), b2f(strings.Contains(a.text, "?")), b2f(strings.Contains(a.low, "http")),
		b2f(strings.Contains(a.text, "@")), b2f(strings.Contains(a.text, "#")), b2f(emoji),
		b2f(n <= 5), b2f(n > 5 && n <= 12), b2f(n > 12 && n <= 25), b2f(n > 25), b2f(negation), b2f(laugh),
	}
	for i, v := range dense {
		if v != 0 {
			dst = append(dst, sentmodel.Feature{Index: i, Value: v})
		}
	}
	nd := len(denseNames)
	idx := func(p, w string) int { return sentmodel.Index(nd, SentimentBuckets, p, w) }
	negScope := 0
	for i, w := range a.clauses {
		if w == words.Break {
			negScope = 0
			continue
		}
		dst = append(dst, sentmodel.Feature{Index: idx("w:", w), Value: 1})
		if negScope > 0 {
			dst = append(dst, sentmodel.Feature{Index: idx("n:", w), Value: 1})
			negScope--
		}
		if isNegation(w) || w == "no" || w == "never" {
			negScope = 3
		}
		if i+1 < len(a.clauses) && a.clauses[i+1] != words.Break {
			dst = append(dst, sentmodel.Feature{Index: idx(w+" ", a.clauses[i+1]), Value: 1})
		}
	}
	for _, t := range a.toks {
		if t.emoji {
			dst = append(dst, sentmodel.Feature{Index: idx("e:", t.low), Value: 1})
		}
	}
	return dst
}

// learnedSentiment is the learned layer's label and P(pos) - P(neg), or
// ok=false when no model is embedded.
func learnedSentiment(a analysis, cs cueScores, ce complaintEvidence) (label string, score float64, ok bool) {
	m := sentimentModel
	if m == nil {
		return "", 0, false
	}
	var buf [128]sentmodel.Feature
	p := m.Probs(learnedFeatures(a, cs, ce, buf[:0]))
	best := 0
	for k := range p {
		if p[k] > p[best] {
			best = k
		}
	}
	return sentmodel.Classes[best], p[2] - p[0], true
}

// learnedVocab is the vocabulary of the learned sentiment model (frequent
// words of its training data), which the hashtag segmenter may use.
func learnedVocab() []string {
	if sentimentModel == nil {
		return nil
	}
	return sentimentModel.Vocab
}
