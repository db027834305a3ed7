package classify

import (
	"bufio"
	_ "embed"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// The sentiment scorer implements the rule engine that Hutto & Gilbert
// (2014) describe for VADER: a valence lexicon, then rules for boosters and
// dampeners, ALL-CAPS emphasis in mixed-case text, negation in a three-word
// window, "but" shifting weight to the clause after it, "least", a few
// idioms, and "!"/"?" emphasis, summed and normalised into a compound score
// in -1..1. "no" scores with its lexicon valence (-1.2) as in VADER's
// original release; the later special case that drops it and negates the
// next word instead lost more tweets than it fixed on the VADER ground truth
// (compared tweet by tweet with the reference implementation). The code is Earshot's own, written from the paper and the
// published description of the algorithm.
//
// The lexicon is VADER's own (vaderlex/vader_lexicon.txt, MIT, (c) 2016
// C.J. Hutto, see vaderlex/README.md), used as published. lexicon.txt is a
// small hand-made Earshot supplement (emoji, newer slang, app-review words)
// consulted only for tokens VADER does not list.

//go:embed vaderlex/vader_lexicon.txt
var vaderLexiconText string

//go:embed lexicon.txt
var lexiconExtraText string

const (
	boosterIncrement = 0.293 // change in valence a booster word adds
	capsIncrement    = 0.733 // change an ALL-CAPS word adds in mixed-case text
	negationScalar   = -0.74 // a negated word's valence is multiplied by this
	compoundAlpha    = 15.0  // normalisation constant for the compound score
	// neutralThreshold: |compound| below this is neutral. VADER's published
	// ±0.05 band.
	neutralThreshold = 0.05
)

// lexicon maps a lower-case token to its valence (-4..4): VADER's entries,
// then the Earshot supplement for tokens VADER does not have.
var lexicon = func() map[string]float64 {
	m := make(map[string]float64, 8000)
	parseLexicon(vaderLexiconText, m, false)
	parseLexicon(lexiconExtraText, m, true)
	return m
}()

// parseLexicon reads "<token><sep><valence>[<tab>...]" lines into m. VADER's
// file is tab-separated with extra columns (standard deviation and the raw
// ratings); the supplement is "<token> <valence>" with "#" comments. With
// onlyNew, tokens already in m are left alone.
func parseLexicon(text string, m map[string]float64, onlyNew bool) {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		var tok, val string
		if i := strings.IndexByte(line, '\t'); i > 0 {
			tok = line[:i]
			val = line[i+1:]
			if j := strings.IndexByte(val, '\t'); j >= 0 {
				val = val[:j]
			}
		} else {
			line = strings.TrimSpace(line)
			if line == "" || line == "#" || strings.HasPrefix(line, "# ") {
				continue
			}
			i := strings.LastIndexByte(line, ' ')
			if i <= 0 {
				continue
			}
			tok, val = strings.TrimSpace(line[:i]), line[i+1:]
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		if _, ok := m[tok]; ok && onlyNew {
			continue
		}
		m[tok] = v
	}
}

// boosters are VADER's intensity modifiers: words that raise (or, with a
// negative value, lower) the intensity of the sentiment word after them.
var boosters = func() map[string]float64 {
	m := map[string]float64{}
	for _, w := range strings.Fields(`absolutely amazingly awfully completely considerable considerably
		decidedly deeply effing enormous enormously entirely especially exceptional exceptionally extreme
		extremely fabulously flipping flippin frackin fracking fricking frickin frigging friggin fully
		fuckin fucking fuggin fugging greatly hella highly hugely incredible incredibly intensely major
		majorly more most particularly purely quite really remarkably so substantially thoroughly total
		totally tremendous tremendously uber unbelievably unusually utter utterly very`) {
		m[w] = boosterIncrement
	}
	for _, w := range strings.Fields(`almost barely hardly kinda kindof kind-of less little marginal marginally
		occasional occasionally partly scarce scarcely slight slightly somewhat sorta sortof sort-of`) {
		m[w] = -boosterIncrement
	}
	return m
}()

// multiBoosters are the multi-word dampeners ("kind of").
var multiBoosters = map[string]float64{"just enough": -boosterIncrement, "kind of": -boosterIncrement, "sort of": -boosterIncrement}

var negations = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`aint arent cannot cant couldnt darent didnt doesnt ain't aren't can't
		couldn't daren't didn't doesn't dont hadnt hasnt havent isnt mightnt mustnt neither don't hadn't
		hasn't haven't isn't mightn't mustn't neednt needn't never none nope nor not nothing nowhere
		oughtnt shant shouldnt uhuh wasnt werent oughtn't shan't shouldn't uh-uh wasn't weren't without
		wont wouldnt won't wouldn't rarely seldom despite`) {
		m[w] = true
	}
	return m
}()

func isNegation(w string) bool {
	return negations[w] || strings.Contains(w, "n't")
}

// idioms replace the valence of the sentiment word they end with
// (VADER's special cases).
var idioms = map[string]float64{
	"the shit": 3, "the bomb": 3, "bad ass": 1.5, "badass": 1.5, "bus stop": 0, "yeah right": -2,
	"kiss of death": -1.5, "to die for": 3, "beating heart": 3.1, "broken heart": -2.9,
}

