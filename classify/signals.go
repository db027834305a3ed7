package classify

import (
	"fmt"
	"strings"
)

// Signals added after issue 28's error analysis of real brand chatter.
// These lists are kept apart from the cue lists the learned sentiment
// layer reads (FeatureFingerprint), so adding to them needs no retraining.

// promoCues are giveaways and promotions: "win an iPad 2", "FREE Android
// phone", "20% off". They name the brand with glowing words, but nobody
// praises anything: they are their own signal, filed as other and neutral.
var promoCues = newCueList([]cue{
	{"giveaway", 1.5}, {"give away", 1.2}, {"giving away", 1.5}, {"win a", 1}, {"win an", 1}, {"win the", 0.6},
	{"to win", 1}, {"chance to win", 1.5}, {"enter to win", 1.5}, {"sweepstakes", 1.5}, {"contest", 0.8}, {"raffle", 1.2},
	{"for free", 0.6}, {"free", 0.5}, {"promo code", 1.5}, {"discount code", 1.5}, {"coupon", 1.2}, {"% off", 1.2},
	{"percent off", 1.2}, {"limited time", 1}, {"retweet", 0.6}, {"rt to", 1}, {"follow us", 0.6}, {"following us", 0.6},
	{"sign up", 0.4}, {"click here", 0.8}, {"deal of the day", 1.2}, {"on sale", 1}, {"flash sale", 1.5},
	{"free shipping", 1}, {"first 100", 0.8}, {"first 50", 0.8}, {"first 1000", 0.8}, {"pre-order", 0.6}, {"preorder", 0.6},
	{"winner", 0.6}, {"prize", 1}, {"enter now", 1.2}, {"check out our", 0.8}, {"use code", 1.5},
})

// promotion reports a giveaway or promotion and its strongest cue. A
// "FREE" in capitals is a seller's shout.
func promotion(text, low string) (bool, string) {
	s, cue := cueScore(low, promoCues)
	if strings.Contains(text, "FREE") {
		s += 0.6
		if cue == "" || cue == "free" {
			cue = "FREE"
		}
	}
	return s >= 1, cue
}

// demandCues are demands to the brand: "You need to provide a phone
// number.", "This is not acceptable", "do better". The app-review model
// reads them as feature requests; they are grievances.
var demandCues = newCueList([]cue{
	{"not acceptable", 2}, {"unacceptable", 1.5}, {"you need to", 1.2}, {"you guys need to", 1.5}, {"you people", 1.2},
	{"do better", 1.5}, {"sort it out", 1.5}, {"sort this out", 1.5}, {"get your act together", 2}, {"fix this now", 1.5},
	{"how hard is it", 1.5}, {"is it too much to ask", 1.5}, {"ridiculous", 1.2}, {"shameful", 1.5}, {"disgrace", 1.5},
	{"pathetic", 1.5}, {"absurd", 1}, {"you should be ashamed", 2}, {"explain why", 1}, {"i demand", 1.5}, {"i expect", 0.8},
	{"no excuse", 1.5}, {"inexcusable", 1.5},
	// Advice, not a demand: "if you need to make easy money".
	{"if you need to", -1.2}, {"when you need to", -1.2}, {"do you need to", -1.2}, {"all you need to", -1.2},
})

// brandPraiseCues are praise said of the brand with a plain adjective
// ("#Notion is great"), which the praise cues of app reviews miss.
var brandPraiseCues = newCueList([]cue{
	{"is great", 0.8}, {"is amazing", 0.8}, {"is awesome", 0.8}, {"is excellent", 0.8}, {"is fantastic", 0.8},
	{"is brilliant", 0.8}, {"is perfect", 0.8}, {"is incredible", 0.8}, {"is wonderful", 0.8}, {"are great", 0.8},
	{"are amazing", 0.8}, {"are awesome", 0.8}, {"are the best", 1}, {"is the best", 1},
	{"so happy with", 1}, {"really like", 0.6}, {"really love", 0.8}, {"i love my", 0.8}, {"love my new", 1},
	{"looks great", 0.8}, {"looks amazing", 0.8}, {"well made", 0.8}, {"obsessed with", 0.8}, {"works like a charm", 1},
})

// chatterRules applies issue 28's fixes to a decided category: a
// promotion is its own signal, a demand is a complaint rather than an
// idea, and praise needs a praise cue. It returns the new decision and
// whether the sentiment was decided here.
//
// addressed is a post that opens with an @handle or names a brand term:
// strong praise in it is praise of the brand even without a cue ("@Trek
// great bikes, fair prices, lovely staff").
func chatterRules(d categoryDecision, a analysis, cs cueScores, j *judgement, alarm string, addressed bool) categoryDecision {
	told := j.complaint.Told()
	// The category is checked first: the cue lists are read only for the
	// posts they can move (throughput).
	if (d.Category == "testimonial" || d.Category == "other" || d.Category == "product_idea") && !told && alarm == "" && cs.bug < 1 {
		if promo, cue := promotion(a.text, a.low); promo {
			d.Category, d.Cue = "other", ""
			d.Reason = fmt.Sprintf("other: a giveaway or promotion (%q), not praise", cue)
			// Its sentiment is left to the words: people rate a giveaway
			// positive, and it is no grievance either.
			return d
		}
	}
	if d.Category == "product_idea" || d.Category == "other" || d.Category == "bug_report" && d.Cue == "" && cs.bug == 0 && !told {
		ds, cue := 0.0, ""
		if !j.thanked {
			ds, cue = cueScore(a.low, demandCues)
		}
		idea := 0.0
		if ds >= 1.2 && d.Category == "product_idea" {
			idea, _ = cueScore(a.low, ideaCues)
		}
		if ds >= 1.2 && idea < 1.5 {
			d.Category, d.Cue = "complaint", cue
			d.Reason = fmt.Sprintf("complaint: a demand to the brand (%q)", cue)
			if j.compound > -0.3 {
				j.compound = -0.3
			}
			j.ruled = true
			return d
		}
	}
	if d.Category == "testimonial" && cs.praise == 0 && !j.thanked && !addressed {
		if bp, cue := cueScore(a.low, brandPraiseCues); bp >= 0.8 {
			d.Cue = cue
			d.Reason = fmt.Sprintf("testimonial: praise for the brand (%q)", cue)
		} else {
			// Strong words alone ("So great day today") praise nothing.
			d.Category, d.Cue = "other", ""
			d.Reason = "other: positive, but no praise of the brand found"
			// Still a clearly positive post: the words decide its
			// sentiment, as they did when it was filed as praise.
			j.ruled = j.ruled || j.compound >= 0.5
		}
	}
	return d
}

// offTopicScore is the relevance score at or below which a post is filed
// as other with urgency at most notRelevantUrgency: evidence against the
// brand ("my apple pie"), not merely a short or common name with nothing
// tying it to the brand (-0.5). An outage of an ambiguous name ("Acme is
// down for everyone") keeps its alarm: a missed outage costs more than a
// misfiled one.
const offTopicScore = -1.0

// notRelevantUrgency is the most urgency a post judged not about the brand
// may get: the base of "other". Nobody needs to hurry about apple pie.
const notRelevantUrgency = 5

// addressedToBrand reports a post that opens with an @handle or names one
// of the brand terms.
func addressedToBrand(text, low string, terms []string) bool {
	if strings.HasPrefix(strings.TrimSpace(text), "@") {
		return true
	}
	for _, t := range terms {
		if containsWord(low, t) {
			return true
		}
	}
	return false
}
