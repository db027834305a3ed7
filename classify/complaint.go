package classify

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How customers complain to a brand. A post that says the order never
// arrived, the booking was cancelled or support has not answered for days
// carries no "negative word", so the sentiment lexicon calls it neutral or
// even positive ("thanks for losing my bag"). These rules read what such
// posts have in common across industries: a service failure told as a fact,
// waiting measured in hours or days, a question to the brand that carries a
// problem ("where is my refund?"), a demand for help, sarcasm after a
// failure. No rule names an industry, a product or one domain's vocabulary.

// failureCue is a phrase that tells a service failure as a fact, with a
// weight: 2 is enough on its own, weaker cues need company.
type failureCue struct {
	phrase string
	weight float64
}

var failureCues = []failureCue{
	// Things that did not happen or did not arrive.
	{"never arrived", 2}, {"hasn't arrived", 2}, {"has not arrived", 2}, {"didn't arrive", 2}, {"did not arrive", 2},
	{"not arrived", 2}, {"never received", 2}, {"haven't received", 2}, {"have not received", 2}, {"didn't receive", 2},
	{"did not receive", 2}, {"never came", 2}, {"never showed", 2}, {"never showed up", 2}, {"didn't show up", 2},
	{"did not show up", 2}, {"didn't show", 1.5}, {"no-show", 2}, {"no show", 1.5}, {"never got", 1.5}, {"never delivered", 2},
	{"not delivered", 2}, {"wasn't delivered", 2}, {"never never", 0}, {"never rang", 1.5}, {"never answered", 2},
	{"never responded", 2}, {"never replied", 2}, {"never called", 2}, {"never heard back", 2}, {"no record", 1.5},
	// Waiting, holding, chasing.
	{"on hold", 2}, {"still waiting", 2}, {"been waiting", 1.5}, {"waiting for", 1}, {"waited", 1.2}, {"waiting", 0.8},
	{"in the queue", 1}, {"still no", 2}, {"still not", 1.5}, {"still hasn't", 2}, {"still haven't", 2}, {"still don't", 1.5},
	{"still can't", 2}, {"still doesn't", 2}, {"still isn't", 2}, {"still broken", 2}, {"still charging", 2}, {"still under", 1.2},
	{"still", 0.5}, {"yet another", 1}, {"chasing", 1}, {"days later", 1.5}, {"weeks later", 1.5}, {"months later", 1.5},
	// No answer.
	{"no answer", 2}, {"no response", 2}, {"no reply", 2}, {"no replies", 2}, {"no callback", 2}, {"zero calls", 2},
	{"nobody answers", 2}, {"no one answers", 2}, {"nobody will", 2}, {"no one will", 2}, {"no one can", 1.5}, {"nobody can", 1.5},
	{"nobody", 0.8}, {"no one", 0.8}, {"hung up", 2}, {"can't get through", 2}, {"cannot get through", 2},
	{"can't reach", 2}, {"impossible to reach", 2}, {"unable to reach", 2}, {"reach a human", 2}, {"call me back", 1.5},
	{"no update", 1.5}, {"no updates", 1.5}, {"no info", 1.5}, {"no information", 1.5}, {"no explanation", 2},
	{"no apology", 2}, {"no reason", 1.5}, {"no notice", 1.5}, {"no warning", 1.5}, {"no help", 2}, {"not even", 1},
	{"ignored", 1.5}, {"ignoring", 1.5}, {"ghosted", 2},
	// Money.
	{"charged twice", 2.5}, {"double charged", 2.5}, {"charged me twice", 2.5}, {"charged me", 1.5}, {"charging me twice", 2.5}, {"charge me twice", 2.5}, {"twice", 0.5}, {"overcharged", 2.5},
	{"keep charging", 2}, {"kept charging", 2}, {"keeps charging", 2}, {"still charging", 2}, {"charging me", 1.5},
	{"keep billing", 2}, {"still billing", 2}, {"billing me", 1.2}, {"taken twice", 2}, {"took the money", 2},
	{"took my money", 2}, {"no refund", 2.5}, {"refund", 1}, {"money back", 1.5}, {"compensation", 1}, {"fee", 0.8},
	{"fees", 0.8}, {"fined", 1.5}, {"hidden", 0.8},
	// Cancelled, late, lost, wrong, damaged.
	{"cancelled", 1.2}, {"canceled", 1.2}, {"cancelled on me", 2}, {"canceled on me", 2}, {"cancelled again", 2},
	{"delayed", 1.5}, {"delay", 1.2}, {"delays", 1.2}, {"late", 1}, {"late fee", 2}, {"rescheduled", 1.2}, {"overbooked", 2},
	{"bumped", 1}, {"lost my", 2}, {"losing my", 2}, {"lost our", 2}, {"lost the", 1.2}, {"lost", 0.8}, {"missing", 1.2},
	{"wrong", 1.2}, {"wrong order", 2}, {"wrong item", 2}, {"wrong size", 2}, {"wrong address", 2}, {"damaged", 1.5},
	{"broken", 1.2}, {"broke down", 2}, {"ruined", 1.5}, {"cracked", 1.2}, {"smashed", 1.5}, {"stuck", 1.2},
	{"stranded", 2}, {"denied", 1.5}, {"rejected", 1.5}, {"frozen", 1}, {"blocked", 1.2}, {"disconnected", 1.2},
	{"bounced", 1.5}, {"locked out", 2}, {"can't log in", 2}, {"cannot log in", 2}, {"can't login", 2},
	{"can't sign in", 2}, {"can't get in", 2}, {"can't access", 2}, {"won't let me", 2}, {"doesn't work", 1.5},
	{"not working", 1.5}, {"stopped working", 2}, {"is down", 1.5}, {"was down", 1.5}, {"went down", 1.5},
	{"without internet", 2}, {"no internet", 2}, {"no signal", 2}, {"no service", 1.5}, {"power out", 2},
	{"took the day off", 2}, {"day off for", 1.5}, {"for nothing", 1.2}, {"didn't come", 2}, {"did not come", 2},
	{"hasn't come", 2}, {"never come", 1.5}, {"took", 0.5}, {"it's been", 1}, {"it has been", 1}, {"i paid for", 1},
	{"paid for", 0.8}, {"i paid", 0.8}, {"paying for", 0.8}, {"is closed", 0.8}, {"was closed", 0.8}, {"closed", 0.5},
	{"haven't arrived", 2}, {"have not arrived", 2}, {"hasn't shown up", 2}, {"haven't heard", 1.5}, {"not heard back", 1.5},
	{"been trying", 1.2}, {"trying to reach", 1.5}, {"trying to get through", 2}, {"all day", 0.8}, {"all night", 0.8},
	{"speak to someone", 1}, {"speak to a human", 1.5}, {"talk to a human", 1.5}, {"real person", 1}, {"will never", 1.2},
	{"never use", 1.2}, {"never using", 1.5}, {"yet", 0.4},
	{"another week", 1.5}, {"another day", 1.5}, {"another month", 1.5}, {"another hour", 1.5}, {"and counting", 1.5},
	{"not resolved", 1.5}, {"unresolved", 1.5}, {"nothing fixed", 1.5}, {"not fixed", 1.5}, {"still not fixed", 2},
	{"silence", 1.2}, {"not a word", 1.5}, {"said a word", 1}, {"someone else", 1}, {"you keep", 1.2}, {"they keep", 1},
	{"expired", 1.2}, {"crushed", 1.2}, {"rotten", 1.5}, {"mold", 1.2}, {"moldy", 1.5}, {"spoiled", 1.2}, {"without", 0.5},
	{"no longer", 1}, {"out of sync", 1.2}, {"never finishes", 1.5}, {"doesn't exist", 1.2}, {"does not exist", 1.2},
	// Again and again.
	{"again", 1}, {"in a row", 1.5}, {"second time", 1.2}, {"third time", 1.5}, {"3rd time", 1.5}, {"fourth time", 1.5},
	{"4th time", 1.5}, {"every time", 0.8}, {"every single time", 1.5}, {"each time", 0.8},
	// Verdicts that go with them.
	{"unacceptable", 2}, {"ridiculous", 1.5}, {"shameful", 2}, {"disgraceful", 2}, {"useless", 1.5}, {"worst", 1.5},
	{"terrible", 1}, {"awful", 1}, {"horrible", 1}, {"pathetic", 1.5}, {"joke", 1}, {"nightmare", 1.5}, {"fail", 1.5},
	{"frustrated", 1.2}, {"frustrating", 1.2}, {"fed up", 2}, {"i'm done", 1.5}, {"i am done", 1.5}, {"done with", 1.5},
	{"never again", 2}, {"avoid", 1.2}, {"misleading", 1.5}, {"lied", 1.5}, {"scam", 1.5}, {"boycott", 2},
	{"make it make sense", 2}, {"thanks for nothing", 2.5}, {"how hard is it", 2}, {"what's the point", 1.5},
	{"how does that even", 2}, {"how am i supposed", 2}, {"step backwards", 1.5}, {"for a month", 0.8},
	{"for a week", 0.8}, {"all weekend", 0.8},
	// Nothing came, or not what was promised.
	{"still nothing", 2}, {"nothing yet", 1.5}, {"no sign of", 1.5}, {"not here", 1}, {"isn't here", 1},
	{"nothing arrived", 2}, {"nothing came", 2}, {"nothing has arrived", 2}, {"without telling", 1.5}, {"without warning", 1.5},
	{"no heads up", 1.5}, {"out of nowhere", 1}, {"overnight", 0.5}, {"didn't tell", 1.5}, {"did not tell", 1.5},
	{"without notice", 1.5}, {"without any notice", 1.5},
	// A loyal customer let down.
	{"how you treat", 2}, {"you treat", 1.2}, {"treated like", 1.5}, {"this is how you", 1.5}, {"the thanks i get", 2},
	{"customers like this", 1.2}, {"treats me like", 1.5}, {"treat me like", 1.5}, {"treats us like", 1.5},
	{"treat us like", 1.5}, {"customer since", 1}, {"loyal customer", 1}, {"long-time customer", 1}, {"longtime customer", 1},
	{"long-time customers", 1}, {"loyal customers", 1},
	// Leaving.
}

