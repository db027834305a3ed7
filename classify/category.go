package classify

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"earshot/classify/internal/catmodel"
	"earshot/vocab"
)

// bug_report and product_idea come from a learned multi-label model
// (internal/catmodel: one logistic regression per label over words,
// bigrams, negation-scoped words and cue phrases, with thresholds chosen by
// cross-validation), trained on Mini-BAR. Cue rules carry what the labelled
// data cannot: complaints, misinformation and testimonials are not labelled
// in Mini-BAR. The cue lists for bug reports and ideas below only explain a
// decision; they do not change it.

//go:embed category_model.json
var categoryModelJSON []byte

var categoryModel = func() *catmodel.Model {
	var m catmodel.Model
	if err := json.Unmarshal(categoryModelJSON, &m); err != nil {
		panic("classify: embedded category model: " + err.Error())
	}
	return &m
}()

type cue struct {
	phrase string
	weight float64
}

var bugCues = newCueList([]cue{
	{"crash", 1.5}, {"crashes", 1.5}, {"crashed", 1.5}, {"crashing", 1.5}, {"keeps crashing", 1},
	{"doesn't work", 1.2}, {"does not work", 1.2}, {"didn't work", 1}, {"not working", 1.2}, {"stopped working", 1.5},
	{"won't", 0.6}, {"wont", 0.5}, {"can't", 0.4}, {"cannot", 0.4}, {"unable to", 0.8}, {"fails to", 1}, {"failed to", 1},
	{"error", 1.2}, {"errors", 1.2}, {"error code", 1.5}, {"bug", 1.2}, {"bugs", 1.2}, {"buggy", 1.2}, {"glitch", 1.2}, {"glitchy", 1.2},
	{"freeze", 1}, {"freezes", 1.2}, {"frozen", 1}, {"stuck", 0.8}, {"broken", 1}, {"broke", 0.8},
	{"not syncing", 1.5}, {"won't sync", 1.5}, {"doesn't sync", 1.5}, {"not sync", 1.2}, {"sync issue", 1.2}, {"disconnects", 1.2},
	{"disconnecting", 1.2}, {"keeps disconnecting", 1}, {"can't connect", 1.2}, {"cannot connect", 1.2}, {"won't connect", 1.2},
	{"not loading", 1.2}, {"won't load", 1.2}, {"won't open", 1.2}, {"blank screen", 1.2}, {"black screen", 1.2},
	{"after the update", 0.8}, {"since the update", 0.8}, {"after update", 0.8}, {"since update", 0.8}, {"latest update", 0.6},
	{"please fix", 1.2}, {"fix this", 1}, {"fix it", 0.8}, {"not showing", 1}, {"doesn't show", 1}, {"does not show", 1},
	{"missing data", 1}, {"lost data", 1}, {"data loss", 1.2}, {"deleted all", 1}, {"wiped", 0.8}, {"log in", 0.4}, {"login", 0.5},
	{"not accurate", 0.8}, {"inaccurate", 0.8}, {"wrong", 0.5}, {"drains", 0.8}, {"battery drain", 1}, {"lag", 0.6}, {"laggy", 0.8},
	{"timeout", 1}, {"timed out", 1}, {"500", 0.3}, {"404", 0.6}, {"exception", 1}, {"stack trace", 1.5}, {"outage", 1}, {"is down", 1},
	{"not responding", 1.2}, {"unresponsive", 1}, {"keeps", 0.4}, {"no longer", 0.8}, {"problem", 0.6}, {"issue", 0.6}, {"issues", 0.6},
	{"anyone else", 0.4}, {"battery", 0.4}, {"locked out", 1}, {"spinner", 0.6}, {"502", 0.6}, {"503", 0.6},
	{"disappeared", 1}, {"disappear", 0.8}, {"vanished", 1}, {"leaked", 1}, {"data breach", 1.5}, {"breach", 1},
	{"vulnerability", 1.5}, {"security issue", 1.5}, {"unreadable", 0.8}, {"duplicating", 1}, {"duplicated", 0.8},
	{"quits", 0.8}, {"loops", 0.6}, {"unusable", 1}, {"deleted", 0.8}, {"wiped", 1},
})

