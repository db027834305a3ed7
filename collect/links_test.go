package collect

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// X shortens every link to t.co; the full URL is in entities.urls. The
// mention shows the full form, lists it in Links (stories), and a
// link-only post matched through its URL ("acme.io") is kept by our own
// matcher (issue 27). Media links (pic.x.com) are not page links.
func TestXExpandedURLs(t *testing.T) {
	srv := cannedServer(t, http.StatusOK, nil, "x/entities_urls.json")
	x := NewX(XConfig{BaseURL: srv.URL, BearerToken: "t", Client: srv.Client(), Now: nowC})
	q := Query{Keywords: []string{"acme.io"}, Since: testNowC.Add(-72 * time.Hour)}
	b, err := x.Fetch(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Posts) != 2 {
		t.Fatalf("%d posts", len(b.Posts))
	}
	only, two := b.Posts[0], b.Posts[1]
	if only.Text != "https://acme.io/pricing?utm_source=twitter" || !slices.Equal(only.Links, []string{"https://acme.io/pricing?utm_source=twitter"}) {
		t.Errorf("link-only post: text %q links %q", only.Text, only.Links)
	}
	if strings.Contains(two.Text, "t.co/") || !strings.Contains(two.Text, "https://news.example.com/2024/05/01/acme-outage") {
		t.Errorf("text still shortened: %q", two.Text)
	}
	if !slices.Equal(two.Links, []string{"https://news.example.com/2024/05/01/acme-outage"}) {
		t.Errorf("links %q, want the article only", two.Links)
	}
	m := Compile(RuleFromQuery(q))
	if !m.Match(only) {
		t.Error("the link-only post matched by X through its URL is dropped by our matcher")
	}
	if m.Match(two) {
		t.Error("a post without acme.io matched")
	}
}

// The matcher also reads a post's Links (a link card's URL the text does
// not show), so a keyword that is a domain matches a post linking it.
func TestMatcherReadsLinks(t *testing.T) {
	p := Post{ExternalID: "1", Text: "worth a read", Links: []string{"https://acme.io/blog/launch"}}
	if !Compile(Rule{Keywords: []string{"acme.io"}}).Match(p) {
		t.Error("a post linking acme.io did not match keyword acme.io")
	}
	if Compile(Rule{Keywords: []string{"acme.io"}, ExcludeKeywords: []string{"launch"}}).Match(p) {
		t.Error("an exclude keyword in the link did not exclude")
	}
}

// Bluesky shows links shortened in the text ("acme.com/blog/launc...");
// the full URL is in the link facet (UTF-8 byte range) or the external
// embed. The mention's text shows the full form and both are its links;
// a keyword in the URL matches (issue 27).
func TestBlueskyFacetAndEmbedLinks(t *testing.T) {
	var page struct {
		Posts []bskyPostView `json:"posts"`
	}
	if err := json.Unmarshal(readFixture(t, "bluesky/search_links.json"), &page); err != nil {
		t.Fatal(err)
	}
	facet, err := page.Posts[0].post()
	if err != nil {
		t.Fatal(err)
	}
	if facet.Text != "Just shipped 🚀 https://acme.com/blog/launch-week-2024 read it" ||
		!slices.Equal(facet.Links, []string{"https://acme.com/blog/launch-week-2024"}) {
		t.Errorf("facet post: text %q links %q", facet.Text, facet.Links)
	}
	card, err := page.Posts[1].post()
	if err != nil {
		t.Fatal(err)
	}
	if card.Text != "Thoughts on this one" || !slices.Equal(card.Links, []string{"https://news.example.com/2024/05/01/acme-outage"}) {
		t.Errorf("card post: text %q links %q", card.Text, card.Links)
	}
	if !Compile(Rule{Keywords: []string{"launch-week-2024"}}).Match(facet) || !Compile(Rule{Keywords: []string{"acme-outage"}}).Match(card) {
		t.Error("a keyword in the full URL did not match")
	}
}