var failureSet = func() *phraseSet {
	p := make([]string, len(failureCues))
	for i, c := range failureCues {
		p[i] = c.phrase
	}
	return newPhraseSet(p)
}()

// demands: the post asks the brand to act.
var demandSet = newPhraseSet([]string{"please fix", "fix it", "fix this", "sort it out", "sort this out", "do something",
	"please help", "help me", "need help", "i want my money", "refund please", "refund me", "give me my", "call me back",
	"answer me", "respond", "get back to me", "reply to", "someone read", "stop"})

// problemQuestions open a question that carries a problem.
var problemQuestions = []string{"why", "where is my", "where's my", "where are my", "how come", "how long", "how is it",
	"how hard", "how does", "how am i", "how many more", "is it normal", "what's going on", "what is going on",
	"when will", "when are you", "when is my", "seriously", "really", "are you kidding", "what happened to"}

// sarcasm after a failure turns the positive words into scorn ("thanks for
// losing my bag", "love waiting 3 hours").
var sarcasmSet = newPhraseSet([]string{"thanks a lot", "thanks for nothing", "really appreciate", "appreciate it", "great job",
	"good job", "well done", "nice job", "love waiting", "love how", "love that", "love it when", "oh great", "just great",
	"great.", "thanks", "thank you", "lol", "lmao", "lmfao", "haha", "smh", "enjoy", "apparently", "supposedly", "so much for",
	"good times", "fantastic", "wonderful", "brilliant", "amazing"})