var ideaCues = newCueList([]cue{
	{"wish", 1.2}, {"i wish", 0.5}, {"would be great if", 1.8}, {"would be nice", 1.6}, {"would be great", 1.2}, {"would be awesome", 1.4},
	{"would love", 1.2}, {"would like", 1}, {"i'd like", 1}, {"i'd love", 1.2}, {"please add", 1.8}, {"pls add", 1.8},
	{"feature request", 2}, {"should add", 1.5}, {"could add", 1.2}, {"can you add", 1.5}, {"could you add", 1.5}, {"add a", 0.8},
	{"add an", 0.8}, {"add the", 0.6}, {"add more", 1}, {"add support", 1.5}, {"option to", 1}, {"ability to", 1}, {"suggest", 1},
	{"suggestion", 1.2}, {"it would be", 0.6}, {"hope you", 0.8}, {"needs a", 0.8}, {"need a", 0.6}, {"needs an", 0.8},
	{"support for", 0.8}, {"integrate with", 1}, {"integration with", 1}, {"allow us", 1}, {"allow me", 0.8}, {"allow users", 1},
	{"let us", 1}, {"let me", 0.5}, {"make it possible", 1.2}, {"missing feature", 1.5}, {"would be better", 1}, {"should have", 0.8},
	{"should be able", 1.2}, {"please make", 1}, {"please bring", 1.2}, {"bring back", 1}, {"dark mode", 1}, {"widget", 0.6},
	{"customizable", 0.6}, {"customize", 0.6}, {"request", 0.6}, {"please consider", 1.2}, {"why not", 0.6}, {"how about", 0.6},
	{"could do with", 1.5}, {"could use", 1}, {"missing", 0.6}, {"why is there no", 1.5}, {"there is no way", 0.8}, {"no way to", 0.8},
	{"why can't", 1}, {"needs more", 1.2}, {"need more", 1}, {"more options", 1}, {"improvement", 0.8}, {"improve", 0.6},
	{"i need", 0.5}, {"hope", 0.5}, {"would", 0.4}, {"should", 0.5}, {"option", 0.6}, {"options", 0.5}, {"please", 0.3},
	{"instead of", 0.5}, {"ability", 0.6}, {"possibility", 0.8}, {"can't set", 0.8}, {"cannot set", 0.8}, {"customise", 0.6},
	{"only improvement", 1.5}, {"suggestions", 1.2}, {"lacks", 0.8}, {"lacking", 0.8}, {"wishlist", 1.5}, {"wish list", 1.5},
})

var complaintCues = newCueList([]cue{
	{"refund", 2}, {"money back", 2}, {"worst support", 2.5}, {"customer service", 1.2}, {"customer support", 1.2}, {"support team", 0.6},
	{"cancel my subscription", 2.5}, {"cancelling my subscription", 2.5}, {"canceling my subscription", 2.5}, {"cancel subscription", 2},
	{"cancelled my subscription", 2.5}, {"unsubscribe", 1.2}, {"charged", 1.5}, {"overcharged", 2}, {"double charged", 2.5}, {"billing", 1.2},
	{"rip off", 2}, {"ripoff", 2}, {"waste of money", 2}, {"never again", 1.5}, {"terrible service", 2}, {"worst service", 2},
	{"no response", 1.2}, {"no reply", 1.2}, {"rude", 1.5}, {"too expensive", 1.2}, {"hidden fees", 2}, {"price increase", 1.2},
	{"worst company", 2}, {"worst app", 1.2}, {"unacceptable", 1}, {"ignored my", 1.2}, {"still waiting", 1}, {"paywall", 1},
	{"subscription", 0.5}, {"greedy", 1.2}, {"ads", 0.4}, {"switching to", 0.8}, {"going back to", 0.6}, {"uninstall", 0.6},
	{"uninstalled", 0.6}, {"disappointed", 0.6}, {"complaint", 1.5}, {"cancelling", 1}, {"canceling", 1},
	{"not worth", 1.2}, {"unbearable", 1}, {"bloated", 0.8}, {"creepy", 0.8}, {"frustrating", 0.8}, {"ignores", 0.8},
	{"kept charging", 2}, {"lawyer", 1}, {"1 star", 1}, {"one star", 1}, {"ads everywhere", 1.5}, {"upsell", 1},
	{"cancelled", 1}, {"canceled", 1}, {"price hike", 2}, {"price hikes", 2}, {"raised the price", 2}, {"raised prices", 2},
	{"raised its prices", 2}, {"more expensive", 1}, {"not happy", 1.2}, {"unhappy", 1.2}, {"is a joke", 1.5},
	{"closed my ticket", 1.5}, {"my ticket", 0.8}, {"terrible decision", 1.5}, {"bad decision", 1.2}, {"removed", 0.6},
	{"redesign", 0.6}, {"confusing", 0.8}, {"done with", 1}, {"fed up", 1.2}, {"switching from", 1}, {"moving away", 1},
	{"support", 0.3}, {"ugly", 0.8}, {"moving off", 1}, {"migrating off", 1}, {"migrating away", 1}, {"switching away", 1}, {"account was", 0.6}, {"locked my account", 1.5}, {"banned my", 1.2},
})

