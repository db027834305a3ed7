package classify

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"

	"earshot/classify/internal/catmodel"
	"earshot/classify/internal/words"
)

// Builtin is the offline, deterministic classifier. It holds no mutable
// state and is safe for concurrent use.
type Builtin struct {
	model *catmodel.Model
	// mode and detail say how New chose this classifier ("auto": no
	// usable Ollama answered at start).
	mode, detail string
}

// NewBuiltin returns the built-in classifier with the embedded category model.
func NewBuiltin() *Builtin { return &Builtin{model: categoryModel} }

// Name implements Classifier.
func (b *Builtin) Name() string { return "builtin" }

// analysis is what every rule reads from one post, computed once.
type analysis struct {
	text string
	low  string
	toks []token
	// clauses is the text's words with words.Break between clauses (the
	// category model's input); words is the same without the Breaks.
	clauses []string
	words   []string
	sent    Sentiment
}

func analyze(text string) analysis {
	a := analysis{text: text, low: strings.ToLower(text)}
	a.toks = tokenize(text, make([]token, 0, 32))
	a.sent = scoreTokens(text, a.low, a.toks)
	a.clauses = words.WithBreaks(text)
	a.words = words.Without(a.clauses, make([]string, 0, len(a.clauses)))
	return a
}

// maxAnalyzed bounds the text the rules read, so a huge post costs no more
// than a long one. The summary still comes from the start of the post.
const maxAnalyzed = 20000

// Classify implements Classifier. It never fails except on a cancelled
// context.
func (b *Builtin) Classify(ctx context.Context, in Input) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return b.classify(in), nil
}

