package classify

import (
	"context"
	"strings"
	"testing"

	"earshot/vocab"
)

func TestEmbeddedSentimentModel(t *testing.T) {
	if sentimentModel == nil {
		t.Fatal("no learned sentiment model embedded: run go generate ./classify")
	}
	if got, want := sentimentModel.Features, FeatureFingerprint(); got != want {
		t.Errorf("the embedded sentiment model was trained on other features (fingerprint %s, code %s): run go generate ./classify", got, want)
	}
	if len(sentimentModel.Vocab) < 1000 {
		t.Errorf("vocabulary has %d words", len(sentimentModel.Vocab))
	}
}

func TestExpandHashtags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"#neverflyingagain", "never flying again"},
		{"so slow #fail", "so slow fail"},
		{"#BrandFail today", "brand fail today"},
		{"#worst_service_ever", "worst service ever"},
		{"#xqzvbnm", "#xqzvbnm"}, // not made of words: left alone
		{"no tags here", "no tags here"},
		{"#", "#"},
	} {
		if got := expandHashtags(tc.in); got != tc.want {
			t.Errorf("expandHashtags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Customers complain to brands with facts, not feelings; such posts are
// negative and filed as complaints (or bug reports). Praise is a
// testimonial and never urgent. The posts name invented brands of several
// kinds on purpose: no rule may depend on one industry.
func TestComplaintsAndPraise(t *testing.T) {
	b := NewBuiltin()
	ctx := context.Background()
	complaints := []string{
		"@Brightline my order never arrived and nobody answers the phone",
		"On hold with @Kestrel Bank for 52 minutes now",
		"@Orbix you charged me twice and there is still no refund",
		"@Vantage my booking was cancelled again, third time this month",
		"Thanks @Pellucid for losing my package. Really appreciate it.",
		"@Hollis where is my refund? It's been 3 weeks.",
		"@Maple can't log in since yesterday, please fix",
		"@Tidewater 2 hour delay and not a single update #neveragain",
		"@Orbix I'll never order from you again",
		"@Hollis my parcels haven't arrived yet. 3rd day of waiting",
		"@Maple been trying to reach someone all day",
		"lol @Kestrel \"we apologise for the inconvenience\" for the 12th time this week",
	}
	for _, text := range complaints {
		r, _ := b.Classify(ctx, Input{Text: text})
		if r.Sentiment != "negative" || (r.Category != "complaint" && r.Category != "bug_report") {
			t.Errorf("%q: %s/%s, want negative complaint (%s)", text, r.Sentiment, r.Category, r.CategoryReason)
		}
		if r.Urgency < 40 {
			t.Errorf("%q: urgency %d below 40 (%s)", text, r.Urgency, r.UrgencyReason)
		}
		if !strings.HasPrefix(r.CategoryReason, r.Category+": ") || !strings.HasPrefix(r.UrgencyReason, "urgency ") {
			t.Errorf("%q: reasons %q / %q", text, r.CategoryReason, r.UrgencyReason)
		}
	}
	praise := []string{
		"Support got back to me in 6 minutes and fixed it. Respect. @Orbix",
		"@Kestrel Bank sorted my card issue in one call, thank you!",
		"@Brightline refund landed in 2 days, no questions asked. Impressed",
		"@Tidewater thanks for the quick fix on the outage, back online in an hour",
		"@Maple paid my claim in a week, painless. Thank you",
		"Acme support got back to me in 6 minutes during the outage. Respect.",
	}
	for _, text := range praise {
		r, _ := b.Classify(ctx, Input{Text: text, AuthorFollowers: 1_000_000})
		if r.Category != "testimonial" || r.Sentiment != "positive" || r.Urgency >= 50 {
			t.Errorf("%q: %s/%s urgency %d, want positive testimonial below 50 (%s; %s)", text, r.Sentiment, r.Category, r.Urgency, r.CategoryReason, r.UrgencyReason)
		}
	}
	neutral := []string{
		"@Kestrel Bank are branches open next Monday?",
		"@Orbix do you ship to Canada?",
	}
	for _, text := range neutral {
		r, _ := b.Classify(ctx, Input{Text: text})
		if r.Category == "complaint" || r.Sentiment == "negative" || r.Urgency >= 30 {
			t.Errorf("%q: %s/%s urgency %d", text, r.Sentiment, r.Category, r.Urgency)
		}
	}
}

func TestAlarmsRaiseUrgency(t *testing.T) {
	b := NewBuiltin()
	for _, tc := range []struct {
		text, cat, reason string
	}{
		{"The Acme CLI stores the API token in plain text in the config file.", "bug_report", "security report"},
		{"Acme deleted all my data after the update", "bug_report", "data loss"},
		{"Acme is down for everyone since 9am", "bug_report", "outage"},
	} {
		r, _ := b.Classify(context.Background(), Input{Text: tc.text})
		if r.Category != tc.cat || r.Urgency < vocab.UrgentThreshold || r.Sentiment == "positive" || !strings.Contains(r.UrgencyReason, tc.reason) {
			t.Errorf("%q: %s/%s urgency %d (%s; %s)", tc.text, r.Sentiment, r.Category, r.Urgency, r.CategoryReason, r.UrgencyReason)
		}
	}
	// Clickbait is not a security report.
	if r, _ := b.Classify(context.Background(), Input{Text: "EXPOSED: Acme is secretly owned by Globex?! They don't want you to know"}); r.Urgency >= vocab.UrgentThreshold {
		t.Errorf("clickbait urgency %d (%s)", r.Urgency, r.UrgencyReason)
	}
	// A legal threat with reach is urgent.
	r, _ := b.Classify(context.Background(), Input{Text: "@Acme I'm talking to my lawyer about the money you took. Unacceptable.", AuthorFollowers: 200_000})
	if r.Urgency < vocab.UrgentThreshold || !strings.Contains(r.UrgencyReason, "legal threat") {
		t.Errorf("legal threat with reach: urgency %d (%s)", r.Urgency, r.UrgencyReason)
	}
}
