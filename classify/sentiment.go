package classify

import (
	"bufio"
	_ "embed"
	"math"
	"strconv"
	"strings"
)

// The sentiment scorer follows the approach of VADER (Hutto & Gilbert 2014):
// a valence lexicon, then rules for negation, boosters and dampeners,
// capitalisation, punctuation emphasis and "but", summed and squashed into a
// compound score in -1..1. The constants are the ones the paper describes;
// the code is Earshot's own.

//go:embed lexicon.txt
var lexiconText string

const (
	boosterIncrement = 0.293 // change in valence a booster word adds
	capsIncrement    = 0.733 // change an ALL-CAPS word adds in mixed-case text
	negationScalar   = -0.74 // a negated word's valence is multiplied by this
	compoundAlpha    = 15.0  // normalisation constant for the compound score
	neutralThreshold = 0.05  // |compound| below this is neutral
)

var lexicon = parseLexicon(lexiconText)

func parseLexicon(text string) map[string]float64 {
	m := make(map[string]float64, 1500)
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' && len(line) > 1 && line[1] == ' ' || line == "#" {
			continue
		}
		i := strings.LastIndexAny(line, " \t")
		if i <= 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		m[strings.TrimSpace(line[:i])] = v
	}
	return m
}

var boosters = func() map[string]float64 {
	m := map[string]float64{}
	for _, w := range strings.Fields(`absolutely amazingly awfully completely considerably crazy decidedly deeply
		effing enormously entirely especially exceptionally extremely fabulously flippin flipping frickin
		fricking friggin frigging fucking fully freaking freakin greatly hella highly hugely incredibly
		intensely majorly more most particularly purely quite really remarkably so soo sooo soooo substantially super
		thoroughly too totally tremendously uber unbelievably unusually utterly very mega insanely ridiculously`) {
		m[w] = boosterIncrement
	}
	for _, w := range strings.Fields(`almost barely hardly kinda less little marginally occasionally partly
		scarcely slightly somewhat sorta`) {
		m[w] = -boosterIncrement
	}
	return m
}()

var negations = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`not no nor never none nothing nobody nowhere neither without cannot
		aint ain't isnt isn't arent aren't wasnt wasn't werent weren't dont don't doesnt doesn't didnt didn't
		cant can't couldnt couldn't wont won't wouldnt wouldn't shouldnt shouldn't hasnt hasn't havent haven't
		hadnt hadn't mustnt mustn't neednt needn't darent daren't mightnt mightn't uh-uh nope`) {
		m[w] = true
	}
	return m
}()

func isNegation(w string) bool {
	return negations[w] || strings.HasSuffix(w, "n't")
}

// sarcasmMarkers flip a positive reading: "great, it crashed again /s".
var sarcasmMarkers = []string{"/s", "#sarcasm", "#not", "yeah right", "sarcasm", "oh great", "just great", "thanks for nothing", "thanks a lot"}

// phraseValences are multi-word expressions whose meaning is not the sum of
// their words.
var phraseValences = []struct {
	phrase string
	v      float64
}{
	{"the bomb", 3.0}, {"the shit", 3.0}, {"bad ass", 1.5}, {"badass", 1.5}, {"kiss of death", -1.5},
	{"yeah right", -2.0}, {"cut the mustard", 2.0}, {"hand to mouth", -2.0}, {"no worries", 1.5},
	{"no problem", 1.2}, {"no problems", 1.2}, {"not bad", 1.5}, {"piece of crap", -2.8}, {"piece of junk", -2.8},
	{"waste of money", -2.7}, {"waste of time", -2.5}, {"rip off", -2.5}, {"high five", 1.8},
	{"thumbs up", 1.8}, {"thumbs down", -1.8}, {"go to hell", -3.0}, {"fed up", -2.0}, {"sick of", -2.2},
	{"tired of", -1.8}, {"let down", -1.8}, {"falls apart", -2.0}, {"screwed up", -2.2}, {"messed up", -2.0},
	{"love it", 0.5}, {"must have", 1.5}, {"must-have", 1.5}, {"game changer", 2.0}, {"game-changer", 2.0},
	{"well done", 2.0}, {"top notch", 2.5}, {"top-notch", 2.5}, {"5 stars", 2.0}, {"five stars", 2.0},
	{"1 star", -2.0}, {"one star", -2.0}, {"zero stars", -2.5}, {"0 stars", -2.5}, {"doesn't work", -1.5},
	{"does not work", -1.5}, {"not working", -1.5}, {"stopped working", -2.0}, {"won't work", -1.5},
}

// Sentiment is the outcome of the sentiment rules.
type Sentiment struct {
	Label    string  // positive, neutral or negative
	Compound float64 // -1..1
}

// ScoreSentiment scores text with the built-in rules.
func ScoreSentiment(text string) Sentiment {
	var buf [64]token
	toks := tokenize(text, lexicon, buf[:0])
	return scoreTokens(text, toks)
}

func labelFor(compound float64) string {
	switch {
	case compound >= neutralThreshold:
		return "positive"
	case compound <= -neutralThreshold:
		return "negative"
	}
	return "neutral"
}