// sarcasmMarkers flip a positive reading: "great, it crashed again /s".
// An Earshot extension; VADER has no such rule.
var sarcasmMarkers = []string{"/s", "#sarcasm", "#not", "thanks for nothing", "🙄", "yeah right", "oh great,", "just great,"}

// phraseValences are Earshot's additions for app reviews: product phrases
// whose words VADER's lexicon does not score. They are added to the sum.
var phraseValences = []struct {
	phrase string
	v      float64
}{
	{"doesn't work", -1.5}, {"does not work", -1.5}, {"not working", -1.5}, {"stopped working", -2.0},
	{"won't work", -1.5}, {"waste of money", -2.0}, {"waste of time", -1.5}, {"piece of junk", -2.0},
	{"1 star", -1.5}, {"one star", -1.5}, {"zero stars", -2.0}, {"0 stars", -2.0}, {"5 stars", 2.0}, {"five stars", 2.0},
	// "joke" is +1.2 in VADER (a funny joke); about a product or service
	// it is scorn.
	{"is a joke", -2.0}, {"are a joke", -2.0}, {"what a joke", -2.0}, {"such a joke", -2.0},
	{"data loss", -2.0}, {"lost all my", -2.0}, {"lost my", -1.2},
}

// freePlanNouns follow "free" when it names a plan rather than praise.
var freePlanNouns = map[string]bool{"tier": true, "tiers": true, "plan": true, "plans": true, "trial": true,
	"trials": true, "version": true, "edition": true, "account": true, "accounts": true, "users": true, "workspace": true,
	"workspaces": true, "seats": true, "seat": true, "license": true, "licence": true}

// Sentiment is the outcome of the sentiment rules.
type Sentiment struct {
	Label    string  // positive, neutral or negative
	Compound float64 // -1..1
}