var misinfoCues = newCueList([]cue{
	{"is fake", 2.5}, {"are fake", 2.5}, {"it's fake", 2.5}, {"fake news", 2.5}, {"false claim", 2.5}, {"false claims", 2.5},
	{"is a scam", 2.5}, {"it's a scam", 2.5}, {"scam", 1.5}, {"hoax", 2.5}, {"is lying", 2}, {"are lying", 2}, {"lies", 1.2},
	{"misleading", 1.5}, {"rumor", 1.5}, {"rumour", 1.5}, {"conspiracy", 2}, {"debunked", 2}, {"propaganda", 2},
	{"not true", 1.2}, {"isn't true", 1.2}, {"false", 1}, {"fabricated", 2}, {"made up", 1}, {"spreading", 0.8}, {"disinformation", 2.5},
	{"misinformation", 2.5}, {"don't believe", 1}, {"secretly", 1}, {"cover up", 1.5}, {"cover-up", 1.5}, {"fraud", 1.2},
	// Rumour markers: claims passed on without a source.
	{"trust me", 1.2}, {"wake up", 1}, {"they don't want you to know", 2}, {"spread the word", 1.2}, {"delete it now", 1.2},
	{"delete your account", 0.8}, {"sells your data", 1.5}, {"selling your data", 1.5}, {"sells all your", 1.5},
	{"sells your", 1.2}, {"owned by the", 1}, {"government", 0.6}, {"was banned in", 1.2}, {"illegal to use", 1.5},
	{"allegedly", 1}, {"apparently", 0.6}, {"i heard", 0.8}, {"heard that", 0.8}, {"psa", 0.8}, {"exposed", 1},
	{"heard", 0.6}, {"insider", 1.2}, {"confirmed by", 0.8}, {"don't install", 1.2}, {"malware", 1.2}, {"spyware", 1.5},
	{"trojan", 1.2}, {"records your", 1.2}, {"shutting down", 1}, {"no encryption", 1}, {"reads your", 1},
})

