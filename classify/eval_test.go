package classify

import (
	"math"
	"testing"
)

var sentimentLabels = []string{"negative", "neutral", "positive"}

func TestEvalSentimentVader(t *testing.T) {
	rows := loadVader(t)
	gold := make([]string, len(rows))
	pred := make([]string, len(rows))
	ratings := make([]float64, len(rows))
	compounds := make([]float64, len(rows))
	for i, r := range rows {
		gold[i] = vaderGold(r.Rating)
		s := ScoreSentiment(r.Text)
		pred[i] = classifyForEval(r.Text).Sentiment
		ratings[i], compounds[i] = r.Rating, s.Compound
	}
	rep := Evaluate(gold, pred, sentimentLabels)
	// The learned layer trained on the even ids; the odd ones are held out.
	var hg, hp []string
	for i := 0; i < len(rows); i += 2 { // row i has id i+1
		hg, hp = append(hg, gold[i]), append(hp, pred[i])
	}
	held := Evaluate(hg, hp, sentimentLabels)
	t.Logf("VADER tweets, odd ids (held out from the learned layer's training), product output (n=%d):\n%s", len(hg), held)
	t.Logf("VADER tweets, all ids (the even half is training data of the learned layer), product output (n=%d), 3-class, ±0.05 on rating/4 (Pearson r of compound with the mean rating %.3f; the paper reports 0.881):\n%s",
		len(rows), pearson(ratings, compounds), rep)
	if rep.MacroF1 < 0.715 {
		t.Errorf("VADER macro-F1 %.3f below floor", rep.MacroF1)
	}
}

func TestEvalSentimentTweetEval(t *testing.T) {
	rows := loadTweetEval(t)
	gold := make([]string, len(rows))
	pred := make([]string, len(rows))
	for i, r := range rows {
		gold[i] = r.Label
		pred[i] = classifyForEval(r.Text).Sentiment
	}
	rep := Evaluate(gold, pred, sentimentLabels)
	t.Logf("TweetEval validation, product output (n=%d): macro recall %.1f\n%s", len(rows), 100*rep.MacroR, rep)
	if rep.MacroR < 0.60 {
		t.Errorf("TweetEval macro recall %.3f below floor", rep.MacroR)
	}
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	if n == 0 {
		return 0
	}
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}
