package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
)

const (
	outageText = "Acme is down for the third hour in a row, every board fails to load and support is not answering anyone today."
	pricingTxt = "Acme changed its pricing again: the free plan is gone and every team now pays per seat starting next month."
)

func post(source, id, url, text string, at time.Time) store.NewMention {
	return store.NewMention{Source: source, ExternalID: id, URL: url, Text: text, PublishedAt: at, IsRelevant: true,
		Category: "complaint", Sentiment: "negative", AISummary: "summary of " + id}
}

func ingest(t *testing.T, st *store.Store, projectID string, batch ...store.NewMention) []*store.Mention {
	t.Helper()
	res, err := st.IngestMentions(context.Background(), projectID, 0, batch)
	if err != nil {
		t.Fatal(err)
	}
	return res.Created
}

func storyProject(t *testing.T, st *store.Store, name string) string {
	t.Helper()
	ctx := context.Background()
	u, err := st.CreateUser(ctx, strings.ToLower(name)+"@example.com", "x", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// TestStoriesIncremental: a story forms when a second mention shares a
// link (its own URL or one in its text, spelled differently) or
// near-duplicate text, across sources, batches and monitors; each mention
// carries the story and its count from the moment it is stored.
func TestStoriesIncremental(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	a, b := storyProject(t, st, "A"), storyProject(t, st, "B")
	t0 := time.Now().Add(-time.Hour).UTC()

	news := ingest(t, st, a, post("news", "n1", "https://www.example.com/news/acme-outage?utm_source=rss", "Acme outage leaves teams without their boards for hours", t0))[0]
	if news.StoryID != nil || news.StoryCount != 1 || news.StorySources["news"] != 1 {
		t.Fatalf("a mention alone: story %v count %d sources %v", news.StoryID, news.StoryCount, news.StorySources)
	}
	// A Reddit post linking the article (another spelling of its URL).
	rd := ingest(t, st, a, post("reddit", "r1", "https://www.reddit.com/r/saas/comments/abc/acme_down/",
		"Anyone else? "+outageText+" https://example.com/news/acme-outage/#top", t0.Add(time.Minute)))[0]
	if rd.StoryID == nil || rd.StoryCount != 2 {
		t.Fatalf("shared link: story %v count %d", rd.StoryID, rd.StoryCount)
	}
	sid := *rd.StoryID
	// A repost of the Reddit text on X, no link: near-duplicate text.
	// Another unrelated post in the same batch stays alone.
	got := ingest(t, st, a,
		post("x", "x1", "https://x.com/someone/status/1", "RT @bob: "+outageText+" 😡", t0.Add(2*time.Minute)),
		post("x", "x2", "https://x.com/other/status/2", pricingTxt, t0.Add(3*time.Minute)))
	if got[0].StoryID == nil || *got[0].StoryID != sid || got[0].StoryCount != 3 {
		t.Fatalf("near-duplicate text: story %v count %d, want %s 3", got[0].StoryID, got[0].StoryCount, sid)
	}
	if want := map[string]int{"news": 1, "reddit": 1, "x": 1}; !maps.Equal(got[0].StorySources, want) {
		t.Errorf("story sources %v, want %v", got[0].StorySources, want)
	}
	if got[1].StoryID != nil {
		t.Errorf("unrelated post joined story %v", *got[1].StoryID)
	}
	// The first mention was updated when the story formed.
	first, err := st.Mention(ctx, a, news.ID)
	if err != nil {
		t.Fatal(err)
	}
	if first.StoryID == nil || *first.StoryID != sid || first.StoryCount != 3 {
		t.Errorf("first mention: story %v count %d", first.StoryID, first.StoryCount)
	}
	// Reviews on one review page share the page's address: not a story.
	rv := ingest(t, st, a,
		post("reviews", "rv1", "https://www.g2.com/products/acme/reviews", "Great tool for small teams, setup took ten minutes and the board is clear.", t0),
		post("reviews", "rv2", "https://www.g2.com/products/acme/reviews", "Terrible support, our invoices were wrong twice and nobody ever answered us.", t0))
	if rv[1].StoryID != nil {
		t.Errorf("two reviews of one review page made a story")
	}
	// The same link in another project is another project's business.
	other := ingest(t, st, b, post("news", "n1", "https://example.com/news/acme-outage", outageText, t0))[0]
	if other.StoryID != nil {
		t.Errorf("a mention of project B joined a story of A")
	}

	story, err := st.Story(ctx, a, sid)
	if err != nil {
		t.Fatal(err)
	}
	if story.MentionCount != 3 || story.Title != "summary of n1" || story.FirstMentionID != news.ID || story.LatestMentionID != got[0].ID ||
		story.FirstSeen != news.PublishedAt || story.LastSeen != got[0].PublishedAt || story.Link == nil || *story.Link != "example.com/news/acme-outage" ||
		story.Statuses["new"] != 3 {
		t.Errorf("story = %+v (link %v)", story, story.Link)
	}
	if _, err := st.Story(ctx, b, sid); err != store.ErrNotFound {
		t.Errorf("another project's story: %v, want ErrNotFound", err)
	}

	members, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: a, StoryID: sid}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if ids := mentionIDs(members); !slices.Equal(ids, []string{got[0].ID, rd.ID, news.ID}) {
		t.Errorf("story_id filter: %v", ids)
	}
}

func mentionIDs(ms []*store.Mention) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestStoriesSurviveRestart: the index is rebuilt from the stored mentions,
// so a near-duplicate arriving after a restart joins the story formed
// before it, and one of a mention still alone forms a new story.
func TestStoriesSurviveRestart(t *testing.T) {
	reopen := reopener(t)
	st := reopen()
	p := storyProject(t, st, "R")
	t0 := time.Now().Add(-time.Hour).UTC()
	ms := ingest(t, st, p,
		post("hn", "h1", "https://news.ycombinator.com/item?id=1", outageText, t0),
		post("x", "x1", "https://x.com/a/status/1", "RT "+outageText, t0.Add(time.Minute)),
		post("reddit", "r1", "https://reddit.com/r/x/comments/zz/t", pricingTxt, t0.Add(2*time.Minute)))
	if ms[1].StoryID == nil || ms[2].StoryID != nil {
		t.Fatalf("before restart: %v %v", ms[1].StoryID, ms[2].StoryID)
	}
	st.Close()
	st = reopen()
	defer st.Close()
	after := ingest(t, st, p,
		post("threads", "t1", "https://threads.net/@c/post/1", outageText+"!!", t0.Add(3*time.Minute)),
		post("x", "x2", "https://x.com/d/status/2", "Wow. "+pricingTxt, t0.Add(4*time.Minute)))
	if after[0].StoryID == nil || *after[0].StoryID != *ms[1].StoryID || after[0].StoryCount != 3 {
		t.Errorf("after restart the repost did not join: %v count %d", after[0].StoryID, after[0].StoryCount)
	}
	if after[1].StoryID == nil || after[1].StoryCount != 2 {
		t.Errorf("after restart a new story did not form: %v", after[1].StoryID)
	}
}

// TestStoriesDeterministic: the same posts in the same order group the
// same way in two stores.
func TestStoriesDeterministic(t *testing.T) {
	var batches [][]store.NewMention
	t0 := time.Now().Add(-2 * time.Hour).UTC()
	texts := []string{outageText, pricingTxt, "Acmeのサービスが今朝から全く繋がらない。サポートに問い合わせても返事がなく、仕事が止まっている。"}
	for b := range 4 {
		var batch []store.NewMention
		for i := range 12 {
			n := b*12 + i
			text := fmt.Sprintf("%s (%d)", texts[n%3], n%2)
			url := fmt.Sprintf("https://x.com/u/status/%d", n)
			if n%5 == 0 {
				text = fmt.Sprintf("unrelated post number %d with some words that are not like any other post at all %d", n, n*7)
				url = fmt.Sprintf("https://blog.example.com/post-%d", n%3)
			}
			batch = append(batch, post("x", fmt.Sprint(n), url, text, t0.Add(time.Duration(n)*time.Minute)))
		}
		batches = append(batches, batch)
	}
	groups := func() []string {
		st := openTest(t)
		p := storyProject(t, st, "D")
		byStory := map[string][]string{}
		for _, b := range batches {
			ingest(t, st, p, b...)
		}
		all, err := st.ListMentions(context.Background(), store.MentionFilter{ProjectID: p}, nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range all {
			k := "alone:" + m.ExternalID
			if m.StoryID != nil {
				k = *m.StoryID
			}
			byStory[k] = append(byStory[k], m.ExternalID)
		}
		var out []string
		for _, ids := range byStory {
			sort.Strings(ids)
			out = append(out, strings.Join(ids, ","))
		}
		sort.Strings(out)
		return out
	}
	g1, g2 := groups(), groups()
	if !slices.Equal(g1, g2) {
		t.Errorf("groupings differ:\n%v\n%v", g1, g2)
	}
	t.Log(g1)
	if len(g1) > 10 || len(g1) < 3 {
		t.Errorf("expected a few stories, got %d groups: %v", len(g1), g1)
	}
}

// TestCollapseAndStoryTriage: collapsing lists each story once, as its
// newest matching mention, with counts; triaging a story changes each
// member once, with one mention.updated per real change.
func TestCollapseAndStoryTriage(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	p := storyProject(t, st, "C")
	t0 := time.Now().Add(-time.Hour).UTC()
	var batch []store.NewMention
	for i := range 5 { // one story of 5: the same link
		batch = append(batch, post([]string{"x", "reddit", "hn", "x", "news"}[i], fmt.Sprint("s", i), fmt.Sprintf("https://x.com/u/status/%d", i),
			fmt.Sprintf("look %d https://example.com/launch?utm_campaign=%d", i, i), t0.Add(time.Duration(2*i)*time.Minute)))
	}
	for i := range 3 { // three mentions alone, between the story's
		batch = append(batch, post("x", fmt.Sprint("a", i), fmt.Sprintf("https://x.com/v/status/%d", 100+i), fmt.Sprintf("alone %d", i),
			t0.Add(time.Duration(2*i+1)*time.Minute)))
	}
	ms := ingest(t, st, p, batch...)
	if ms[4].StoryID == nil || ms[4].StoryCount != 5 {
		t.Fatalf("the fifth mention sharing a link: story %v count %d", ms[4].StoryID, ms[4].StoryCount)
	}
	sid := *ms[4].StoryID
	f := store.MentionFilter{ProjectID: p, CollapseStories: true}
	page, err := st.ListMentions(ctx, f, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	var ext []string
	for _, m := range page {
		ext = append(ext, m.ExternalID)
	}
	if want := []string{"s4", "a2", "a1", "a0"}; !slices.Equal(ext, want) {
		t.Fatalf("collapsed = %v, want %v", ext, want)
	}
	if page[0].StoryCount != 5 || !maps.Equal(page[0].StorySources, map[string]int{"x": 2, "reddit": 1, "hn": 1, "news": 1}) {
		t.Errorf("collapsed row: count %d sources %v", page[0].StoryCount, page[0].StorySources)
	}
	// Paging through the collapsed list with small pages sees each row once.
	var walked []string
	var after *store.Position
	for {
		pg, err := st.ListMentions(ctx, f, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pg {
			walked = append(walked, m.ExternalID)
		}
		if len(pg) < 2 {
			break
		}
		pos := store.PositionOf(pg[len(pg)-1], f)
		after = &pos
	}
	if !slices.Equal(walked, ext) {
		t.Errorf("paged collapsed walk = %v, want %v", walked, ext)
	}

	// Triage one member, then the story: the newest new member represents
	// the story in a status=new collapsed list.
	if _, err := st.UpdateMentionStatus(ctx, p, ms[4].ID, "done"); err != nil {
		t.Fatal(err)
	}
	newOnly, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: p, Status: "new", CollapseStories: true}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if newOnly[0].ExternalID != "s3" {
		t.Errorf("status=new collapsed first row %s, want s3", newOnly[0].ExternalID)
	}
	story, changed, err := st.UpdateStoryStatus(ctx, p, sid, "done")
	if err != nil {
		t.Fatal(err)
	}
	if changed != 4 || story.Statuses["done"] != 5 || len(story.Statuses) != 1 {
		t.Errorf("story triage: changed %d statuses %v", changed, story.Statuses)
	}
	if _, changed, _ = st.UpdateStoryStatus(ctx, p, sid, "done"); changed != 0 {
		t.Errorf("repeating the triage changed %d", changed)
	}
	if _, _, err := st.UpdateStoryStatus(ctx, p, "00000000-0000-0000-0000-000000000000", "done"); err != store.ErrNotFound {
		t.Errorf("unknown story: %v", err)
	}
	list, err := st.ListStories(ctx, store.StoryFilter{ProjectID: p}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != sid || list[0].MentionCount != 5 {
		t.Errorf("list stories = %+v", list)
	}
	for _, c := range []store.StoryFilter{{ProjectID: p, Status: "new"}, {ProjectID: p, Source: "youtube"}, {ProjectID: p, MinMentions: 6}} {
		if l, err := st.ListStories(ctx, c, nil, 10); err != nil || len(l) != 0 {
			t.Errorf("ListStories(%+v) = %d stories, %v; want none", c, len(l), err)
		}
	}
	if l, _ := st.ListStories(ctx, store.StoryFilter{ProjectID: p, Source: "hn", Status: "done"}, nil, 10); len(l) != 1 {
		t.Errorf("source+status filter found %d", len(l))
	}
}

// TestStoryFilterPlan: a story's mentions are read from their own date
// index, in order, whatever else the filter holds.
func TestStoryFilterPlan(t *testing.T) {
	sqliteOnly(t)
	st := openTest(t)
	p := storyProject(t, st, "P")
	for _, f := range []store.MentionFilter{
		{StoryID: "s"}, {StoryID: "s", Status: "new"}, {StoryID: "s", Source: "x", Category: "complaint"}, {StoryID: "s", ByUrgency: true},
	} {
		f.ProjectID = p
		plan, err := st.ExplainMentions(context.Background(), f, &store.Position{At: "2026", ID: "z"}, 51)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "mentions_story") || (!f.ByUrgency && strings.Contains(plan, "TEMP B-TREE")) {
			t.Errorf("%+v: plan\n%s", f, plan)
		}
	}
}

// TestStoryExtraLinks: a link submission (HN, Reddit) names its article in
// Links; an X post linking the article joins it, also after a restart,
// when the index is rebuilt from the stored mentions.
func TestStoryExtraLinks(t *testing.T) {
	ctx := context.Background()
	reopen := reopener(t)
	st := reopen()
	p := storyProject(t, st, "L")
	t0 := time.Now().Add(-time.Hour).UTC()
	hn := post("hn", "h1", "https://news.ycombinator.com/item?id=77", "Acme raises a Series B", t0)
	hn.Links = []string{"https://techcrunch.example/2026/acme-series-b/?utm_source=hn"}
	ingest(t, st, p, hn)
	st.Close()
	st = reopen()
	defer st.Close()
	x := ingest(t, st, p, post("x", "x1", "https://x.com/a/status/1", "Big news for Acme https://techcrunch.example/2026/acme-series-b", t0.Add(time.Minute)))[0]
	if x.StoryID == nil || x.StoryCount != 2 {
		t.Fatalf("a post linking the HN submission's article: story %v count %d", x.StoryID, x.StoryCount)
	}
	s, err := st.Story(ctx, p, *x.StoryID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Link == nil || *s.Link != "techcrunch.example/2026/acme-series-b" {
		t.Errorf("story link %v", s.Link)
	}
}

// reopener returns a function that opens the same database each time it is
// called, as a restarted process would: one data dir on SQLite, one schema
// on PostgreSQL. The caller closes each store it opens.
func reopener(t *testing.T) func() *store.Store {
	t.Helper()
	dir, u := t.TempDir(), storetest.URL(t)
	return func() *store.Store {
		t.Helper()
		var st *store.Store
		var err error
		if u != "" {
			st, err = store.OpenPostgres(context.Background(), u)
		} else {
			st, err = store.Open(context.Background(), dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

// TestStoriesTwoProcesses: two stores on one database (two processes
// sharing PostgreSQL, or one SQLite file) group mentions as one would:
// each catches up with what the other stored before assigning its own,
// and an earlier mention it had filed alone but the other put in a story
// since is joined in that story, not moved out of it.
func TestStoriesTwoProcesses(t *testing.T) {
	reopen := reopener(t)
	one := reopen()
	defer one.Close()
	two := reopen()
	defer two.Close()
	ctx := context.Background()
	p := storyProject(t, one, "Two")
	for _, st := range []*store.Store{one, two} { // both indexes ready
		if err := st.WarmStories(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour).UTC()
	// a: the outage text at an article's link, stored by one.
	a := ingest(t, one, p, post("news", "a", "https://example.com/news/acme-outage", outageText, t0))[0]
	// b: the same link, other words, stored by two: it must see a.
	b := ingest(t, two, p, post("x", "b", "https://x.com/u/status/1", "Read this https://example.com/news/acme-outage", t0.Add(time.Minute)))[0]
	if b.StoryID == nil || b.StoryCount != 2 {
		t.Fatalf("the second process did not group with the first's mention: story %v count %d", b.StoryID, b.StoryCount)
	}
	// c: a's text without the link, stored by one, whose index filed a
	// alone: it joins a's story.
	c := ingest(t, one, p, post("threads", "c", "https://threads.net/@c/post/1", "RT "+outageText, t0.Add(2*time.Minute)))[0]
	if c.StoryID == nil || *c.StoryID != *b.StoryID || c.StoryCount != 3 {
		t.Fatalf("third mention: story %v count %d, want %s with 3", c.StoryID, c.StoryCount, *b.StoryID)
	}
	got, err := two.Mention(ctx, p, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.StoryID == nil || *got.StoryID != *b.StoryID || got.StoryCount != 3 {
		t.Errorf("first mention: story %v count %d, want %s with 3", got.StoryID, got.StoryCount, *b.StoryID)
	}
	stories, err := two.ListStories(ctx, store.StoryFilter{ProjectID: p}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(stories) != 1 || stories[0].MentionCount != 3 || stories[0].Sources["news"] != 1 || stories[0].Sources["x"] != 1 || stories[0].Sources["threads"] != 1 {
		t.Errorf("stories %+v", stories)
	}
}