var praiseCues = newCueList([]cue{
	{"recommend", 1.5}, {"highly recommend", 1.5}, {"must have", 1.2}, {"must-have", 1.2}, {"best app", 1.2}, {"love this", 1},
	{"love it", 1}, {"love the app", 1}, {"game changer", 1.2}, {"life saver", 1.2}, {"lifesaver", 1.2}, {"changed my life", 1.5},
	{"5 stars", 1.2}, {"five stars", 1.2}, {"can't live without", 1.5}, {"thank you", 0.6}, {"thanks to", 0.8}, {"switched to", 0.6},
	{"the best", 0.8}, {"so good", 0.6}, {"great app", 1}, {"excellent app", 1}, {"amazing app", 1}, {"works great", 1},
	{"works perfectly", 1}, {"works well", 0.8}, {"happy with", 0.8}, {"impressed", 0.8}, {"well done", 0.8}, {"kudos", 0.8},
	// Praise of support that solved a problem: the problem words ("issue",
	// "bug") are in the post, but the post is a testimonial.
	{"great support", 1.5}, {"amazing support", 1.5}, {"excellent support", 1.5}, {"support was great", 1.5},
	{"support is great", 1.5}, {"support was amazing", 1.5}, {"quick response", 1}, {"fast response", 1},
	{"got back to me", 0.8}, {"credit where", 1.2}, {"fixed it in", 0.8}, {"fixed my", 0.6}, {"fixed our", 0.6},
	{"no questions asked", 0.8}, {"never looked back", 1.5}, {"never go back", 1.2}, {"not go back", 1.2},
	{"worth every penny", 1.5}, {"worth it", 1}, {"can't imagine", 1}, {"rock solid", 1.2}, {"shoutout", 1}, {"shout out", 1},
	{"amazing team", 1}, {"the only one that", 1}, {"best notes app", 1.2}, {"favorite app", 1.2}, {"favourite app", 1.2},
	// Gratitude and respect addressed to the brand's people.
	{"thank you", 0.6}, {"thanks", 0.5}, {"thanks for", 0.6}, {"huge thanks", 1.2}, {"respect", 1}, {"legends", 1.2},
	{"legend", 1}, {"you rock", 1.2}, {"you guys rock", 1.2}, {"nice job", 1}, {"great job", 1}, {"great service", 1.5},
	{"excellent service", 1.5}, {"great experience", 1.2}, {"smoothest", 1}, {"fastest", 0.8}, {"painless", 1},
	{"10/10", 1.2}, {"will use again", 1.2}, {"will be back", 1.2}, {"saved my", 1}, {"you saved", 1.2}, {"so kind", 1},
	{"faith in humanity", 1.2}, {"made our", 0.8}, {"made my", 0.8}, {"more like this", 1}, {"above and beyond", 1.5},
	// Praise told by denying a failure.
	{"never disappoints", 1.5}, {"never disappointed", 1.5}, {"never fails to", 1.5}, {"never lets me down", 1.5},
	{"never let me down", 1.5}, {"never let us down", 1.5}, {"never lets us down", 1.5}, {"no complaints", 1},
	{"can't fault", 1.2}, {"couldn't be happier", 1.4}, {"swapping", 0.5}, {"swapped", 0.5}, {"no hassle", 0.8},
	{"best", 0.5}, {"love", 0.5}, {"delicious", 0.8}, {"on time", 0.6}, {"quick fix", 1}, {"sorted", 0.6}, {"solved", 0.6},
})

// cueList is a list of weighted cue phrases, indexed for matching.
type cueList struct {
	cues []cue
	set  *phraseSet
}

func newCueList(cues []cue) *cueList {
	phrases := make([]string, len(cues))
	for i, c := range cues {
		phrases[i] = c.phrase
	}
	return &cueList{cues: cues, set: newPhraseSet(phrases)}
}

// cueScore sums the weights of the cues found in lower-case text and
// returns the strongest cue (the first of the highest weight) for
// explanations.
func cueScore(low string, cl *cueList) (float64, string) {
	var buf [64]bool
	hit, found := cl.set.hits(low, buf[:])
	if !found {
		return 0, ""
	}
	s, best, bestW := 0.0, "", 0.0
	for i, c := range cl.cues {
		if hit[i] {
			s += c.weight
			if c.weight > bestW {
				best, bestW = c.phrase, c.weight
			}
		}
	}
	if s > 4 {
		s = 4
	}
	return s, best
}

// cueScores are the cue lists' scores for one post, read once and shared
// by the category rules and the learned sentiment layer.
type cueScores struct {
	bug, grievance, praise          float64
	bugCue, grievanceCue, praiseCue string
}

func readCues(low string) cueScores {
	var c cueScores
	c.bug, c.bugCue = cueScore(low, bugCues)
	c.grievance, c.grievanceCue = cueScore(low, complaintCues)
	c.praise, c.praiseCue = cueScore(low, praiseCues)
	return c
}

