package classify

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"earshot/vocab"
)

// The frozen held-out split (issue 28). Every labelled evaluation row whose
// text hashes into bucket 0 of 5 is held out: no rule, cue list, threshold
// or weight may be chosen by reading its errors, and the numbers on it are
// reported apart from the development rows. The split is a pure function
// of the text, so it needs no file, survives reordering and new rows, and
// cannot drift; TestHeldOutSplitFrozen pins its sizes so that changing the
// function (which would silently leak tuned rows into it) fails.
//
// Rows that train a model (VADER even ids, GoEmotions train, Mini-BAR) are
// not in any split: they are training data.
func heldOut(text string) bool {
	h := sha256.Sum256([]byte(strings.TrimSpace(text)))
	return h[0]%5 == 0
}

// splitSet is one evaluation set cut into its development and held-out rows.
type splitSet struct {
	name           string
	gold, pred     []string
	goldC, predC   []string // categories, where labelled
	results        []Result
	held           []bool
	hasCategory    bool
	heldN, totalN  int
	sentimentFloor float64
}

func (s *splitSet) add(text, sentiment, category string) {
	r := classifyForEval(text)
	h := heldOut(text)
	s.gold, s.pred = append(s.gold, sentiment), append(s.pred, r.Sentiment)
	s.goldC, s.predC = append(s.goldC, category), append(s.predC, r.Category)
	s.results = append(s.results, r)
	s.held = append(s.held, h)
	s.totalN++
	if h {
		s.heldN++
	}
}

// part returns the rows of one side of the split.
func (s *splitSet) part(held bool) (gold, pred, goldC []string, res []Result) {
	var predC []string
	for i := range s.gold {
		if s.held[i] == held {
			gold, pred = append(gold, s.gold[i]), append(pred, s.pred[i])
			goldC, predC = append(goldC, s.goldC[i]), append(predC, s.predC[i])
			res = append(res, s.results[i])
		}
	}
	_ = predC
	return gold, pred, goldC, res
}

func (s *splitSet) report() string {
	var b strings.Builder
	for _, held := range []bool{false, true} {
		gold, pred, goldC, res := s.part(held)
		side := "dev"
		if held {
			side = "HELD-OUT"
		}
		sent := Evaluate(gold, pred, sentimentLabels)
		fmt.Fprintf(&b, "%s %s (n=%d): sentiment macro-F1 %.3f, macro recall %.3f", s.name, side, len(gold), sent.MacroF1, sent.MacroR)
		if s.hasCategory {
			predC := make([]string, len(res))
			for i, r := range res {
				predC[i] = r.Category
			}
			cat := Evaluate(goldC, predC, vocab.Categories)
			fmt.Fprintf(&b, ", category macro-F1 %.3f; %s", cat.MacroF1, scoreTriage(goldC, res))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func splitSets(t *testing.T) []*splitSet {
	var sets []*splitSet
	cust := &splitSet{name: "customer posts (posts.tsv + heldout.tsv)", hasCategory: true}
	for _, f := range []string{"posts.tsv", "heldout.tsv"} {
		for _, r := range loadCustomerPosts(t, f) {
			cust.add(r.Text, r.Sentiment, r.Category)
		}
	}
	sets = append(sets, cust)
	vader := &splitSet{name: "VADER tweets, odd ids"}
	for i, r := range loadVader(t) {
		if i%2 == 0 { // id i+1 odd: never trained the learned layer
			vader.add(r.Text, vaderGold(r.Rating), "")
		}
	}
	sets = append(sets, vader)
	if data := sharedDataDir(); data != "" {
		te := &splitSet{name: "TweetEval validation"}
		for _, r := range loadTweetEvalOptional(t) {
			te.add(r.Text, r.Label, "")
		}
		if te.totalN > 0 {
			sets = append(sets, te)
		}
		ge := &splitSet{name: "GoEmotions test"}
		for _, r := range loadGoEmotionsOptional(t, "test") {
			ge.add(r.Text, r.Sentiment, "")
		}
		if ge.totalN > 0 {
			sets = append(sets, ge)
		}
	}
	return sets
}

// loadTweetEvalOptional and loadGoEmotionsOptional return nil instead of
// skipping when the shared data is absent, so the customer and VADER sets
// are still scored.
func loadTweetEvalOptional(t *testing.T) (rows []tweetEvalRow) {
	ok := t.Run("load-tweeteval", func(t *testing.T) { rows = loadTweetEval(t) })
	if !ok {
		return nil
	}
	return rows
}

func loadGoEmotionsOptional(t *testing.T, split string) (rows []goEmotionsRow) {
	ok := t.Run("load-goemotions-"+split, func(t *testing.T) { rows = loadGoEmotions(t, split) })
	if !ok {
		return nil
	}
	return rows
}

// TestEvalSplit reports every evaluation set's development and frozen
// held-out numbers separately (EVAL.md, "Frozen held-out split").
func TestEvalSplit(t *testing.T) {
	for _, s := range splitSets(t) {
		t.Log(s.report())
	}
}

// TestHeldOutSplitFrozen pins the split: the number of held-out rows of
// the committed customer sets and the VADER odd ids.
func TestHeldOutSplitFrozen(t *testing.T) {
	count := func(texts []string) (n int) {
		for _, x := range texts {
			if heldOut(x) {
				n++
			}
		}
		return n
	}
	var cust, vader []string
	for _, f := range []string{"posts.tsv", "heldout.tsv"} {
		for _, r := range loadCustomerPosts(t, f) {
			cust = append(cust, r.Text)
		}
	}
	for i, r := range loadVader(t) {
		if i%2 == 0 {
			vader = append(vader, r.Text)
		}
	}
	got := [2]int{count(cust), count(vader)}
	want := [2]int{59, 443}
	if got != want {
		t.Errorf("held-out rows (customer, VADER odd ids) = %v, want %v: the split function or the data changed", got, want)
	}
}
