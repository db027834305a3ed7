package classify

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"earshot/classify/internal/words"
)

// How relevance is judged. Each brand term (the monitor's keywords and the
// project's name) is either distinctive or ambiguous:
//
//   - distinctive: a domain, an @handle or #tag, a phrase of several words,
//     a name with digits or inner capitals, or a single word of five or
//     more letters that is no common English word: named, it is the brand.
//   - ambiguous: a common English word or name ("Notion", "Apple"), a name
//     of four letters or fewer (short names are shared: acronyms, other
//     companies), or the short form of a longer name the project uses
//     ("Acme" beside "Acme Projects"). Named alone it proves nothing: the
//     post is relevant only with evidence.
//
// Evidence for the brand: its website or own domains, its @handles, a
// distinctive term, the term next to product words ("Acme support",
// "the Acme app", "Acme 4.2"), words of the project's description, words
// of software and service, other keywords of the project's monitors
// (products, competitors), a review from a page the monitor watches, and
// what triage taught. Evidence against: the term as an ordinary word ("a
// notion that"), in capitals where the brand is not ("ACME client"),
// inside a longer proper name ("Acme Brick"), as another domain
// ("acme.sh"), everyday words, and what triage taught. The post is relevant
// when the sum is positive; the reason names the strongest evidence.

// Words that tell a keyword names a product or company when next to it.
var productNouns = wordSet(`app apps account accounts update updates version support team store watch phone api plan plans
	subscription pro premium integration integrations login page workspace workspaces desktop mobile ios android web user users
	customer customers ceo stock shares announced announces launches launched released releases pricing dashboard beta
	feature features device devices server servers cloud software platform service services inc company
	down outage outages status sso cli sdk webhooks webhook docs billing renewal trial release`)

// Words of software and online services anywhere in the post.
var techContext = wordSet(`app update version login account bug bugs crash crashes feature features install installed download
	subscription pricing integration api sync syncing ios android iphone ipad mac windows linux desktop server customer
	support premium dashboard notification notifications workspace template templates plugin users software device beta
	release ceo startup company website browser extension password upgrade keyboard screen laptop smartphone online
	user data outage webhooks webhook docs sso cli export import imported migrate migrating migrated migration tickets
	billing refund charged trial seats seat renewal invoice soc gdpr compliance security privacy uptime sla procurement
	editor chart charts tool tools logged logout`)

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

// evidence is one weighed observation; why is a short phrase for people.
type evidence struct {
	w   float64
	why string
}

// termInfo is a brand term and why it is ambiguous ("" when distinctive).
type termInfo struct {
	term      string // lower case
	written   string // as configured
	ambiguity string
}

func judgeRelevance(a analysis, in Input) relevanceJudgement {
	bi := brandOf(in)
	terms := bi.terms
	var modelScore float64
	var modelWord string
	if in.Relevance != nil {
		modelScore, modelWord = in.Relevance.score(contentWords(a.words, make([]string, 0, len(a.words))), brandTerms(in))
	}
	var ev []evidence
	if modelScore != 0 {
		ev = append(ev, evidence{modelScore, "triage taught " + q(modelWord)})
	}
	if len(terms) == 0 {
		if modelScore < 0 {
			return verdict(ev, nil)
		}
		return relevanceJudgement{Relevant: true, Score: modelScore, Reason: "relevant: no brand terms to check"}
	}
	named := brandEvidence(a, in, bi, &ev)
	if len(named) == 0 {
		if in.Unsourced {
			// Nothing but the text ties it to the brand, and the text
			// does not name it.
			return relevanceJudgement{Relevant: false, Score: -1, Reason: "not relevant: names none of the brand terms (" + writtenTerms(terms) + ")"}
		}
		ev = append(ev, evidence{0.5, "collected without naming the brand (a watched account, feed or review page)"})
	}
	contextEvidence(a, in, bi, &ev)
	return verdict(ev, named)
}