// hasErrorCode finds error codes such as "error 0x80070005", "E-1234" or
// "code 502".
func hasErrorCode(low string) bool {
	for _, key := range []string{"error", "code", "err"} {
		i := indexWord(low, key)
		if i < 0 {
			continue
		}
		rest := low[i+len(key):]
		if len(rest) > 16 {
			rest = rest[:16]
		}
		for _, r := range rest {
			if r >= '0' && r <= '9' {
				return true
			}
		}
	}
	return false
}

// categoryDecision is the category and why it was chosen.
type categoryDecision struct {
	Category string
	Cue      string // strongest rule cue, if any
	// Bug and Idea are the multi-label view: a post can be both a bug
	// report and a product idea; Category picks one of them for display.
	Bug, Idea bool
	// Reason is the one-line reason stored with the mention, e.g.
	// `complaint: a service failure told as fact ("still no refund")`.
	Reason string
}

// logit is log(p/(1-p)), clamped away from 0 and 1.
func logit(p float64) float64 {
	p = math.Min(math.Max(p, 1e-6), 1-1e-6)
	return math.Log(p / (1 - p))
}

// problemEvidence reports whether a post says something is wrong: a bug
// cue (bugScore > 0), an error code, or a negation ("can't", "never",
// "not"). Trained on app reviews, where nearly every review is about the
// app, the model also scores topic words ("sync", "board", "week") as bug
// evidence; in brand mentions, which are often praise, news or comparisons,
// that alone turned "the board view saved us a weekly sync meeting" into a
// bug report. A post that is not negative and has none of these is not one.
func problemEvidence(clauses []string, bugScore float64, errorCode bool) bool {
	if bugScore > 0 || errorCode {
		return true
	}
	for _, w := range clauses {
		if isNegation(w) {
			return true
		}
	}
	return false
}

// categorize picks a category. clauses is the post split by
// words.WithBreaks, low its lower-case form, compound its sentiment;
// brandNear reports whether the brand is named close to a misinformation
// cue.
func categorize(m *catmodel.Model, clauses []string, low string, compound float64, cs cueScores, ce complaintEvidence, brandNear func(string) bool) categoryDecision {
	var buf [2]float64
	p := m.Probs(catmodel.FeaturesOf(clauses), buf[:0])
	// Margins over each label's threshold, in log-odds: > 0 means the label
	// applies.
	mb := logit(p[0]) - logit(m.Threshold[0])
	mi := logit(p[1]) - logit(m.Threshold[1])
	d := categoryDecision{Bug: mb >= 0, Idea: mi >= 0}
	// The bug cues gate the model's decision both ways (cross-app Mini-BAR
	// bug_report F1 0.845 / 0.864 with both checks, 0.845 / 0.844 without).
	bs, bugCue := cs.bug, cs.bugCue
	errorCode := hasErrorCode(low)
	if d.Bug && compound > -neutralThreshold && !problemEvidence(clauses, bs, errorCode) {
		d.Bug, mb = false, math.Min(mb, -0.01)
	}
	// Clear praise with no defect word is not a bug report, whatever
	// topic words the app-review model reads in it.
	if d.Bug && compound >= 0.5 && cs.praise >= 0.5 && bs == 0 && !errorCode && !ce.Told() {
		d.Bug, mb = false, math.Min(mb, -0.01)
	}
	if !d.Bug && compound < 0.3 {
		// Explicit breakage words the app-review model weighs little
		// outside its training app ("disappeared", "leaked", "is down",
		// an error code) make a near-miss a bug report, and strong ones
		// any post that is not praise.
		if (bs >= 1 || errorCode) && mb > -1.5 || bs >= 2 {
			d.Bug, mb = true, 0.01
		}
	}

	rc, cc := cs.grievance, cs.grievanceCue
	rm, cm := cueScore(low, misinfoCues)
	if rm > 0 && !brandNear(cm) {
		rm = 0
	}
	// The highest score wins; ties go to the category listed first.
	best, bestS, cue := "other", math.Inf(-1), ""
	for _, c := range vocab.Categories {
		var s float64
		var why string
		switch c {
		case "bug_report":
			s = mb
		case "product_idea":
			s = mi
		case "other":
			s = 0
		case "complaint":
			// Grievances about the company (price, support, policy,
			// changes), or a clearly negative post that is neither a bug
			// report nor an idea.
			// A service failure told as fact is a complaint whatever
			// its words.
			if compound >= 0.3 || (rc <= 0 && compound > -0.3 && !ce.Told()) {
				continue
			}
			s, why = rc+2*math.Max(0, -compound)-0.5+0.3*math.Min(mb, 0), cc
			if ce.Score >= 1 {
				// When the defect model already sees a problem report,
				// the failure is most likely the product's: bug_report
				// keeps it unless the grievance is about money or
				// service (refund, charged, no answer: rc).
				w := 0.8
				if d.Bug || d.Idea {
					w = 0.25
				}
				s += w * math.Min(ce.Score, 4)
			}
		case "misinformation":
			if rm <= 0 {
				continue
			}
			s, why = 1.5*rm-1.5, cm
		case "testimonial":
			// Praise with a recommendation, or strong praise alone; over
			// a bug report only when the praise is explicit (support that
			// fixed the problem).
			rt, ct := cs.praise, cs.praiseCue
			if compound < 0.5 && (compound < 0.05 || rt <= 0) && !(rt >= 1.2 && compound > -neutralThreshold) || ce.Told() || d.Idea || (d.Bug && rt < 1.5) {
				continue
			}
			s, why = rt+2*(compound-0.4), ct
		default:
			continue
		}
		if s > bestS {
			best, bestS, cue = c, s, why
		}
	}
	if best == "product_idea" && supportQuestion(low) {
		if is, _ := cueScore(low, ideaCues); is < 1.5 {
			// "How do I change my address?" asks for help, not for a
			// feature: without a clear request it is other.
			best, cue = "other", ""
		}
	}
	switch best {
	case "bug_report":
		cue = bugCue
		if cue == "" && errorCode {
			cue = "error code"
		}
	case "product_idea":
		_, cue = cueScore(low, ideaCues)
	}
	d.Category, d.Cue = best, cue
	d.Reason = categoryReason(best, cue, compound, ce)
	return d
}

