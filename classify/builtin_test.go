package classify

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"earshot/vocab"
)

func TestSentimentRules(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain positive", "This app is good", "positive"},
		{"negation", "This app is not good", "negative"},
		{"contracted negation", "It isn't great", "negative"},
		{"negated negative", "not bad at all", "positive"},
		{"but shift to negative", "The design is nice but it crashes constantly and I hate it", "negative"},
		{"but shift to positive", "Setup was annoying but now it works great and I love it", "positive"},
		{"emoji positive", "new update 😍🔥", "positive"},
		{"emoji negative", "new update 😡👎", "negative"},
		{"emoticon", "finally synced :)", "positive"},
		{"slang", "this app is lit, absolute goat", "positive"},
		{"slang negative", "smh this update is trash", "negative"},
		{"sarcasm marker", "Great, it deleted my workouts again. Love it /s", "negative"},
		{"neutral", "The meeting is at 3pm in room 4", "neutral"},
		{"elongation", "soooo goooood", "positive"},
		{"empty", "", "neutral"},
		{"non-English", "これは素晴らしいアプリです", "neutral"},
		{"free plan is a plan", "They are moving me to the free plan", "neutral"},
		{"German is not scored with English words", "Das ist die beste App, ich bin sehr zufrieden", "neutral"},
		{"emoji still count in other languages", "Das ist die beste App 😍😍", "positive"},
		{"a product is a joke", "Their customer service is a joke", "negative"},
		{"free as praise", "Feeling free at last", "positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ScoreSentiment(tc.text); got.Label != tc.want {
				t.Errorf("ScoreSentiment(%q) = %+v, want %s", tc.text, got, tc.want)
			}
		})
	}
}