// verdict sums the evidence and words the reason: the strongest evidence
// for the outcome, and for an ambiguous name left without support, that
// nothing ties it to the brand.
func verdict(ev []evidence, named []termInfo) relevanceJudgement {
	score := 0.0
	for _, e := range ev {
		score += e.w
	}
	score = math.Round(score*100) / 100
	j := relevanceJudgement{Relevant: score > 0, Score: score}
	var side []evidence
	for _, e := range ev {
		if (j.Relevant && e.w > 0) || (!j.Relevant && e.w < 0) {
			side = append(side, e)
		}
	}
	slices.SortStableFunc(side, func(x, y evidence) int {
		if math.Abs(x.w) > math.Abs(y.w) {
			return -1
		}
		if math.Abs(x.w) < math.Abs(y.w) {
			return 1
		}
		return 0
	})
	var parts []string
	for _, e := range side {
		if len(parts) == 2 {
			break
		}
		if e.why != "" && !slices.Contains(parts, e.why) && !saysNothingNew(e.why, parts) {
			parts = append(parts, e.why)
		}
	}
	if j.Relevant {
		if len(parts) == 0 {
			parts = append(parts, "no brand terms to check")
		}
		j.Reason = "relevant: " + strings.Join(parts, "; ")
		return j
	}
	// What spoke against the brand first; then, for an ambiguous name, why
	// naming it was not enough.
	var amb string
	for _, n := range named {
		if n.ambiguity != "" {
			amb = n.ambiguity
			break
		}
	}
	parts = slices.DeleteFunc(parts, func(p string) bool { return p == amb })
	if len(parts) > 1 && amb != "" {
		parts = parts[:1]
	}
	switch {
	case amb != "":
		parts = append(parts, amb+", and nothing here ties it to the brand")
	case len(parts) == 0:
		parts = append(parts, "nothing here ties the post to the brand")
	}
	j.Reason = "not relevant: " + strings.Join(parts, "; ")
	return j
}

// brandTermInfo returns the brand terms without repeats, distinctive ones
// first, each with its ambiguity.
func brandTermInfo(in Input) []termInfo {
	var out []termInfo
	names := append(append([]string{}, in.Keywords...), in.Project.Name)
	for _, k := range names {
		k = strings.TrimSpace(k)
		low := strings.ToLower(k)
		if low == "" || slices.ContainsFunc(out, func(t termInfo) bool { return t.term == low }) {
			continue
		}
		out = append(out, termInfo{term: low, written: k, ambiguity: ambiguity(k, in)})
	}
	slices.SortStableFunc(out, func(x, y termInfo) int {
		switch {
		case x.ambiguity == "" && y.ambiguity != "":
			return -1
		case x.ambiguity != "" && y.ambiguity == "":
			return 1
		}
		return 0
	})
	return out
}

// ambiguity says why a brand term needs evidence, or "" when it is
// distinctive enough to stand alone.
func ambiguity(k string, in Input) string {
	if strings.ContainsAny(k, ".@#/_ ") || strings.IndexFunc(k, unicode.IsDigit) >= 0 {
		return "" // a domain, handle, tag or phrase
	}
	r, size := utf8.DecodeRuneInString(k)
	if strings.IndexFunc(k[size:], unicode.IsUpper) >= 0 && !isAllUpper(k) && unicode.IsLetter(r) {
		return "" // inner capitals: a made-up name ("HubSpot", "iPhone")
	}
	low := strings.ToLower(k)
	for _, other := range append(append(append([]string{}, in.Keywords...), in.Project.Name, leadingName(in.Project.Description)), in.Project.Terms...) {
		o := strings.ToLower(strings.TrimSpace(other))
		if first, _, ok := strings.Cut(o, " "); ok && first == low {
			return q(k) + " is short for " + q(strings.TrimSpace(other))
		}
	}
	if commonWord(low) {
		return q(k) + " is also a common word"
	}
	if utf8.RuneCountInString(k) <= 4 {
		return q(k) + " is a short name others share"
	}
	return ""
}