// supportQuestion reports a post that opens a how-to question.
func supportQuestion(low string) bool {
	if !strings.Contains(low, "?") {
		return false
	}
	for _, q := range [...]string{"how do i", "how can i", "can you check", "where do i", "where can i"} {
		if i := indexWord(low, q); i >= 0 && (i == 0 || strings.IndexAny(low[:i], ".!?") >= 0 || i < 30) {
			return true
		}
	}
	return false
}

// categoryReason words why a post got its category, in one line.
func categoryReason(category, cue string, compound float64, ce complaintEvidence) string {
	q := func(s string) string {
		if s == "" {
			return ""
		}
		return fmt.Sprintf(" (%q)", s)
	}
	switch category {
	case "complaint":
		switch {
		case ce.Told() && ce.Sarcasm:
			return "complaint: a service failure told with sarcasm" + q(ce.Cue)
		case ce.Told() && ce.Question:
			return "complaint: a question to the brand that carries a problem" + q(ce.Cue)
		case ce.Told():
			return "complaint: a service failure told as fact" + q(ce.Cue)
		case cue != "":
			return "complaint: a grievance about the company" + q(cue)
		}
		return "complaint: a clearly negative post about the brand"
	case "bug_report":
		if cue != "" {
			return "bug_report: describes something that does not work" + q(cue)
		}
		return "bug_report: reads like a problem report (model trained on app reviews)"
	case "product_idea":
		if cue != "" {
			return "product_idea: asks for a change or a feature" + q(cue)
		}
		return "product_idea: reads like a feature request (model trained on app reviews)"
	case "testimonial":
		if cue != "" {
			return "testimonial: praise for the brand" + q(cue)
		}
		return "testimonial: strongly positive about the brand"
	case "misinformation":
		return "misinformation: a claim passed on as fact without a source" + q(cue)
	}
	if compound <= -0.3 {
		return "other: negative, but no complaint, defect or request about the brand found"
	}
	return "other: no complaint, defect, request or praise found"
}
