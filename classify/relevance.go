package classify

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"earshot/classify/internal/words"
)

// Relevance answers "is this post really about the brand?". Rules read how
// the keyword is used (an @handle, a domain, a capitalised name next to
// product words, or an ordinary word after "a"/"the"); the project's
// RelevanceModel, learned from triage, adds what the user taught it.

// Example is one triaged post: ignored mentions are negative examples,
// reviewed and done mentions positive.
type Example struct {
	Text     string
	Relevant bool
}

// RelevanceModel is a project's relevance model learned from triage. It is
// immutable and safe for concurrent use; retrain to update it.
type RelevanceModel struct {
	weights  map[string]float64
	pos, neg int
}

// relevancePseudoDocs is how many imagined posts of each kind, containing
// none of the words, the model starts from: a word seen in a few ignored
// posts, and never in a reviewed one, becomes a strong sign of
// irrelevance, while one seen once moves little.
const relevancePseudoDocs = 10

// TrainRelevance learns word weights (smoothed log-odds of appearing in a
// relevant versus an ignored post). It is linear in the examples' length.
func TrainRelevance(examples []Example) *RelevanceModel {
	m := &RelevanceModel{weights: map[string]float64{}}
	posDF, negDF := map[string]int{}, map[string]int{}
	for _, ex := range examples {
		if ex.Relevant {
			m.pos++
		} else {
			m.neg++
		}
		seen := map[string]bool{}
		for _, w := range relevanceWords(ex.Text) {
			if seen[w] {
				continue
			}
			seen[w] = true
			if ex.Relevant {
				posDF[w]++
			} else {
				negDF[w]++
			}
		}
	}
	const a = 0.5
	np := float64(m.pos + relevancePseudoDocs)
	nn := float64(m.neg + relevancePseudoDocs)
	add := func(w string) {
		if _, ok := m.weights[w]; ok {
			return
		}
		m.weights[w] = math.Log((float64(posDF[w])+a)/(np+2*a)) - math.Log((float64(negDF[w])+a)/(nn+2*a))
	}
	for w := range posDF {
		add(w)
	}
	for w := range negDF {
		add(w)
	}
	return m
}

// Counts returns how many relevant and ignored examples trained the model.
func (m *RelevanceModel) Counts() (relevant, ignored int) {
	if m == nil {
		return 0, 0
	}
	return m.pos, m.neg
}

// Score is the model's log-odds that text is relevant, ignoring the words in
// exclude (the brand terms, which occur in every example). 0 means no
// opinion.
func (m *RelevanceModel) Score(text string, exclude []string) float64 {
	if m == nil || len(m.weights) == 0 {
		return 0
	}
	s, _ := m.score(relevanceWords(text), exclude)
	return s
}