// leadingName is the proper name a description opens with ("Acme
// Projects is a ..." gives "Acme Projects"): its leading capitalised words.
func leadingName(desc string) string {
	var ws []string
	for _, f := range strings.Fields(desc) {
		f = strings.TrimRight(f, ",.:;!?")
		r, _ := utf8.DecodeRuneInString(f)
		if !unicode.IsUpper(r) {
			break
		}
		ws = append(ws, f)
		if len(ws) == 4 {
			break
		}
	}
	if len(ws) < 2 {
		return ""
	}
	return strings.Join(ws, " ")
}

// brandEvidence weighs how each brand term is used and returns the terms
// the post names.
func brandEvidence(a analysis, in Input, bi *brandInfo, ev *[]evidence) []termInfo {
	var named []termInfo
	terms, own := bi.terms, bi.own
	for _, h := range own {
		if containsHost(a.low, h) {
			*ev = append(*ev, evidence{3, "names " + h})
			named = append(named, termInfo{term: h, written: h})
			break
		}
	}
	var covered [][2]int // spans of distinctive terms
	found := 0
	for _, t := range terms {
		off := 0
		counted := false
		for found < 8 {
			i := indexWord(a.low[off:], t.term)
			if i < 0 {
				break
			}
			i += off
			end := i + len(t.term)
			off = end
			if slices.ContainsFunc(covered, func(c [2]int) bool { return i >= c[0] && end <= c[1] }) {
				continue
			}
			found++
			if !slices.ContainsFunc(named, func(n termInfo) bool { return n.term == t.term }) {
				named = append(named, t)
			}
			if t.ambiguity == "" {
				covered = append(covered, [2]int{i, end})
				if !counted {
					counted = true
					*ev = append(*ev, evidence{2, "names " + quoteTerm(t.written)})
				}
				continue
			}
			usage(a, in, bi, t, i, end, ev)
		}
		if !counted && t.ambiguity != "" && slices.ContainsFunc(named, func(n termInfo) bool { return n.term == t.term }) {
			*ev = append(*ev, evidence{-0.5, t.ambiguity})
		}
	}
	return named
}

// usage weighs one occurrence of an ambiguous term at low[i:end].
func usage(a analysis, in Input, bi *brandInfo, t termInfo, i, end int, ev *[]evidence) {
	own := bi.own
	var before byte = ' '
	if i > 0 {
		before = a.low[i-1]
	}
	if before == '@' || before == '#' {
		*ev = append(*ev, evidence{3, "names " + string(before) + t.term})
		return
	}
	raw := t.term
	sameLayout := len(a.text) == len(a.low) // lower-casing kept byte offsets
	if sameLayout {
		raw = a.text[i:end]
	}
	// "acme.sh", "notion.so": a domain, the brand's or another's.
	if end+1 < len(a.low) && a.low[end] == '.' && isASCIILetter(a.low[end+1]) {
		host := hostAt(a.low, i)
		if slices.ContainsFunc(own, func(h string) bool { return host == h || strings.HasSuffix(host, "."+h) }) {
			*ev = append(*ev, evidence{3, "names " + host})
		} else {
			*ev = append(*ev, evidence{-0.5, q(host) + " is another domain"})
		}
		return
	}
	prev, next := wordBefore(a.low, i), wordAfter(a.low, end)
	if productNouns[next] || productNouns[prev] {
		w := next
		if !productNouns[next] {
			w = prev
		}
		*ev = append(*ev, evidence{1.5, q(raw) + " next to " + q(w)})
	}
	if versionAt(a.low, end) {
		*ev = append(*ev, evidence{1.5, q(raw) + " with a version number"})
	}
	if strings.HasPrefix(a.low[end:], "'s new ") || strings.HasPrefix(a.low[end:], "’s new ") {
		*ev = append(*ev, evidence{1, q(raw + "'s new …")})
	}
	capitalised := startsUpper(raw)
	if isAllUpper(raw) && utf8.RuneCountInString(raw) >= 3 && !isAllUpper(t.written) {
		*ev = append(*ev, evidence{-1, q(raw) + " in capitals, unlike the brand"})
	} else if capitalised && sameLayout {
		if name := longerName(a, in, bi, end); name != "" {
			*ev = append(*ev, evidence{-0.25, q(raw+" "+name) + " looks like another name"})
		} else if strings.Contains(t.ambiguity, "common word") && !atSentenceStart(a.text, i) {
			*ev = append(*ev, evidence{1, "capitalised " + q(raw) + " mid-sentence"})
		}
	}
	if !capitalised && strings.Contains(t.ambiguity, "common word") && configuredCapitalised(in, t.term) && hasUpper(a.text) {
		*ev = append(*ev, evidence{-1, "lower-case " + q(raw)})
	}
	if !capitalised && determiners[prev] && !productNouns[next] {
		*ev = append(*ev, evidence{-1.5, q(prev+" "+raw) + " is the common word"})
	}
}

