package classify

import (
	"context"
	"strings"
	"testing"
)

// Cases an outside audit reproduced with `earshot classify`, each with
// variants worded differently, so the rules that fix them are general and
// not fitted to one sentence. Brands are invented.
func TestAuditCases(t *testing.T) {
	b := NewBuiltin()
	ctx := context.Background()
	type want struct {
		cats       string // accepted categories, "|"-separated
		sents      string // accepted sentiments, "|"-separated
		minU, maxU int
	}
	cases := []struct {
		text string
		kw   string
		w    want
	}{
		// 1. Rumours are misinformation, never praise or other.
		{"BREAKING: Acme is being acquired by Globex and will shut down in June. Export your data NOW", "Acme", want{"misinformation", "negative|neutral", 30, 100}},
		{"Heard Acme is selling user data to advertisers?? anyone confirm", "Acme", want{"misinformation", "negative|neutral", 30, 100}},
		{"Is it true that Acme is shutting down next month? I read somewhere they ran out of money", "Acme", want{"misinformation", "negative|neutral", 30, 100}},
		{"Apparently Acme is being sold to a bigger company and the free plan goes away. Can anyone confirm?", "Acme", want{"misinformation", "negative|neutral", 30, 100}},
		{"Rumor has it Zentro is going under and laying off half the staff", "Zentro", want{"misinformation", "negative|neutral", 30, 100}},
		{"rumour going around that Acme will shut down its servers for good next week", "Acme", want{"misinformation", "negative|neutral", 30, 100}},
		// An announcement with its source is news, not a rumour.
		{"Zentro officially announced today they are being acquired by Globex https://zentro.example/news", "Zentro", want{"other", "neutral|positive", 0, 40}},
		// ... and a debunk is not a complaint.
		{"Rumour check: no, Acme is not being acquired. The CEO confirmed it this morning.", "Acme", want{"other|misinformation", "neutral", 0, 40}},
		{"Fact check: Acme is NOT selling your data, that post is false.", "Acme", want{"other|misinformation", "neutral|positive", 0, 40}},
		{"For the record, the Acme shutdown story is not true, they announced the opposite today", "Acme", want{"other|misinformation", "neutral|positive", 0, 40}},

		// 2. Sarcasm about a failure is a complaint; praise is praise.
		{"Oh wonderful, Zentro deleted all my saved projects after the update. Love that for me.", "Zentro", want{"complaint|bug_report", "negative", 70, 100}},
		{"Great job Zentro, the sync wiped all my notes. Just what I needed today.", "Zentro", want{"complaint|bug_report", "negative", 70, 100}},
		{"Fantastic, Zentro lost all my files overnight. Thanks a lot.", "Zentro", want{"complaint|bug_report", "negative", 70, 100}},
		{"Thanks @Zentro for replacing my broken unit within 2 days, no questions asked", "Zentro", want{"testimonial", "positive", 0, 49}},
		{"Shout out to Zentro for swapping my cracked screen the same week, no hassle at all", "Zentro", want{"testimonial", "positive", 0, 49}},
		{"Thank you Zentro, my damaged order was replaced in 3 days without any fuss", "Zentro", want{"testimonial", "positive", 0, 49}},
		{"Zentro support replaced my faulty charger the next day. Thank you!", "Zentro", want{"testimonial", "positive", 0, 49}},
		{"Zentro never disappoints 🙌", "Zentro", want{"testimonial", "positive", 0, 40}},
		{"Zentro has never let me down", "Zentro", want{"testimonial", "positive", 0, 40}},
		{"Zentro never fails to impress", "Zentro", want{"testimonial", "positive", 0, 40}},
		{"Zentro is not terrible, I guess", "Zentro", want{"other", "neutral|negative", 0, 40}},
		{"Zentro isn't bad, I suppose", "Zentro", want{"other", "neutral|positive", 0, 40}},
		{"honestly Zentro is not the worst option out there", "Zentro", want{"other|testimonial", "neutral|positive", 0, 40}},

		// 3. Outages are urgent; failures of service are complaints.
		{"Zentro down? The site won't load for me", "Zentro", want{"bug_report", "negative", 70, 100}},
		{"is Zentro down for anyone else? nothing loads", "Zentro", want{"bug_report", "negative", 70, 100}},
		{"Zentro's API returns 500 on every POST to /orders since 9am UTC", "Zentro", want{"bug_report", "negative", 70, 100}},
		{"Getting 503 errors from Zentro on every request for the last hour", "Zentro", want{"bug_report", "negative", 70, 100}},
		{"Zentro checkout throws internal server error for everyone right now", "Zentro", want{"bug_report", "negative", 70, 100}},
		{"ordered from Zentro 3 weeks ago, still nothing", "Zentro", want{"complaint", "negative", 50, 100}},
		{"Zentro says delivered but it's not here", "Zentro", want{"complaint", "negative", 50, 100}},
		{"paid Zentro 10 days ago and still no sign of my package", "Zentro", want{"complaint", "negative", 50, 100}},
		{"Zentro tracking shows it was handed over, but nothing arrived", "Zentro", want{"complaint", "negative", 50, 100}},

		// 4. Complaints without negative words.
		{"Zentro price went up 40% overnight with no notice", "Zentro", want{"complaint", "negative", 30, 100}},
		{"Zentro just doubled the monthly fee without telling anyone", "Zentro", want{"complaint", "negative", 30, 100}},
		{"my Zentro bill jumped from 20 to 35 this month, no email, nothing", "Zentro", want{"complaint", "negative", 30, 100}},
		{"Zentro just raised the subscription by 30% and didn't tell anyone", "Zentro", want{"complaint", "negative", 30, 100}},
		{"Customer since day one and Zentro treats me like this?", "Zentro", want{"complaint", "negative", 30, 100}},
		{"I've been a Zentro customer for 10 years and this is how you treat me?", "Zentro", want{"complaint", "negative", 30, 100}},
		{"Loyal Zentro customer since 2015 and this is the thanks I get", "Zentro", want{"complaint", "negative", 30, 100}},
		{"Eight years with Zentro and you treat long-time customers like this?", "Zentro", want{"complaint", "negative", 30, 100}},
		{"Moving our team off #Globex: the new seat pricing doubles our bill", "Globex", want{"complaint", "negative", 30, 100}},
		{"We're migrating away from Globex, the new plan costs twice as much for the same thing", "Globex", want{"complaint", "negative", 30, 100}},
		{"Switching our company away from Globex after the price hike", "Globex", want{"complaint", "negative", 30, 100}},
	}
	for _, tc := range cases {
		r, err := b.Classify(ctx, Input{Text: tc.text, Keywords: []string{tc.kw}, Project: Project{Name: tc.kw}})
		if err != nil {
			t.Fatal(err)
		}
		ok := inList(tc.w.cats, r.Category) && inList(tc.w.sents, r.Sentiment) && r.Urgency >= tc.w.minU && r.Urgency <= tc.w.maxU
		if !ok {
			t.Errorf("%q\n  got %s/%s/%d (%s | %s)\n  want %s / %s / urgency %d..%d", tc.text, r.Category, r.Sentiment, r.Urgency,
				r.CategoryReason, r.UrgencyReason, tc.w.cats, tc.w.sents, tc.w.minU, tc.w.maxU)
		}
	}
}

func inList(list, v string) bool {
	for _, s := range strings.Split(list, "|") {
		if s == v {
			return true
		}
	}
	return false
}

// A post that names none of the brand terms is not relevant unless it was
// collected from a place that is about the brand (a watched account, feed
// or review page); text given on its own has nothing else to tie it.
func TestRelevanceNeedsABrandTermOutsideAFeed(t *testing.T) {
	b := NewBuiltin()
	ctx := context.Background()
	p := Project{Name: "Acme Projects", Website: "https://acme.example"}
	for _, text := range []string{"hi Zentro, great weather", "what a lovely day for a walk", "Globex is down again"} {
		r, _ := b.Classify(ctx, Input{Text: text, Keywords: []string{"Acme"}, Project: p, Unsourced: true})
		if r.IsRelevant || r.RelevanceReason == "" {
			t.Errorf("%q: relevant=%v reason %q, want not relevant with a reason", text, r.IsRelevant, r.RelevanceReason)
		}
	}
	r, _ := b.Classify(ctx, Input{Text: "Acme Projects shipped a great update", Keywords: []string{"Acme"}, Project: p, Unsourced: true})
	if !r.IsRelevant {
		t.Errorf("a post naming the brand: not relevant (%s)", r.RelevanceReason)
	}
}
