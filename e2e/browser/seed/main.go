// Command seed stores synthetic mentions in an Earshot data directory (or a
// PostgreSQL database) for the browser tests (and for timing the inbox with
// many rows). It goes through store.IngestMentions, the same path the
// collectors use.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"earshot/store"
)

var samples = []struct{ source, category, sentiment, text, summary string }{
	{"reddit", "testimonial", "positive", "Switched our whole team to Acme last month and honestly it just works. The onboarding was the smoothest I've seen.", "Happy customer praises onboarding"},
	{"x", "bug_report", "negative", "@acme the export button has been broken since the update, CSV comes out empty every time", "Export produces empty CSV after update"},
	{"hn", "product_idea", "neutral", "Would love it if Acme had a self-hosted option; we can't send data to a SaaS for compliance reasons.", "Request for a self-hosted edition"},
	{"youtube", "complaint", "negative", "Acme support took four days to answer a billing question. Not great for a paid plan.", "Slow support response on billing"},
	{"linkedin", "testimonial", "positive", "Big thanks to the Acme team: their dashboard cut our weekly reporting from hours to minutes.", "Dashboard saves reporting time"},
	{"news", "other", "neutral", "Acme announces a new office in Lisbon as it expands its European operations.", "Acme opens Lisbon office"},
	{"threads", "misinformation", "negative", "Heard Acme sells user data to advertisers?? Is that true", "Claim that Acme sells user data"},
	{"reviews", "testimonial", "positive", "Five stars. Acme is the first tool in years that our non-technical staff actually enjoy using.", "Five-star review praising ease of use"},
}

func main() {
	dir := flag.String("data", "", "data directory, or a postgres:// database URL")
	project := flag.String("project", "", "project id")
	n := flag.Int("n", 40, "mentions to store")
	prefix := flag.String("prefix", "seed", "external id prefix (distinct runs add new mentions)")
	flag.Parse()
	if *dir == "" || *project == "" {
		log.Fatal("usage: seed --data DIR|postgres://... --project ID [--n N]")
	}
	ctx := context.Background()
	open := store.Open
	if store.IsDatabaseURL(*dir) {
		open = store.OpenPostgres
	}
	st, err := open(ctx, *dir)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC()
	start := time.Now()
	for done := 0; done < *n; {
		var batch []store.NewMention
		for i := done; i < min(*n, done+1000); i++ {
			s := samples[i%len(samples)]
			batch = append(batch, store.NewMention{
				Source: s.source, ExternalID: fmt.Sprintf("%s-%d", *prefix, i), URL: fmt.Sprintf("https://%s.example/post/%s-%d", s.source, *prefix, i),
				AuthorHandle: fmt.Sprintf("%s_fan%d", []string{"dev", "ops", "pm", "cto"}[i%4], i%97), Text: s.text,
				PublishedAt: now.Add(-time.Duration(i) * 7 * time.Minute), Engagement: map[string]int64{"upvotes": int64(i % 50), "comments": int64(i % 7)},
				IsRelevant: i%11 != 5, Category: s.category, Sentiment: s.sentiment, Urgency: (i * 37) % 100, AISummary: s.summary, Classifier: "seed",
			})
		}
		res, err := st.IngestMentions(ctx, *project, 0, batch)
		if err != nil {
			log.Fatal(err)
		}
		done += len(batch)
		_ = res
	}
	fmt.Printf("stored %d mentions in %s\n", *n, time.Since(start).Round(time.Millisecond))
}
