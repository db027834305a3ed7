package collect

import (
	"slices"
	"testing"
)

// TestSubmissionLinks: HN and Reddit link submissions name their article
// in Post.Links (stories group an X post linking it with them); comments,
// text posts and Ask HN do not.
func TestSubmissionLinks(t *testing.T) {
	str := func(s string) *string { return &s }
	at := float64(1790000000)
	cases := []struct {
		name string
		post func() (Post, error)
		want []string
	}{
		{"hn link submission", hnHit{ObjectID: "1", CreatedAtI: 1790000000, Title: str("Acme raises"), URL: str("https://news.example/acme")}.post,
			[]string{"https://news.example/acme"}},
		{"ask hn", hnHit{ObjectID: "2", CreatedAtI: 1790000000, Title: str("Ask HN: Acme?"), StoryText: str("anyone?")}.post, nil},
		{"hn comment", hnHit{ObjectID: "3", CreatedAtI: 1790000000, CommentText: str("Acme is fine"), URL: str("https://news.example/acme")}.post, nil},
		{"reddit link post", func() (Post, error) {
			return redditThing{Name: "t3_a", Title: "Acme raises", URL: "https://news.example/acme", Permalink: "/r/x/comments/a/t/", CreatedUTC: &at}.post(), nil
		}, []string{"https://news.example/acme"}},
		{"reddit text post", func() (Post, error) {
			return redditThing{Name: "t3_b", Title: "Acme?", IsSelf: true, URL: "https://www.reddit.com/r/x/comments/b/t/", Permalink: "/r/x/comments/b/t/", CreatedUTC: &at}.post(), nil
		}, nil},
		{"reddit comment", func() (Post, error) {
			return redditThing{Name: "t1_c", Body: "Acme is fine", Permalink: "/r/x/comments/a/t/c/", CreatedUTC: &at}.post(), nil
		}, nil},
	}
	for _, c := range cases {
		p, err := c.post()
		if err != nil {
			t.Fatal(c.name, err)
		}
		if !slices.Equal(p.Links, c.want) {
			t.Errorf("%s: Links %q, want %q", c.name, p.Links, c.want)
		}
	}
}