func (b *Builtin) classify(in Input) Result {
	text := in.Text
	if len(text) > maxAnalyzed {
		text = truncateUTF8(text, maxAnalyzed)
	}
	if strings.ContainsAny(text, "<&") {
		// The rules read the words a reader sees: tags and entities would
		// split "deleted all <b>my</b> data" and hide its signals.
		text = cleanText(text)
	}
	// "#neverflyingagain" is read as "never flying again"; a brand term
	// in a tag is kept whole ("#iPad" is "iPad", not "i pad").
	terms := brandTerms(in)
	expanded := expandHashtags(text, terms...)
	a := analyze(expanded)
	// Relevance reads the post as written: "#iPad" names the brand,
	// whatever the splitter makes of it.
	ra := a
	if expanded != text {
		// Relevance reads the text, its lower case and its words only.
		ra = analysis{text: text, low: strings.ToLower(text)}
		ra.words = words.Words(text)
	}
	rel := judgeRelevance(ra, in)

	cs := readCues(a.low)
	// The brand named with "down" ("Zentro down?") and a server error
	// told with its code are outages: the alarm rules read them as such.
	alow := a.low
	if brandDown(a.low, terms) {
		alow += "\n is down"
	} else if serverError(a.low) {
		alow += "\n server error"
	}
	alarm, alarmPhrase := criticalAlarm(alow)
	j := judge(a, cs, alarm, alarmPhrase)
	cat := categorize(b.model, a.clauses, a.low, j.compound, cs, j.complaint, func(cue string) bool {
		return brandNear(a.low, cue, in)
	})
	// Data loss, a security hole or an outage is a defect to fix, however
	// calmly it is told ("the CLI stores the token in plain text"), unless
	// the post is a grievance about money or support.
	if alarm, ph := alarm, alarmPhrase; alarm != "" && (cat.Category == "other" || cat.Category == "testimonial" && !j.thanked || cat.Category == "complaint" && cat.Cue == "") {
		cat.Category, cat.Cue = "bug_report", ph
		cat.Reason = fmt.Sprintf("bug_report: %s (%q)", signalWords[alarm], ph)
		if j.compound > -0.3 {
			j.compound = -0.3 // a defect report is not neutral news
		}
		j.ruled = true
	}
	if alarm != "" && !j.thanked && (cat.Category == "bug_report" || cat.Category == "complaint") && j.compound > -0.3 {
		j.compound, j.ruled = -0.3, true // "the API returns 500 on every POST" is not neutral news
	}
	// Thanks for a problem solved is praise, whatever the problem was:
	// "support got back to me in 6 minutes during the outage. Respect."
	// "replaced my faulty charger the next day. Thank you!" is no feature
	// request either, unless it asks for one.
	ideaAsked := false
	if cat.Category == "product_idea" {
		is, _ := cueScore(a.low, ideaCues)
		ideaAsked = is >= 1.5
	}
	if j.thanked && cs.bug < 1.5 && (cs.praise >= 1 && (cat.Category == "bug_report" || cat.Category == "complaint") ||
		cs.praise >= 0.5 && (cat.Category == "product_idea" && !ideaAsked || cat.Category == "other")) {
		cat.Category, cat.Cue = "testimonial", cs.praiseCue
		cat.Reason = fmt.Sprintf("testimonial: thanks for a problem solved (%q)", cmp.Or(cs.praiseCue, j.complaint.Cue))
	}
	cat = chatterRules(cat, a, cs, &j, alarm, addressedToBrand(a.text, a.low, terms))
	// Faint praise ("not terrible, I guess") is no defect report, whatever
	// the negation reads like to the app-review model.
	var fbuf [16]bool
	_, faint := faintPraise.hits(a.low, fbuf[:])
	if faint && !j.complaint.Told() && cs.bug == 0 && alarm == "" && cat.Category != "testimonial" && cat.Category != "misinformation" {
		cat.Category, cat.Cue = "other", ""
		cat.Reason = "other: faint praise, neither a problem nor a recommendation"
		j.compound, j.ruled = 0, true
	}
	// A rumour is misinformation, wherever its words would file it. A
	// correction of one is no complaint: it is filed as misinformation
	// too (the team learns a rumour is going round), neutral and not
	// urgent, and never reaches the public wall.
	if marker, debunk := rumour(a.low); debunk && !j.complaint.Told() && alarm == "" {
		cat.Category, cat.Cue = "misinformation", ""
		cat.Reason = "misinformation: corrects a rumour going round (a debunk, not a complaint)"
		j.compound, j.ruled = 0, true
		j.complaint = complaintEvidence{}
	} else if marker != "" && !j.thanked {
		// Whichever company the rumour names: it is an unconfirmed
		// claim, and no post for the public wall.
		cat.Category, cat.Cue = "misinformation", marker
		cat.Reason = fmt.Sprintf("misinformation: an unconfirmed claim passed on (%q)", marker)
		if j.compound > 0 {
			j.compound = 0
		}
		j.ruled = true
	}
	category := cat.Category
	disabled := !categoryEnabled(in.Categories, category)
	if disabled {
		category = "other"
	}
	offTopic := !rel.Relevant && rel.Score <= offTopicScore
	if offTopic && category != "other" {
		// A post not about the brand is nobody's complaint or praise
		// ("I love my apple pie recipe"): it is filed as other.
		category, cat.Reason, disabled = "other", "other: not about the brand", false
	}
	var learnedSent, sentCue string
	if in.Corrections != nil && !offTopic {
		// What this project's people corrected wins over the rules for
		// posts like the corrected ones.
		ws := contentWords(a.words, make([]string, 0, len(a.words)))
		if l, _, cue := in.Corrections.category.predict(ws, terms); l != "" && l != category && categoryEnabled(in.Categories, l) {
			category, disabled = l, false
			cat.Category, cat.Cue = l, cue
			cat.Reason = fmt.Sprintf("%s: like posts this project's people filed as %s (%q)", l, l, cue)
		}
		learnedSent, _, sentCue = in.Corrections.sentiment.predict(ws, terms)
	}
	ulow := a.low
	if j.thanked && category == "testimonial" {
		ulow = "" // the outage a thank-you mentions is over: no alarm
	}
	if ulow != "" {
		ulow = alow
	}
	urg := urgencyFrom(ulow, category, j.compound, reach(in), j.complaint)
	if offTopic && urg.Score > notRelevantUrgency {
		urg.Score = notRelevantUrgency
		urg.Sentence = fmt.Sprintf("urgency %d: not about the brand", notRelevantUrgency)
		urg.Reasons = append(urg.Reasons, fmt.Sprintf("urgency capped at %d: not about the brand", notRelevantUrgency))
	}
	reasons := make([]string, 0, len(urg.Reasons)+2)
	if cat.Cue != "" && category == cat.Category {
		reasons = append(reasons, "category "+category+": cue \""+cat.Cue+"\"")
	} else {
		reasons = append(reasons, "category "+category)
	}
	reasons = append(reasons, urg.Reasons...)
	reasons = append(reasons, rel.Reason)
	sentiment := labelFor(j.compound)
	if !j.ruled {
		// Where no rule is sure, the learned layer reads the post.
		if l, _, ok := learnedSentiment(a, cs, j.complaint); ok {
			sentiment = l
		}
	}
	switch {
	case category == "testimonial":
		sentiment = "positive" // praise is filed as praise only when it is praise
	case category == "complaint" && (sentiment != "positive" || j.compound < 0):
		sentiment = "negative" // a grievance is not neutral news
	case category == "bug_report" && (cs.bug >= 1 || j.complaint.Score >= 1 || j.ruled) && (sentiment != "positive" || j.compound < 0.5):
		// Something the customer needs fixed reads as negative to the
		// brand's team, however calm the words; a mostly happy post
		// that mentions a glitch keeps its praise.
		sentiment = "negative"
	}
	if category == "product_idea" && math.Abs(j.compound) < 0.5 {
		// A request is not a feeling: "please add", "I wish" and "would
		// love" carry positive words, "missing" and "can't" negative
		// ones, but a calm feature idea is neutral.
		sentiment = "neutral"
	}
	if learnedSent != "" && learnedSent != sentiment {
		sentiment = learnedSent
		reasons = append(reasons, fmt.Sprintf("sentiment %s: like posts this project's people corrected to %s (%q)", sentiment, sentiment, sentCue))
	}
	catReason := cat.Reason
	if disabled {
		catReason = "other: " + cat.Category + " is turned off in this project"
	}
	return Result{
		Category:       category,
		Sentiment:      sentiment,
		Urgency:        urg.Score,
		Summary:        Summarize(in.Text, in.Keywords),
		IsRelevant:     rel.Relevant,
		Classifier:     b.Name(),
		Reasons:        reasons,
		CategoryReason: catReason,
		UrgencyReason:  urg.Sentence,

		RelevanceReason: rel.Reason,
	}
}

