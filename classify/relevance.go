package classify

import (
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

// The judgement itself (evidence for and against the brand, and the
// reason) is in relevance_judge.go.

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