func (m *RelevanceModel) score(words []string, exclude []string) (float64, string) {
	s := 0.0
	strongest, sw := "", 0.0
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		skip := false
		for _, e := range exclude {
			if w == e || strings.Contains(e, w) && strings.Contains(e, " ") {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		if v, ok := m.weights[w]; ok {
			s += v
			if math.Abs(v) > math.Abs(sw) {
				strongest, sw = w, v
			}
		}
	}
	return math.Max(-8, math.Min(8, s)), strongest
}

func relevanceWords(text string) []string {
	ws := words.Words(text)
	return contentWords(ws, ws[:0])
}

// contentWords appends the words of ws the relevance model weighs (longer
// than two letters, not in relevanceStop) to dst, which may share ws's
// storage.
func contentWords(ws, dst []string) []string {
	for _, w := range ws {
		if len(w) > 2 && !relevanceStop[w] {
			dst = append(dst, w)
		}
	}
	return dst
}

var relevanceStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for with are was were been this that these those you your our their his her
		its it's from have has had not but all any can will would could should just very also than then there here what
		which who whom how why when where she they them about into over out get got one two <num> i'm don't`) {
		m[w] = true
	}
	return m
}()

// Words that tell a keyword names a product or company.
var productNouns = wordSet(`app apps account accounts update updates version support team store watch phone api plan plans
	subscription pro premium integration integrations login page workspace workspaces desktop mobile ios android web user users
	customer customers ceo stock shares announced announces launches launched released releases pricing dashboard beta
	feature features device devices server servers cloud software platform service services inc company`)

var techContext = wordSet(`app update version login account bug crash crashes feature features install installed download
	subscription pricing integration api sync syncing ios android iphone ipad mac windows linux desktop server customer
	support premium dashboard notification notifications workspace template templates plugin users software device beta
	release ceo startup company website browser extension password upgrade keyboard screen laptop smartphone online`)

// Words of everyday life that, without other evidence, suggest a brand name
// is being used as an ordinary word ("apple pie", "a notion that").
var everydayContext = wordSet(`pie pies recipe recipes juice cider tree trees orchard fruit fruits bake baking baked cake
	cook cooking eat ate eating salad garden harvest sauce dessert delicious tasty organic farm flower flowers plant
	grandma grandmother kitchen oven cinnamon sugar butter crust slice picking`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var determiners = wordSet(`a an the this that no any some every my your his her our their such what`)

type relevanceJudgement struct {
	Relevant bool
	Score    float64
	Reason   string
}

func judgeRelevance(a analysis, in Input) relevanceJudgement {
	terms := brandTerms(in)
	var modelScore float64
	var modelWord string
	if in.Relevance != nil {
		modelScore, modelWord = in.Relevance.score(contentWords(a.words, make([]string, 0, len(a.words))), terms)
	}
	if len(terms) == 0 {
		j := relevanceJudgement{Relevant: modelScore >= 0, Score: modelScore}
		j.Reason = fmt.Sprintf("relevance %+.1f: no brand terms to check", modelScore)
		return j
	}
	score, why := brandUsage(a, in, terms)
	score += contextEvidence(a, in)
	if modelScore != 0 {
		why = append(why, fmt.Sprintf("triage model %+.1f (%q)", modelScore, modelWord))
	}
	score += modelScore
	j := relevanceJudgement{Relevant: score > 0, Score: score}
	verdict := "relevant"
	if !j.Relevant {
		verdict = "not relevant"
	}
	j.Reason = fmt.Sprintf("%s (%+.1f): %s", verdict, score, strings.Join(why, "; "))
	return j
}

// brandUsage scores how each occurrence of a brand term is used.
func brandUsage(a analysis, in Input, terms []string) (float64, []string) {
	host := websiteHost(in.Project.Website)
	if host != "" && strings.Contains(a.low, host) {
		return 3, []string{"names the website " + host}
	}
	score := 0.0
	var why []string
	found := 0
	for _, term := range terms {
		compact := strings.ReplaceAll(term, " ", "")
		off := 0
		for found < 8 {
			i := indexWord(a.low[off:], term)
			if i < 0 {
				break
			}
			i += off
			off = i + len(term)
			found++
			end := i + len(term)
			before := byte(' ')
			if i > 0 {
				before = a.low[i-1]
			}
			if before == '@' || before == '#' {
				score += 3
				why = append(why, "brand as @handle/#tag")
				continue
			}
			if end < len(a.low) && a.low[end] == '.' && end+1 < len(a.low) && unicode.IsLetter(rune(a.low[end+1])) {
				score += 3
				why = append(why, "brand as a domain")
				continue
			}
			raw := a.text[i:end]
			prev, next := wordBefore(a.low, i), wordAfter(a.low, end)
			sentenceStart := atSentenceStart(a.text, i)
			capitalised := startsUpper(raw)
			if productNouns[next] || productNouns[prev] {
				score += 1.5
				why = append(why, fmt.Sprintf("%q next to %q", raw, pick(productNouns[next], next, prev)))
			}
			if capitalised && !sentenceStart {
				score += 1
				why = append(why, fmt.Sprintf("capitalised %q mid-sentence", raw))
			}
			if !capitalised && configuredCapitalised(in, term) && hasUpper(a.text) {
				score -= 1
				why = append(why, fmt.Sprintf("lower-case %q", raw))
			}
			if !capitalised && determiners[prev] && !productNouns[next] {
				score -= 1.5
				why = append(why, fmt.Sprintf("ordinary word (%q %s)", prev, raw))
			}
		}
		if compact != term && strings.Contains(a.low, "@"+compact) {
			score += 3
			why = append(why, "brand as @handle")
		}
	}
	if found == 0 {
		return 0.5, []string{"brand not named in the text"}
	}
	score += 0.5
	return score, why
}

func pick(b bool, x, y string) string {
	if b {
		return x
	}
	return y
}

// contextEvidence rewards words of the product's world and the project's
// description, and penalises everyday words when nothing else speaks for
// the brand.
func contextEvidence(a analysis, in Input) float64 {
	desc := descriptionWords(in)
	tech, every, ctx := 0.0, 0.0, 0.0
	for _, w := range a.words {
		switch {
		case desc[w]:
			ctx += 0.6
		case techContext[w]:
			tech += 0.4
		case everydayContext[w]:
			every += 0.6
		}
	}
	return math.Min(ctx, 2.4) + math.Min(tech, 1.6) - math.Min(every, 2.4)
}

// descriptionWords are the content words of the project's description and
// website, minus the brand terms themselves.
func descriptionWords(in Input) map[string]bool {
	if in.Project.Description == "" {
		return nil
	}
	m := map[string]bool{}
	terms := brandTerms(in)
	for _, w := range words.Words(in.Project.Description) {
		if len(w) < 4 || relevanceStop[w] || words.IsStopword(w) {
			continue
		}
		isTerm := false
		for _, t := range terms {
			if w == t {
				isTerm = true
			}
		}
		if !isTerm {
			m[w] = true
		}
	}
	return m
}

func websiteHost(site string) string {
	if site == "" {
		return ""
	}
	if !strings.Contains(site, "://") {
		site = "https://" + site
	}
	u, err := url.Parse(site)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

func configuredCapitalised(in Input, term string) bool {
	for _, k := range append(append([]string{}, in.Keywords...), in.Project.Name) {
		if strings.EqualFold(strings.TrimSpace(k), term) && hasUpper(k) {
			return true
		}
	}
	return false
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// atSentenceStart reports whether position i begins a sentence.
func atSentenceStart(s string, i int) bool {
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if unicode.IsSpace(r) || r == '"' || r == '\'' || r == '(' {
			j -= size
			continue
		}
		return r == '.' || r == '!' || r == '?' || r == '\n' || r == ':'
	}
	return true
}

func wordBefore(low string, i int) string {
	j := i
	for j > 0 && !isAlnumBefore(low, j) {
		_, size := utf8.DecodeLastRuneInString(low[:j])
		j -= size
		if i-j > 3 {
			return ""
		}
	}
	k := j
	for k > 0 && isAlnumBefore(low, k) {
		_, size := utf8.DecodeLastRuneInString(low[:k])
		k -= size
	}
	return low[k:j]
}

func wordAfter(low string, i int) string {
	j := i
	if j < len(low) && low[j] == '\'' { // "Notion's"
		j++
		for j < len(low) && isAlnumAt(low, j) {
			j++
		}
	}
	for j < len(low) && !isAlnumAt(low, j) {
		j++
		if j-i > 3 {
			return ""
		}
	}
	k := j
	for k < len(low) && isAlnumAt(low, k) {
		_, size := utf8.DecodeRuneInString(low[k:])
		k += size
	}
	return low[j:k]
}