// judgement is the post's sentiment after the complaint rules (and the
// learned layer) have read it.
type judgement struct {
	compound  float64 // -1..1, what the label and urgency read
	complaint complaintEvidence
	// ruled is set when a rule decided the sentiment (a failure told as
	// fact, praise for a solved problem, an alarm signal); the learned
	// layer decides the rest.
	ruled bool
	// thanked is praise for a solved problem: its alarm words ("the
	// outage", "my lost data") are the past.
	thanked bool
}

// judge combines the lexicon score with the complaint rules: a service
// failure told as fact makes the post negative, whatever its words, unless
// it is praise for the failure being solved; sarcasm after a failure turns
// praise words into scorn.
func judge(a analysis, cs cueScores, alarm, alarmPhrase string) judgement {
	j := judgement{compound: a.sent.Compound, complaint: detectComplaint(a.low, a.toks)}
	c := &j.complaint
	praise := cs.praise
	if alarm != "" && !c.Sarcasm && !c.Resolved {
		// Praise words around a loss are scorn: "Oh wonderful, it
		// deleted all my projects. Love that for me."
		var sbuf [32]bool
		if _, ok := lossSarcasm.hits(a.low, sbuf[:]); ok {
			c.Sarcasm = true
			c.Score += 2
			if c.Cue == "" || c.Score < 4 {
				c.Cue = alarmPhrase
			}
		}
	}
	// Praise told by denying a failure: "never disappoints".
	var lbuf [32]bool
	if _, ok := litotesPraise.hits(a.low, lbuf[:]); ok && c.Score < 1 && cs.bug <= 1 && alarm == "" {
		j.compound = math.Max(j.compound, 0.5)
		j.ruled = true
		return j
	}
	// Praise for a solved problem: "support replaced my broken blender
	// same day. legends".
	thanked := c.Resolved && !c.Sarcasm && (j.compound >= 0.3 || praise > 0.5)
	switch {
	case thanked:
		c.Score = 0 // the problem is the past of a thank-you
		j.compound = math.Max(j.compound, 0.3)
		j.ruled, j.thanked = true, true
	case c.Told():
		j.compound = math.Min(j.compound, -(0.3 + 0.1*math.Min(c.Score, 5)))
		j.ruled = true
	case c.Score >= 1 && !c.Resolved && j.compound > -neutralThreshold && j.compound < 0.3:
		// A weak failure cue in a post with no clear feeling leans
		// negative: "5 hour delay", "why does a transfer take 5 days".
		j.compound = -0.1 - 0.05*c.Score
	}
	return j
}

// categoryEnabled reports whether c may be produced; nil means all enabled.
func categoryEnabled(cats []CategoryInfo, c string) bool {
	if cats == nil || c == "other" {
		return true
	}
	for _, ci := range cats {
		if ci.Category == c {
			return ci.Enabled
		}
	}
	return false
}

// brandNear reports whether the brand is named in the same sentence as cue
// (or whether there is no brand to look for).
func brandNear(low, cue string, in Input) bool {
	terms := brandTerms(in)
	if len(terms) == 0 {
		return true
	}
	i := indexWord(low, cue)
	if i < 0 {
		return false
	}
	start := strings.LastIndexAny(low[:i], ".!?\n")
	end := strings.IndexAny(low[i:], ".!?\n")
	if end < 0 {
		end = len(low)
	} else {
		end += i
	}
	sentence := low[start+1 : end]
	for _, t := range terms {
		if containsWord(sentence, t) {
			return true
		}
	}
	// Pronouns standing for the brand in a short post.
	for _, p := range []string{"it", "this", "they", "this app", "the app", "the company"} {
		if containsWord(sentence, p) {
			return true
		}
	}
	return false
}

// brandTerms are the lower-case names the post may use for the brand.
func brandTerms(in Input) []string {
	var terms []string
	for _, k := range in.Keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			terms = append(terms, k)
		}
	}
	if n := strings.ToLower(strings.TrimSpace(in.Project.Name)); n != "" {
		terms = append(terms, n)
	}
	return terms
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