// longerName returns the capitalised word that follows the term at end
// when it makes a longer proper name the brand does not use ("Acme
// Brick"): not a product or service word, not a word of the description
// or of the project's terms, not an acronym.
func longerName(a analysis, in Input, bi *brandInfo, end int) string {
	if end >= len(a.text) || a.text[end] != ' ' {
		return ""
	}
	rest := a.text[end+1:]
	n := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) })
	if n < 0 {
		n = len(rest)
	}
	w := rest[:n]
	if len(w) < 2 || !startsUpper(w) || isAllUpper(w) {
		return ""
	}
	lw := strings.ToLower(w)
	if productNouns[lw] || techContext[lw] || bi.desc[stem(lw)] || words.IsStopword(lw) {
		return ""
	}
	for _, t := range append(append([]string{}, in.Keywords...), in.Project.Terms...) {
		for _, f := range strings.Fields(strings.ToLower(t)) {
			if f == lw {
				return ""
			}
		}
	}
	return w
}

// contextEvidence weighs the words around the brand: the project's
// description, software and service words, other keywords of the project,
// a watched review page, and everyday words.
func contextEvidence(a analysis, in Input, bi *brandInfo, ev *[]evidence) {
	desc, terms := bi.desc, bi.terms
	var descHit, techHit, everyHit []string
	for _, w := range a.words {
		switch {
		case len(w) >= 4 && desc[stem(w)] && !isTerm(terms, w):
			if !slices.ContainsFunc(descHit, func(h string) bool { return stem(h) == stem(w) }) {
				descHit = append(descHit, w)
			}
		case techContext[w]:
			if !slices.Contains(techHit, w) {
				techHit = append(techHit, w)
			}
		case everydayContext[w]:
			if !slices.Contains(everyHit, w) {
				everyHit = append(everyHit, w)
			}
		}
	}
	if len(descHit) > 0 {
		*ev = append(*ev, evidence{math.Min(0.8*float64(len(descHit)), 2.4), "with " + quoteList(descHit) + " from the project description"})
	}
	if len(techHit) > 0 {
		*ev = append(*ev, evidence{math.Min(0.6*float64(len(techHit)), 1.8), "with product words " + quoteList(techHit)})
	}
	if len(everyHit) > 0 {
		*ev = append(*ev, evidence{-math.Min(0.6*float64(len(everyHit)), 2.4), "everyday words " + quoteList(everyHit)})
	}
	// Other keywords of the project: its products, other names, competitors.
	co, coW := []string{}, 0.0
	for ki, k := range in.Project.Terms {
		lk := bi.ownTermsL[ki]
		if lk == "" || slices.ContainsFunc(terms, func(t termInfo) bool {
			return t.term == lk || strings.Contains(t.term, lk) || strings.Contains(lk, t.term)
		}) || slices.Contains(co, k) {
			continue
		}
		if !containsWord(a.low, lk) {
			continue
		}
		co = append(co, k)
		if !bi.otherAmb[k] {
			coW += 1.5
		} else {
			coW += 0.75
		}
	}
	if len(co) > 0 {
		*ev = append(*ev, evidence{math.Min(coW, 3), "named with " + quoteList(co)})
	}
	if in.Source == "reviews" {
		*ev = append(*ev, evidence{1.5, "a review from a page the monitor watches"})
	}
}

