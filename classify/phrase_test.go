package classify

import (
	"strings"
	"testing"
)

// TestPhraseSetMatchesIndexWord: the one-pass phrase matcher finds exactly
// the phrases that indexWord finds, on every cue list of the classifier,
// over hand-written edge cases and the labelled posts.
func TestPhraseSetMatchesIndexWord(t *testing.T) {
	texts := []string{
		"", "crash", "crashes", "it crash", "crash!", "(crash)", "re-crash", "crash2", "2crash",
		"doesn't work", "doesnt work", "it doesn't work at all", "please add dark mode", "pleaseadd", "please  add",
		"would be great if", "i wish", "wish", "swish", "Ünïcödé crash", "écrash", "crash é", "日本語 crash 日本語",
		"error 502 and 503", "is down is down", "hacked hacked", "refund refund?", "\xff crash \xff", "data loss", "dataloss",
		"lost all my data!!", "this is fake news", "scam", "scams", "😡 worst support ever 😡", "love it, highly recommend",
	}
	for _, f := range []string{"Garmin-Connect.en.csv", "Huawei-Health.en.csv"} {
		for _, r := range loadMinibar(t, f) {
			texts = append(texts, r.Text)
		}
	}
	for _, r := range loadVader(t) {
		texts = append(texts, r.Text)
	}
	lists := map[string][]string{}
	for name, cl := range map[string]*cueList{"bug": bugCues, "idea": ideaCues, "complaint": complaintCues, "misinfo": misinfoCues, "praise": praiseCues} {
		for _, c := range cl.cues {
			lists[name] = append(lists[name], c.phrase)
		}
	}
	for _, s := range urgencySignals {
		lists["urgency "+s.name] = s.phrases
	}
	lists["odd"] = []string{"!!", ":(", "502", "é", "a", "crash é", " crash", "crash "}
	checked := 0
	for name, phrases := range lists {
		ps := newPhraseSet(phrases)
		for _, text := range texts {
			low := strings.ToLower(text)
			hit := make([]bool, len(phrases))
			any := ps.match(low, hit)
			want := false
			for i, p := range phrases {
				in := indexWord(low, p) >= 0
				want = want || in
				if hit[i] != in {
					t.Fatalf("%s: phrase %q in %q: matcher says %v, indexWord %v", name, p, low, hit[i], in)
				}
				checked++
			}
			if any != want {
				t.Fatalf("%s: %q: any %v want %v", name, low, any, want)
			}
		}
	}
	if checked < 100000 {
		t.Fatalf("only %d phrase checks ran", checked)
	}
}