// resolutionSet: praise for a problem solved ("support fixed it in 6
// minutes") is a testimonial, whatever the problem was.
var resolutionSet = newPhraseSet([]string{"fixed", "sorted", "solved", "resolved", "back online", "refunded", "refund landed",
	"restored", "replaced", "replacing", "replacement", "swapped", "swapping", "returned", "got back to me", "helped",
	"saved me", "saved us", "saved the day", "saved my day", "saved my life", "caught", "catching", "in minutes",
	"same day", "same week", "within minutes", "quick fix", "no questions asked", "no hassle", "no fuss", "without any fuss",
	"hassle-free", "painless", "on time", "early"})

// complaintEvidence is what the complaint rules found in a post.
type complaintEvidence struct {
	Score    float64 // summed weight of the failure cues and the context around them
	Cue      string  // the strongest failure cue, for the reasons
	Question bool    // a question carrying a problem
	Demand   bool    // the post asks the brand to act
	Sarcasm  bool    // positive words used as scorn after a failure
	Duration string  // waiting measured in time ("3 hours")
	Resolved bool    // praise for a solved problem
}

// Told reports a service failure told as a fact, strongly enough to call
// the post a complaint.
func (c complaintEvidence) Told() bool { return c.Score >= 2 }

func detectComplaint(low string, toks []token) complaintEvidence {
	var c complaintEvidence
	var buf [384]bool
	hit, found := failureSet.hits(low, buf[:])
	best := 0.0
	if found {
		for i, h := range hit[:len(failureCues)] {
			if !h || failureCues[i].weight == 0 {
				continue
			}
			p := failureCues[i].phrase
			// "never had a problem", "no delay at all", "wasn't late":
			// a denied failure is none. Cues that are themselves a
			// negation ("no answer", "never arrived") are asserted by
			// definition.
			if !startsNegated(p) && !assertedSomewhere(low, p) {
				continue
			}
			c.Score += failureCues[i].weight
			if failureCues[i].weight > best {
				best, c.Cue = failureCues[i].weight, p
			}
		}
	}
	facts := c.Score // what the failure cues alone say
	var rbuf [48]bool
	if _, ok := resolutionSet.hits(low, rbuf[:]); ok {
		c.Resolved = true
	}
	c.Question = problemQuestion(low)
	if c.Question {
		c.Score += 1.2
		if c.Cue == "" {
			c.Cue = "a question about a problem"
		}
	}
	c.Duration = waitDuration(low)
	if c.Duration != "" && c.Resolved && (strings.Contains(low, "within "+c.Duration) || strings.Contains(low, "in "+c.Duration)) {
		c.Duration = "" // "replaced within 2 days" is speed, not waiting
	}
	if c.Duration != "" {
		// Waiting measured in hours or days is half a complaint on its
		// own ("20 hours and counting"); with any other cue it is one.
		c.Score += 1
		if c.Cue == "" {
			c.Cue = c.Duration
		}
	}
	// "never … again" in one sentence: "I'll never book with you again".
	if i := indexWord(low, "never"); i >= 0 {
		rest := low[i:]
		if end := strings.IndexAny(rest, ".!?\n"); end >= 0 {
			rest = rest[:end]
		}
		if len(rest) < 60 && containsWord(rest, "again") && !strings.HasPrefix(rest, "never again") {
			c.Score += 2
			if c.Cue == "" || best < 2 {
				c.Cue, best = "never … again", 2
			}
		}
	}
	if r := repeatCount(low); r != "" {
		c.Score += 1.2 // "for the 12th time", "emailed four times"
		if c.Cue == "" {
			c.Cue = r
		}
	}
	var dbuf [32]bool
	if _, ok := demandSet.hits(low, dbuf[:]); ok && c.Score > 0 {
		c.Demand = true
		c.Score += 0.8
	}
	// Scare quotes around the brand's own words ("minor delays", "under
	// review") are scorn.
	if c.Score > 0 && scareQuoted(low) {
		c.Score += 0.8
		c.Sarcasm = true
	}
	// Praise words after a failure are sarcasm ("thanks for charging me
	// twice, really appreciate it"), and the sarcasm is itself scorn.
	if facts >= 1 || c.Score >= 2.5 {
		var sbuf [64]bool
		h, ok := sarcasmSet.hits(low, sbuf[:])
		if ok && c.Resolved && !strings.ContainsAny(low, "🙃🙄") && onlyGratitude(h) {
			// "Thanks for replacing my broken unit": thanks for a
			// problem solved is gratitude, not sarcasm.
			ok = false
		}
		if ok || strings.ContainsAny(low, "🙃🙄") {
			if !c.Sarcasm {
				c.Score += 0.8
			}
			c.Sarcasm = true
		}
	}
	if claimContradicted(low) {
		c.Score += 1.5 // "says delivered but it's not here"
		if best < 1.5 {
			c.Cue, best = "a status contradicted", 1.5
		}
	}
	if leaving(low) {
		c.Score += 0.8 // "moving our team off": a customer leaving
	}
	if priceRise(low) {
		c.Score += 1.5 // "the price went up 40% overnight"
		if best < 1.5 {
			c.Cue, best = "a price rise", 1.5
		}
	}
	return c
}

