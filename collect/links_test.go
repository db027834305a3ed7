package collect

import (
	"context"
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