func TestSentimentIntensityRules(t *testing.T) {
	tests := []struct {
		name, weaker, stronger string
	}{
		{"caps", "this app is great", "this app is GREAT"},
		{"booster", "this app is great", "this app is extremely great"},
		{"exclamation", "this app is great", "this app is great!!!"},
		{"caps negative", "this update is bad", "this update is BAD"},
		{"booster negative", "this update is bad", "this update is really bad"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, s := ScoreSentiment(tc.weaker).Compound, ScoreSentiment(tc.stronger).Compound
			if abs(s) <= abs(w) {
				t.Errorf("|%q| = %.3f should exceed |%q| = %.3f", tc.stronger, s, tc.weaker, w)
			}
		})
	}
	// A dampener weakens.
	if d, p := ScoreSentiment("it is slightly good").Compound, ScoreSentiment("it is good").Compound; d >= p {
		t.Errorf("dampener: %.3f >= %.3f", d, p)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestCategoryRules(t *testing.T) {
	b := NewBuiltin()
	tests := []struct {
		text, want string
	}{
		{"The app crashes every time I open the settings page", "bug_report"},
		{"Sync doesn't work since the last update, I get error 0x80070005", "bug_report"},
		{"Login fails with error code 502", "bug_report"},
		{"I wish you would add a dark mode", "product_idea"},
		{"Feature request: please add export to CSV", "product_idea"},
		{"It would be great if Acme could integrate with Slack", "product_idea"},
		{"Worst support ever. I want a refund and I'm going to cancel my subscription", "complaint"},
		{"They charged me twice and customer service never answered. Refund now", "complaint"},
		{"Acme is a scam, their so-called encryption is fake", "misinformation"},
		{"That claim that Acme sells your data is a hoax spread by competitors, but people keep saying Acme is fake", "misinformation"},
		{"Acme is amazing, I highly recommend it to every team!", "testimonial"},
		{"Just had lunch", "other"},
		// Brand mentions that are not app reviews: topic words alone
		// ("board", "sync", "week") are no bug report, praise of support
		// that fixed a problem is a testimonial, "free tier" is no praise.
		{"Our team moved to Initech last month and the roadmap board saved us a weekly sync call.", "other"},
		{"Initech 3.0 is out: kanban boards, faster sync and a new timeline.", "other"},
		{"Great support from Initech, they fixed my billing issue in five minutes. Highly recommend!", "testimonial"},
		// A rumour is misinformation whichever company it names (audit,
		// issue 14 follow-up): it must not reach the public wall.
		{"Rumour: Initech is closing its free tier and deleting free workspaces next month.", "misinformation"},
		{"Initech sync is broken since the update, my boards are empty", "bug_report"},
		{"Is Initech down for anyone else? Stuck on a spinner", "bug_report"},
		// Complaints are grievances about the company, misinformation a
		// rumour passed on, testimonials praise without a crash cue.
		{"Acme raised its prices again and support closed my ticket without reading it. Not happy.", "complaint"},
		{"Acme is not worth the money anymore, ads everywhere in a paid app.", "complaint"},
		{"PSA: heard from an insider that Acme secretly sells your data. Don't install it.", "misinformation"},
		{"Shoutout to the Acme team, worth every penny.", "testimonial"},
		{"Acme is down for everyone, the whole site is unreachable.", "bug_report"},
	}
	for _, tc := range tests {
		t.Run(tc.want+"/"+tc.text, func(t *testing.T) {
			r, err := b.Classify(context.Background(), Input{Text: tc.text, Keywords: []string{"Acme"}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Category != tc.want {
				t.Errorf("category = %s, want %s (reasons %q)", r.Category, tc.want, r.Reasons)
			}
		})
	}
}

func TestDisabledCategoryBecomesOther(t *testing.T) {
	b := NewBuiltin()
	cats := []CategoryInfo{
		{Category: "bug_report", Enabled: false},
		{Category: "product_idea", Enabled: true},
		{Category: "other", Enabled: true},
	}
	r, _ := b.Classify(context.Background(), Input{Text: "The app crashes on start, error 500", Categories: cats})
	if r.Category != "other" {
		t.Errorf("disabled bug_report produced %s", r.Category)
	}
	r, _ = b.Classify(context.Background(), Input{Text: "Acme is amazing, I highly recommend it!", Categories: cats})
	if r.Category != "other" {
		t.Errorf("unlisted testimonial produced %s", r.Category)
	}
	r, _ = b.Classify(context.Background(), Input{Text: "Please add a dark mode", Categories: cats})
	if r.Category != "product_idea" {
		t.Errorf("enabled product_idea gave %s", r.Category)
	}
}

func TestOddInputsDoNotCrash(t *testing.T) {
	b := NewBuiltin()
	huge := strings.Repeat("crash error 😡 <b>bold</b> ", 200000)
	for _, text := range []string{"", " ", "\n\n\t", "😀", "!!!???", "<<<>>>", string([]byte{0xff, 0xfe, 0x00}),
		"Это приложение ужасно", "هذا التطبيق رائع", "@@@@ ### http://x", huge} {
		r, err := b.Classify(context.Background(), Input{Text: text, Keywords: []string{"acme"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary == "" || utf8.RuneCountInString(r.Summary) > MaxSummaryRunes || strings.ContainsAny(r.Summary, "\n<>") && strings.Contains(text, "<b>") {
			t.Errorf("bad summary %q for %.20q", r.Summary, text)
		}
		if r.Urgency < 0 || r.Urgency > 100 {
			t.Errorf("urgency %d", r.Urgency)
		}
	}
}

func TestSummarize(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name, text string
		check      func(string) bool
	}{
		{"short kept", "Great app.", func(s string) bool { return s == "Great app." }},
		{"html stripped", "<p>The <b>Acme</b> app crashes &amp; burns</p>", func(s string) bool { return s == "The Acme app crashes & burns" }},
		{"a line break ends a sentence", "Login outage on May 3\n\nSince 08:10 nobody can log in to Acme", func(s string) bool { return s == "Since 08:10 nobody can log in to Acme" }},
		{"breaks inside HTML are spaces", "<p>Acme crashes\nwhen I upload</p><p>Sent from my phone</p>", func(s string) bool { return s == "Acme crashes when I upload" }},
		{"a heart is not a tag", "I <3 Acme so much", func(s string) bool { return s == "I <3 Acme so much" }},
		{"script is not text", "<script>alert(1)</script><p>Acme is great</p><STYLE>p{}</STYLE>", func(s string) bool { return s == "Acme is great" }},
		// Lower-casing changes the length of "Ⱥ" and "K" (Kelvin): positions
		// must come from the text itself (this panicked).
		{"script after letters that change length", strings.Repeat("Ⱥ", 20) + " Acme<script>x</script> works", func(s string) bool {
			return strings.HasSuffix(s, "Acme works") && utf8.ValidString(s) && !strings.Contains(s, "x")
		}},
		{"kelvin sign", "\u212a\u212a\u212a <script>alert(1)</script>Acme works great", func(s string) bool { return s == "\u212a\u212a\u212a Acme works great" }},
		{"a longer tag name is not script", "<scripts>keep</scripts><script>drop</script>Acme ok", func(s string) bool { return s == "keep Acme ok" }},
		{"cut at word", long, func(s string) bool {
			return utf8.RuneCountInString(s) <= 200 && strings.HasSuffix(s, "…") && strings.HasSuffix(strings.TrimSuffix(s, "…"), "word")
		}},
		{"picks the sentence about the brand", "Lovely weather today. Acme crashes whenever I upload a photo. Anyway.", func(s string) bool { return s == "Acme crashes whenever I upload a photo." }},
		{"the alarm over the request", "The Acme CLI stores the token in plain text. Please use the OS keychain.", func(s string) bool {
			return s == "The Acme CLI stores the token in plain text."
		}},
		{"empty", "   ", func(s string) bool { return s != "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.text, []string{"acme"})
			if !tc.check(got) {
				t.Errorf("Summarize(%.40q) = %q", tc.text, got)
			}
		})
	}
}

func TestUrgency(t *testing.T) {
	b := NewBuiltin()
	ctx := context.Background()
	urgent := []string{
		"Your app deleted all my data",
		"your app deleted all my data!!! years of notes gone",
		"Acme is down again, outage for the whole team",
		"My Acme account was hacked and there's a data breach",
		"No way, Acme deleted all my data",                       // "no" in another clause denies nothing
		"<p>Acme deleted all <b>my</b> data</p>",                 // tags do not hide the words
		"I can't believe Acme lost all my data after the update", // nor does disbelief
	}
	for _, text := range urgent {
		r, _ := b.Classify(ctx, Input{Text: text})
		if r.Urgency < vocab.UrgentThreshold {
			t.Errorf("%q urgency %d < %d: %q", text, r.Urgency, vocab.UrgentThreshold, r.Reasons)
		}
	}
	calm := []string{
		"It would be great if you could add a dark mode",
		"Feature request: please add CSV export, would love it",
		"Acme is lovely, highly recommend",
		"Acme has never lost my data in five years", // a denied signal is no signal
		"No outage, no data loss: Acme just works",
	}
	for _, text := range calm {
		r, _ := b.Classify(ctx, Input{Text: text, AuthorFollowers: 50_000_000, Engagement: map[string]int64{"likes": 1e6, "shares": 1e5}})
		if r.Urgency >= vocab.UrgentThreshold {
			t.Errorf("calm %q reached urgency %d: %q", text, r.Urgency, r.Reasons)
		}
	}
	// Reasons explain the score.
	r, _ := b.Classify(ctx, Input{Text: "Your app deleted all my data"})
	if !strings.Contains(strings.Join(r.Reasons, "|"), "data loss") {
		t.Errorf("reasons do not mention data loss: %q", r.Reasons)
	}
}

func TestUrgencyMonotone(t *testing.T) {
	b := NewBuiltin()
	ctx := context.Background()
	texts := []string{"The app is slow today", "Please add dark mode", "Acme crashed and I lost my draft", "I am cancelling, refund please", "hi"}
	reaches := []int64{0, 10, 1000, 100000, 1e7}
	for _, text := range texts {
		prev := -1
		for _, f := range reaches {
			r, _ := b.Classify(ctx, Input{Text: text, AuthorFollowers: f})
			if r.Urgency < prev {
				t.Errorf("%q: followers %d lowered urgency to %d from %d", text, f, r.Urgency, prev)
			}
			prev = r.Urgency
		}
		prev = -1
		for _, e := range []int64{0, 5, 500, 50000} {
			r, _ := b.Classify(ctx, Input{Text: text, Engagement: map[string]int64{"likes": e, "comments": e}})
			if r.Urgency < prev {
				t.Errorf("%q: engagement %d lowered urgency", text, e)
			}
			prev = r.Urgency
		}
	}
	// Negative intensity, with everything else fixed.
	for _, cat := range vocab.Categories {
		for _, low := range []string{"plain text", "acme is down", "please add dark mode"} {
			prev := -1
			for c := 0.0; c >= -1; c -= 0.05 {
				u := urgencyFrom(low, cat, c, 100).Score
				if u < prev {
					t.Errorf("%s %q: compound %.2f lowered urgency %d -> %d", cat, low, c, prev, u)
				}
				prev = u
			}
		}
	}
	// And end to end: angrier text never calmer.
	steps := []string{"Acme crashed", "Acme crashed, terrible", "Acme crashed, terrible, I hate this awful garbage"}
	prev := -1
	for _, s := range steps {
		r, _ := b.Classify(ctx, Input{Text: s})
		if r.Urgency < prev {
			t.Errorf("%q lowered urgency to %d from %d", s, r.Urgency, prev)
		}
		prev = r.Urgency
	}
}

func TestBuiltinConcurrent(t *testing.T) {
	b := NewBuiltin()
	in := Input{Text: "Acme app crashes, error 500, I want a refund!!", Keywords: []string{"Acme"}, AuthorFollowers: 1000}
	want, _ := b.Classify(context.Background(), in)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				got, _ := b.Classify(context.Background(), in)
				if got.Category != want.Category || got.Urgency != want.Urgency || got.Summary != want.Summary {
					t.Errorf("nondeterministic: %+v vs %+v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

var benchTexts = []string{
	"Acme app keeps crashing since the last update, error 0x80070005 when I sync. Please fix!!",
	"I wish Acme would add a dark mode, would be great for night owls 🌙",
	"Honestly Acme is the best tool we've adopted this year, highly recommend it to every team 😍",
	"Worst support ever, charged twice and nobody answers. I want a refund.",
	"Had an apple pie at grandma's, so good",
	"Is Acme down for anyone else? Getting 503s on the dashboard since 9am",
	"Meh. It's fine I guess, nothing special but does the job.",
	"RT @someone: Acme raises $20M to build the future of notes http://t.co/xyz",
}

func BenchmarkBuiltin(b *testing.B) {
	c := NewBuiltin()
	rel := TrainRelevance([]Example{{"apple pie recipe", false}, {"acme app update", true}})
	ins := make([]Input, len(benchTexts))
	for i, t := range benchTexts {
		ins[i] = Input{Text: t, Keywords: []string{"Acme"}, Project: Project{Name: "Acme", Website: "https://acme.io", Description: "Team notes and docs workspace"},
			Engagement: map[string]int64{"likes": 12}, AuthorFollowers: 300, Relevance: rel}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Classify(ctx, ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "posts/s")
}