// onlyGratitude reports sarcasm hits that are plain thanks.
func onlyGratitude(h []bool) bool {
	for i, hit := range h[:len(sarcasmSet.phrases)] {
		if hit && sarcasmSet.phrases[i] != "thanks" && sarcasmSet.phrases[i] != "thank you" {
			return false
		}
	}
	return true
}

// startsNegated reports cues that carry their own negation.
func startsNegated(p string) bool {
	for _, n := range [...]string{"no ", "no-", "never ", "not ", "nobody", "no one", "zero ", "without ", "can't", "cannot", "won't",
		"didn't", "did not", "hasn't", "has not", "haven't", "have not", "wasn't", "doesn't", "still ", "unable", "impossible"} {
		if strings.HasPrefix(p, n) {
			return true
		}
	}
	return false
}

// timeUnits follow a number in waiting measured in time.
var timeUnits = map[string]bool{"min": true, "mins": true, "minute": true, "minutes": true, "hour": true, "hours": true,
	"hr": true, "hrs": true, "h": true, "day": true, "days": true, "week": true, "weeks": true, "month": true, "months": true}

var numberWords = map[string]bool{"two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "several": true, "many": true, "forty": true, "fifty": true, "couple": true}

// waitDuration finds a span of time ("3 hours", "47 minutes", "two weeks",
// "5 business days", "2hrs", "an hour") in lower-case text and returns it.
// A few minutes is speed, not waiting, and is not returned.
func waitDuration(low string) string {
	ws := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range ws {
		num, unit := "", ""
		switch {
		case i+1 < len(ws) && timeUnits[ws[i+1]] && (isDigits(w) || numberWords[w] || w == "an" || w == "a"):
			num, unit = w, ws[i+1]
		case i+2 < len(ws) && timeUnits[ws[i+2]] && (isDigits(w) || numberWords[w]) && !timeUnits[ws[i+1]]:
			num, unit = w, ws[i+2] // "5 business days"
		default:
			if j := strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }); j > 0 && timeUnits[w[j:]] {
				num, unit = w[:j], w[j:]
			}
		}
		if unit == "" || unit == "h" && num == "" {
			continue
		}
		if (num == "a" || num == "an") && !(unit == "hour" || unit == "week" || unit == "month" || unit == "day") {
			continue
		}
		if strings.HasPrefix(unit, "min") {
			if n := atoiSmall(num); n < 20 {
				continue
			}
		}
		return num + " " + unit
	}
	return ""
}