// lookup finds a word's valence, trying a few inflections and elongations
// ("soooo goooood") when the word itself is not listed.
func lookup(w string) (float64, bool) {
	if v, ok := lexicon[w]; ok {
		return v, true
	}
	if len(w) < 3 {
		return 0, false
	}
	if c := collapseRepeats(w, 2); c != w {
		if v, ok := lexicon[c]; ok {
			return v, true
		}
		if v, ok := lexicon[collapseRepeats(w, 1)]; ok {
			return v, true
		}
	}
	for _, suf := range []string{"'s", "s", "es", "ed", "d", "ing", "ly", "ness"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			if v, ok := lexicon[w[:len(w)-len(suf)]]; ok {
				return v, true
			}
		}
	}
	return 0, false
}

// collapseRepeats shortens runs of more than max identical bytes to max.
func collapseRepeats(w string, max int) string {
	run, changed := 0, false
	var b []byte
	for i := 0; i < len(w); i++ {
		if i > 0 && w[i] == w[i-1] {
			run++
		} else {
			run = 1
		}
		if run > max {
			if !changed {
				b = append(b, w[:i]...)
				changed = true
			}
			continue
		}
		if changed {
			b = append(b, w[i])
		}
	}
	if !changed {
		return w
	}
	return string(b)
}

func scoreTokens(text string, toks []token) Sentiment {
	if len(toks) == 0 {
		return Sentiment{Label: "neutral"}
	}
	// Caps emphasis only counts when the text is not all in capitals.
	capsCount := 0
	for _, t := range toks {
		if t.caps {
			capsCount++
		}
	}
	mixedCase := capsCount > 0 && capsCount < len(toks)

	butAt := -1
	for i, t := range toks {
		if t.low == "but" || t.low == "however" || t.low == "although" || t.low == "though" {
			butAt = i
		}
	}

	var sum float64
	for i, t := range toks {
		if _, ok := boosters[t.low]; ok && t.low != "more" && t.low != "most" {
			// Boosters carry no valence of their own.
			if i+1 < len(toks) {
				continue
			}
		}
		v, ok := lookup(t.low)
		if !ok || v == 0 {
			continue
		}
		// "no" followed by a sentiment word negates it rather than counting.
		if t.low == "no" && i+1 < len(toks) {
			if _, ok := lookup(toks[i+1].low); ok {
				continue
			}
		}
		// "kind of"/"sort of" as a hedge.
		if (t.low == "kind" || t.low == "sort") && i+1 < len(toks) && toks[i+1].low == "of" {
			continue
		}
		if t.caps && mixedCase {
			if v > 0 {
				v += capsIncrement
			} else {
				v -= capsIncrement
			}
		}
		// Look back up to three words (within the sentence) for boosters and negations.
		negated := false
		for d := 1; d <= 3 && i-d >= 0; d++ {
			p := toks[i-d]
			if p.sep {
				break
			}
			if b, ok := boosters[p.low]; ok {
				scale := 1.0 - 0.05*float64(d-1)
				if v < 0 {
					b = -b
				}
				if p.caps && mixedCase {
					if b > 0 {
						b += capsIncrement / 3
					} else {
						b -= capsIncrement / 3
					}
				}
				v += b * scale
			}
			if isNegation(p.low) {
				// "never so good" intensifies rather than negates.
				if p.low == "never" && d > 1 && (toks[i-d+1].low == "so" || toks[i-d+1].low == "this") {
					v *= 1.25
				} else {
					negated = !negated
				}
			}
			if p.low == "least" && (i-d-1 < 0 || (toks[i-d-1].low != "at" && toks[i-d-1].low != "very")) {
				negated = !negated
			}
		}
		if negated {
			v *= negationScalar
		}
		if butAt >= 0 {
			if i < butAt {
				v *= 0.5
			} else if i > butAt {
				v *= 1.5
			}
		}
		sum += v
	}

	lowText := ""
	for _, p := range phraseValences {
		if lowText == "" {
			lowText = strings.ToLower(text)
		}
		if strings.Contains(lowText, p.phrase) && containsWord(lowText, p.phrase) {
			sum += p.v
		}
	}

	// Sarcasm markers turn apparent praise into criticism.
	if sum > 0 {
		if lowText == "" {
			lowText = strings.ToLower(text)
		}
		for _, m := range sarcasmMarkers {
			if strings.Contains(lowText, m) && (m[0] == '/' || m[0] == '#' || containsWord(lowText, m)) {
				sum = -sum * 0.75
				break
			}
		}
	}

	if sum != 0 {
		emph := punctuationEmphasis(text)
		if sum > 0 {
			sum += emph
		} else {
			sum -= emph
		}
	}
	compound := sum / math.Sqrt(sum*sum+compoundAlpha)
	if compound > 1 {
		compound = 1
	} else if compound < -1 {
		compound = -1
	}
	return Sentiment{Label: labelFor(compound), Compound: compound}
}

// punctuationEmphasis is the intensity that "!!" and "??" add.
func punctuationEmphasis(text string) float64 {
	ex := strings.Count(text, "!")
	if ex > 4 {
		ex = 4
	}
	q := strings.Count(text, "?")
	qe := 0.0
	if q > 1 {
		if q <= 3 {
			qe = float64(q) * 0.18
		} else {
			qe = 0.96
		}
	}
	return float64(ex)*0.292 + qe
}