// ScoreSentiment scores text with the built-in rules.
func ScoreSentiment(text string) Sentiment {
	var buf [64]token
	toks := tokenize(text, buf[:0])
	return scoreTokens(text, strings.ToLower(text), toks)
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

// lookup finds a token's valence. Emoji with skin-tone or presentation
// modifiers fall back to the bare emoji.
func lookup(t token) (float64, bool) {
	if v, ok := lexicon[t.low]; ok {
		return v, true
	}
	if !t.emoji {
		// Elongations ("goooood"): an Earshot extension.
		if c := collapseRepeats(t.low, 2); c != t.low {
			if v, ok := lexicon[c]; ok {
				return v, true
			}
			v, ok := lexicon[collapseRepeats(t.low, 1)]
			return v, ok
		}
		return 0, false
	}
	{
		for i, r := range t.low {
			if i > 0 && isEmojiModifier(r) {
				v, ok := lexicon[t.low[:i]]
				return v, ok
			}
		}
	}
	return 0, false
}

// scoreTokens scores a text from its tokens; low is strings.ToLower(text).
func scoreTokens(text, low string, toks []token) Sentiment {
	c := compoundScore(text, low, toks)
	return Sentiment{Label: labelFor(c), Compound: c}
}

func compoundScore(text, low string, toks []token) float64 {
	if len(toks) == 0 {
		return 0
	}
	// Caps emphasis only counts when some, but not all, words are in capitals.
	upper := 0
	for _, t := range toks {
		if t.upper {
			upper++
		}
	}
	capDiff := upper > 0 && upper < len(toks)

	// The lexicon is English: in a post written in another language its
	// words mislead ("die" is German for "the", -2.9 here), so only emoji
	// and emoticons, which carry across languages, are scored.
	foreign := isForeign(toks)

	butAt := -1
	for i, t := range toks {
		if t.low == "but" {
			butAt = i
			break
		}
	}

	var sum float64
	for i, t := range toks {
		if _, ok := boosters[t.low]; ok {
			continue
		}
		if t.low == "kind" && i+1 < len(toks) && toks[i+1].low == "of" {
			continue
		}
		if foreign && strings.ContainsFunc(t.low, unicode.IsLetter) {
			continue
		}
		v := valenceAt(toks, i, capDiff)
		if v == 0 {
			continue
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

	for _, p := range phraseValences {
		if foreign {
			break
		}
		if strings.Contains(low, p.phrase) && assertedSomewhere(low, p.phrase) {
			sum += p.v // "no data loss" is not a complaint
		}
	}
	// Sarcasm markers turn apparent praise into criticism.
	if sum > 0 {
		for _, m := range sarcasmMarkers {
			if strings.Contains(low, m) && (m[0] == '/' || m[0] == '#' && wholeTag(low, m) || containsWord(low, m)) {
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
	return compound
}

// valenceAt is the valence of token i after the word-level rules.
func valenceAt(toks []token, i int, capDiff bool) float64 {
	t := toks[i]
	v, ok := lookup(t)
	if !ok {
		return 0
	}
	w := func(j int) string {
		if j < 0 || j >= len(toks) {
			return ""
		}
		return toks[j].low
	}
	// "free tier", "free plan", "free trial": in posts about a product,
	// "free" names a price plan, not a feeling (an Earshot addition).
	if t.low == "free" && freePlanNouns[w(i+1)] {
		return 0
	}
	if t.upper && capDiff {
		if v > 0 {
			v += capsIncrement
		} else {
			v -= capsIncrement
		}
	}
	for d := 1; d <= 3 && i-d >= 0; d++ {
		p := toks[i-d]
		// As in VADER, a word that carries sentiment itself is neither a
		// booster nor a negation of the word after it.
		if _, known := lexicon[p.low]; known {
			continue
		}
		if b, ok := boosters[p.low]; ok {
			if v < 0 {
				b = -b
			}
			if p.upper && capDiff {
				if v > 0 {
					b += capsIncrement
				} else {
					b -= capsIncrement
				}
			}
			switch d {
			case 2:
				b *= 0.95
			case 3:
				b *= 0.9
			}
			v += b
		}
		// Negation in the window; "never so/this" intensifies, "without
		// doubt" does not negate.
		switch d {
		case 1:
			if isNegation(p.low) {
				v *= negationScalar
			}
		case 2:
			switch {
			case p.low == "never" && (w(i-1) == "so" || w(i-1) == "this"):
				v *= 1.25
			case p.low == "without" && w(i-1) == "doubt":
			case isNegation(p.low):
				v *= negationScalar
			}
		case 3:
			switch {
			case p.low == "never" && (w(i-2) == "so" || w(i-2) == "this" || w(i-1) == "so" || w(i-1) == "this"):
				v *= 1.25
			case p.low == "without" && (w(i-2) == "doubt" || w(i-1) == "doubt"):
			case isNegation(p.low):
				v *= negationScalar
			}
			v = idiomCheck(toks, i, v)
		}
	}
	// "least" negates unless in "at least" / "very least".
	if i > 0 && w(i-1) == "least" && (i == 1 || (w(i-2) != "at" && w(i-2) != "very")) {
		v *= negationScalar
	}
	return v
}

// idioms: a phrase ending at (or just before) token i replaces its valence;
// a multi-word dampener before it lowers it.
func idiomCheck(toks []token, i int, v float64) float64 {
	w := func(j int) string {
		if j < 0 || j >= len(toks) {
			return ""
		}
		return toks[j].low
	}
	for _, seq := range [...]string{
		w(i-1) + " " + w(i),
		w(i-2) + " " + w(i-1) + " " + w(i),
		w(i-2) + " " + w(i-1),
		w(i-3) + " " + w(i-2) + " " + w(i-1),
		w(i-3) + " " + w(i-2),
	} {
		if iv, ok := idioms[seq]; ok {
			v = iv
			break
		}
	}
	if i+1 < len(toks) {
		if _, ok := multiBoosters[w(i)+" "+w(i+1)]; ok {
			v += boosterIncrement
		}
	}
	if b, ok := multiBoosters[w(i-3)+" "+w(i-2)]; ok {
		v += b
	} else if b, ok := multiBoosters[w(i-2)+" "+w(i-1)]; ok {
		v += b
	}
	return v
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

// collapseRepeats shortens runs of more than max identical bytes to max.
func collapseRepeats(w string, max int) string {
	run := 0
	var b []byte
	for i := 0; i < len(w); i++ {
		if i > 0 && w[i] == w[i-1] {
			run++
		} else {
			run = 1
		}
		if run > max {
			if b == nil {
				b = append(make([]byte, 0, len(w)), w[:i]...)
			}
			continue
		}
		if b != nil {
			b = append(b, w[i])
		}
	}
	if b == nil {
		return w
	}
	return string(b)
}

// Function words that mark a post as written in German, French, Spanish,
// Italian, Portuguese or Dutch; words that are also English ("die", "a",
// "no", "is", "la") are left out.
var foreignWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`der das und ist nicht ich ein eine mit auf für von sehr auch aber noch nur sind wir
		les et est une des pas je ne que qui pour avec dans très mais c'est sont
		el los las es una por para con muy pero está son
		il gli è che di non per molto sono
		os não uma com muito mas
		het een niet ik met voor van zijn maar ook`) {
		m[w] = true
	}
	return m
}()

var englishWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and is are i you it this that to of in for with on my me we was not but be have so just`) {
		m[w] = true
	}
	return m
}()

// isForeign reports a post written mostly in another language than English.
func isForeign(toks []token) bool {
	nf, ne := 0, 0
	for _, t := range toks {
		switch {
		case foreignWords[t.low]:
			nf++
		case englishWords[t.low]:
			ne++
		}
	}
	return nf >= 2 && nf > 2*ne
}

// wholeTag reports whether the hashtag tag occurs in low as a whole tag:
// "#not" is in "so fun #not", not in "#notion is great".
func wholeTag(low, tag string) bool {
	for i := 0; ; {
		j := strings.Index(low[i:], tag)
		if j < 0 {
			return false
		}
		end := i + j + len(tag)
		if end == len(low) || !isAlnumAt(low, end) {
			return true
		}
		i = end
	}
}