var timesWords = map[string]bool{"twice": false, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true,
	"nine": true, "ten": true, "several": true, "multiple": true, "many": true, "countless": true}

// repeatCount finds a repetition counted out: "for the 12th time", "the
// third time", "four times", "5 times".
func repeatCount(low string) string {
	ws := strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i := 0; i+1 < len(ws); i++ {
		w, next := ws[i], ws[i+1]
		switch {
		case next == "times" && (timesWords[w] || atoiSmall(w) >= 3):
			return w + " times"
		case (next == "time" || timeUnits[next] || next == "attempt" || next == "call" || next == "email") && len(w) > 2 &&
			atoiSmall(w[:len(w)-2]) >= 2 && (strings.HasSuffix(w, "th") || strings.HasSuffix(w, "rd") || strings.HasSuffix(w, "nd")):
			return "the " + w + " " + next // "for the 12th time", "3rd day"
		case (w == "second" || w == "third" || w == "fourth" || w == "fifth") && (timeUnits[next] || next == "attempt" || next == "call" || next == "email"):
			return w + " " + next
		}
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoiSmall(s string) int {
	if !isDigits(s) || len(s) > 6 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = 10*n + int(s[i]-'0')
	}
	return n
}

// problemQuestion reports a question whose opening carries a problem:
// "why is my bill double?", "where is my refund?".
func problemQuestion(low string) bool {
	if !strings.Contains(low, "?") {
		return false
	}
	for _, q := range problemQuestions {
		if i := indexWord(low, q); i >= 0 {
			// The question word must be in a sentence that ends in "?".
			rest := low[i:]
			end := strings.IndexAny(rest, ".!\n")
			qm := strings.IndexByte(rest, '?')
			if qm >= 0 && (end < 0 || qm < end) {
				return true
			}
		}
	}
	return false
}

// scareQuoted reports a short quoted phrase ("minor delays").
func scareQuoted(low string) bool {
	for _, q := range [...][2]string{{"\"", "\""}, {"“", "”"}} {
		i := strings.Index(low, q[0])
		if i < 0 {
			continue
		}
		rest := low[i+len(q[0]):]
		j := strings.Index(rest, q[1])
		if j > 0 && j < 40 {
			return true
		}
	}
	return false
}

// expandHashtags rewrites hashtags as the words they join ("#neverflyingagain"
// → "never flying again", "#BrandFail" → "brand fail"), so the rules read
// them; a hashtag it cannot split is left as it is.
//
// A configured brand term inside a tag is never split ("#iPad" stays
// "iPad", not "i pad"; "#iPadPro" is "iPad pro"): the brand's name is
// no sentence.
func expandHashtags(text string, keep ...string) string {
	if !strings.Contains(text, "#") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '#')
		if j < 0 {
			b.WriteString(text[i:])
			break
		}
		j += i
		b.WriteString(text[i:j])
		k := j + 1
		for k < len(text) {
			r, n := utf8.DecodeRuneInString(text[k:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
				break
			}
			k += n
		}
		tag := text[j+1 : k]
		if words := splitKeeping(tag, keep); words != "" {
			b.WriteString(words)
		} else {
			b.WriteString(text[j:k])
		}
		i = k
	}
	return b.String()
}