// descriptionWords are the content words of the project's description,
// stemmed, minus the brand terms themselves.
func descriptionWords(in Input) map[string]bool {
	if in.Project.Description == "" {
		return nil
	}
	m := map[string]bool{}
	terms := brandTerms(in)
	for _, w := range words.Words(in.Project.Description) {
		if len(w) < 4 || relevanceStop[w] || words.IsStopword(w) || slices.ContainsFunc(terms, func(t string) bool { return strings.Contains(w, t) }) {
			continue
		}
		m[stem(w)] = true
	}
	return m
}

// stem folds a plural: "boards" and "board" are one description word.
func stem(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func isTerm(terms []termInfo, w string) bool {
	return slices.ContainsFunc(terms, func(t termInfo) bool { return t.term == w })
}

// ownHosts are the project's website host and the domain keywords.
func ownHosts(in Input) []string {
	var out []string
	if h := websiteHost(in.Project.Website); h != "" {
		out = append(out, h)
	}
	for _, k := range append(append([]string{}, in.Keywords...), in.Project.Terms...) {
		if IsDomain(k) {
			if h := hostOf(k); h != "" && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// containsHost reports whether host occurs in low as a host: not glued to
// a letter, digit or hyphen before it (a subdomain's dot is fine) nor to a
// letter or digit after it.
func containsHost(low, host string) bool {
	off := 0
	for {
		i := strings.Index(low[off:], host)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(host)
		beforeOK := i == 0 || !(isAlnumBefore(low, i) || low[i-1] == '-')
		afterOK := end == len(low) || !isAlnumAt(low, end)
		if beforeOK && afterOK {
			return true
		}
		off = i + 1
	}
}

// hostAt reads the host-like run (letters, digits, dots, hyphens) at i.
func hostAt(low string, i int) string {
	j := i
	for j < len(low) && (isASCIILetter(low[j]) || low[j] >= '0' && low[j] <= '9' || low[j] == '.' || low[j] == '-') {
		j++
	}
	return strings.TrimRight(low[i:j], ".-")
}

// versionAt reports a version number after the term ("Acme 4.2").
func versionAt(low string, end int) bool {
	rest := strings.TrimLeft(low[end:], " ")
	if len(rest) == len(low[end:]) {
		return false
	}
	rest = strings.TrimPrefix(rest, "v")
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(rest) && rest[n] == '.' && rest[n+1] >= '0' && rest[n+1] <= '9'
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// isAllUpper reports a word written in capitals (has letters, no lower case).
func isAllUpper(s string) bool {
	letters := false
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters = true
		}
	}
	return letters
}

func q(s string) string { return "'" + s + "'" }

func quoteTerm(s string) string {
	if strings.HasPrefix(s, "@") || strings.HasPrefix(s, "#") || IsDomain(s) {
		return s
	}
	return q(s)
}

func quoteList(ws []string) string {
	if len(ws) > 3 {
		ws = ws[:3]
	}
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = quoteTerm(w)
	}
	return strings.Join(q, ", ")
}

// saysNothingNew reports whether every word a reason part quotes is
// already quoted by the parts chosen before it ("'Acme' next to 'support'"
// then "with 'support' from the project description").
func saysNothingNew(why string, parts []string) bool {
	seen := map[string]bool{}
	for _, p := range parts {
		for i, seg := range strings.Split(p, "'") {
			if i%2 == 1 {
				seen[seg] = true
			}
		}
	}
	quoted := false
	for i, seg := range strings.Split(why, "'") {
		if i%2 == 1 {
			quoted = true
			if !seen[seg] {
				return false
			}
		}
	}
	return quoted
}

// writtenTerms lists the brand terms as configured, for a reason.
func writtenTerms(terms []termInfo) string {
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		out = append(out, q(t.written))
	}
	return strings.Join(out, ", ")
}

// namesAny reports whether lower-case text names one of the lower-case
// terms as words.
func namesAny(low string, terms []string) bool {
	for _, t := range terms {
		if containsWord(low, t) {
			return true
		}
	}
	return false
}
