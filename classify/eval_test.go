package classify

import (
	"testing"
)

var sentimentLabels = []string{"negative", "neutral", "positive"}

func TestEvalSentimentVader(t *testing.T) {
	rows := loadVader(t)
	gold := make([]string, len(rows))
	pred := make([]string, len(rows))
	for i, r := range rows {
		gold[i] = vaderGold(r.Rating)
		pred[i] = ScoreSentiment(r.Text).Label
	}
	rep := Evaluate(gold, pred, sentimentLabels)
	t.Logf("VADER tweets (n=%d), 3-class, ±0.05 on rating/4:\n%s", len(rows), rep)
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
		pred[i] = ScoreSentiment(r.Text).Label
	}
	rep := Evaluate(gold, pred, sentimentLabels)
	t.Logf("TweetEval validation (n=%d): macro recall %.1f\n%s", len(rows), 100*rep.MacroR, rep)
	if rep.MacroR < 0.595 {
		t.Errorf("TweetEval macro recall %.3f below floor", rep.MacroR)
	}
}