// splitKeeping splits tag like splitHashtag, but a brand term in it (the
// longest one found, case ignored) is kept whole and the parts around it
// are split on their own (left as written when they are no words).
func splitKeeping(tag string, keep []string) string {
	low := strings.ToLower(tag)
	at, n := -1, 0
	if len(low) == len(tag) { // byte offsets of low are tag's
		for _, k := range keep {
			k = strings.ReplaceAll(k, " ", "")
			if len(k) < 2 || len(k) <= n {
				continue
			}
			if i := strings.Index(low, k); i >= 0 {
				at, n = i, len(k)
			}
		}
	}
	if at < 0 {
		return splitHashtag(tag)
	}
	parts := make([]string, 0, 3)
	if pre := tag[:at]; pre != "" {
		parts = append(parts, cmp.Or(splitHashtag(pre), pre))
	}
	parts = append(parts, tag[at:at+n])
	if post := tag[at+n:]; post != "" {
		parts = append(parts, cmp.Or(splitHashtag(post), post))
	}
	return strings.Join(parts, " ")
}

// splitHashtag splits a hashtag body into words: at case changes and
// underscores first, then each lower-case run by the fewest known words.
// It returns "" when some part is not made of known words.
func splitHashtag(tag string) string {
	if len(tag) < 2 || len(tag) > 60 {
		return ""
	}
	var parts []string
	start := 0
	rs := []rune(tag)
	if nameLike(rs) {
		// "#Notion" is a name, not "not i on".
		return ""
	}
	for i := 1; i <= len(rs); i++ {
		if i == len(rs) || rs[i] == '_' || (unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1])) {
			if p := strings.Trim(string(rs[start:i]), "_"); p != "" {
				parts = append(parts, strings.ToLower(p))
			}
			start = i
		}
	}
	out := make([]string, 0, 4)
	for _, p := range parts {
		if knownWord(p) {
			out = append(out, p)
			continue
		}
		seg := segmentWords(p)
		if seg == nil {
			if len(parts) > 1 {
				out = append(out, p) // a name between known words: keep it
				continue
			}
			return ""
		}
		out = append(out, seg...)
	}
	return strings.Join(out, " ")
}

