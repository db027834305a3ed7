// Package benchgen generates realistic mentions for benchmarks.
package benchgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"earshot/store"
)

var (
	openers = []string{"Just tried", "Honestly", "Anyone else think", "PSA:", "Hot take:", "Week two with", "Switched our team to", "Can't believe",
		"Quick review of", "Thread about", "Why does", "Loving", "Frustrated with", "Migrating from Globex to", "Comparing"}
	subjects = []string{"Acme", "Acme's new planner", "the Acme mobile app", "acme.io", "@acme support", "Acme Boards", "Acme's pricing",
		"Acme sync", "the Acme API", "Acme timelines"}
	verbs = []string{"is fantastic for sprint planning", "keeps crashing when I open a board", "doubled our price overnight",
		"would be perfect with dark mode", "lost my comments after the update", "made onboarding painless", "support never answered my ticket",
		"has the best keyboard shortcuts", "error 502 again this morning", "needs a Gantt export", "is down for everyone in Europe",
		"claims are fake, they don't sell data", "beats Globex on speed", "please add recurring tasks", "deleted all my data"}
	tails = []string{"Would recommend.", "Any workaround?", "Thoughts?", "Not impressed.", "10/10.", "Refund please.", "🎉🎉", "😡",
		"Details in the thread below.", "cc @pm_lead", "#productivity #saas", "See screenshot.", "", "Still waiting.", "Love it!"}
	words = strings.Fields("team project board task sprint deadline calendar roadmap client release feature workflow notification " +
		"integration slack github mobile desktop browser offline sync export import template dashboard report invoice billing " +
		"onboarding migration permission admin workspace comment mention reminder label filter search archive backlog kanban")
	sources    = []string{"x", "reddit", "youtube", "linkedin", "threads", "hn", "news", "reviews"}
	categories = []string{"bug_report", "complaint", "misinformation", "product_idea", "testimonial", "other", "other", "other"}
	sentiments = []string{"positive", "neutral", "negative"}
)

// Mention returns the i-th of n generated mentions for a project
// (deterministic). Mentions arrive in roughly chronological order, as
// collection produces them: the i-th is published about i/n of the way
// through the span, give or take a few hours (late posts, backfill).
func Mention(r *rand.Rand, i, n int, end time.Time, span time.Duration) store.NewMention {
	var b strings.Builder
	b.WriteString(openers[r.IntN(len(openers))])
	b.WriteByte(' ')
	b.WriteString(subjects[r.IntN(len(subjects))])
	b.WriteByte(' ')
	b.WriteString(verbs[r.IntN(len(verbs))])
	for n := 3 + r.IntN(20); n > 0; n-- {
		b.WriteByte(' ')
		b.WriteString(words[r.IntN(len(words))])
	}
	b.WriteString(". ")
	b.WriteString(tails[r.IntN(len(tails))])
	src := sources[r.IntN(len(sources))]
	urg := r.IntN(60)
	if r.IntN(10) == 0 {
		urg = 60 + r.IntN(41)
	}
	return store.NewMention{
		Source: src, ExternalID: fmt.Sprintf("%s-%d-%d", src, i, r.Int64()), URL: fmt.Sprintf("https://example.com/%s/%d", src, i),
		AuthorHandle: fmt.Sprintf("user%d", r.IntN(50000)), Text: b.String(),
		PublishedAt: end.Add(-span + time.Duration(float64(span)*float64(i)/float64(max(n, 1))) - time.Duration(r.Int64N(int64(6*time.Hour)))),
		Engagement:  map[string]int64{"likes": r.Int64N(500), "comments": r.Int64N(40)},
		IsRelevant:  r.IntN(8) != 0, Category: categories[r.IntN(len(categories))], Sentiment: sentiments[r.IntN(3)],
		Urgency: urg, AISummary: "Summary of post " + fmt.Sprint(i), Classifier: "builtin",
	}
}