// segmentWords splits a lower-case run into the fewest known words, or nil.
func segmentWords(s string) []string {
	if len(s) > 40 || !isASCIILower(s) {
		return nil
	}
	n := len(s)
	best := make([]int, n+1) // fewest words covering s[:i]; -1 unreachable
	from := make([]int, n+1)
	for i := 1; i <= n; i++ {
		best[i] = -1
		for j := max(0, i-16); j < i; j++ {
			if best[j] < 0 || !knownWord(s[j:i]) {
				continue
			}
			if best[i] < 0 || best[j]+1 < best[i] {
				best[i], from[i] = best[j]+1, j
			}
		}
	}
	if best[n] < 0 {
		return nil
	}
	out := make([]string, best[n])
	for i, k := n, best[n]-1; i > 0; i, k = from[i], k-1 {
		out[k] = s[from[i]:i]
	}
	// A one-letter word inside a split ("not i on" from "notion") is how
	// a name falls apart into pieces, not how people join words; only
	// a leading "i" or "a" is kept ("iloveit").
	for k, w := range out {
		if k > 0 && len(w) == 1 {
			return nil
		}
	}
	return out
}

// nameLike reports a tag that is one capitalised word which is no known
// word ("Notion", "Zentro"): a name, which splitting would only break.
func nameLike(rs []rune) bool {
	if len(rs) < 3 || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs[1:] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return !knownWord(strings.ToLower(string(rs)))
}

func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 'a' || s[i] > 'z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// knownWord: words of two letters or more the segmenter may use ("a" and
// "i" too). The vocabulary is the sentiment lexicon, the rule phrases and
// the learned model's vocabulary.
func knownWord(w string) bool {
	if len(w) < 2 {
		return w == "a" || w == "i"
	}
	return segmentVocab[w]
}

var segmentVocab = func() map[string]bool {
	m := map[string]bool{}
	add := func(s string) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' }) {
			if len(w) >= 2 {
				m[w] = true
			}
		}
	}
	for w := range lexicon {
		if isASCIILower(w) {
			add(w)
		}
	}
	for _, c := range failureCues {
		add(c.phrase)
	}
	add(commonWords)
	for _, w := range learnedVocab() {
		add(w)
	}
	return m
}()

// commonWords are frequent English words the lexicon lacks (it lists
// sentiment words only).
const commonWords = `about after again all also always am an and any are around as ask at away back be because been before
being best better between big book both bring but buy by call came can car card care change check city come could customer
day days did do does doing done down during each even ever every eye fast few find first fly flying for from full get gets
getting give go going gone good got great had has have having he help her here him his home hope hour hours how if in into
is it its just keep kind know last late least leave left let life like line little live long look lot made make man many
may me more most much must my name need never new next night no not now of off old on once one only open or order other
our out over own part pay people phone place plan play please put rather read real really ride right room run said same
say see seem send service she should show side since so some still stop store such sure take team tell than thank thanks
that the their them then there these they thing things think this those though through time to today told too took train
try two under until up us use used very wait waiting want was way we week weeks well went were what when where which
while who why will with without work works world would year years yes yet you your`
