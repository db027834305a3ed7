package collect

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Plain-text posts keep words that look like tags: only sources whose fields
// are HTML (HN, feed descriptions, review pages) are stripped.
func TestPlainTextSourcesKeepAngleBrackets(t *testing.T) {
	const title = "How do I wrap my app in <AcmeProvider>?"
	const body = "if a<b and c>d"
	now := time.Now().UTC()
	at := now.Add(-10 * time.Minute)
	serve := func(v any) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/videos" {
				w.Write([]byte(`{"items":[]}`))
				return
			}
			json.NewEncoder(w).Encode(v)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	cases := []struct {
		name string
		c    func() Collector
		want string
	}{
		{"reddit (raw_json=1)", func() Collector {
			srv := serve(map[string]any{"kind": "Listing", "data": map[string]any{"children": []any{map[string]any{"kind": "t3", "data": map[string]any{
				"name": "t3_a", "id": "a", "author": "u", "title": title, "selftext": body, "permalink": "/r/x/comments/a/", "created_utc": float64(at.Unix())}}}}})
			return NewReddit(RedditConfig{BaseURL: srv.URL, Client: srv.Client()})
		}, title + "\n\n" + body},
		{"threads", func() Collector {
			srv := serve(map[string]any{"data": []any{map[string]any{"id": "1", "text": title + " " + body, "timestamp": at.Format("2006-01-02T15:04:05-0700"), "username": "u"}}})
			return NewThreads(ThreadsConfig{BaseURL: srv.URL, AccessToken: "t", Client: srv.Client()})
		}, title + " " + body},
		{"x (escapes &, < and >)", func() Collector {
			srv := serve(map[string]any{"data": []any{map[string]any{"id": "1790000000000000001", "author_id": "1", "created_at": at.Format(time.RFC3339),
				"text": "How do I wrap my app in &lt;AcmeProvider&gt;? if a&lt;b and c&gt;d"}}, "meta": map[string]any{"result_count": 1}})
			return NewX(XConfig{BaseURL: srv.URL, BearerToken: "t", Client: srv.Client()})
		}, title + " " + body},
		{"youtube (entity-escaped snippets)", func() Collector {
			srv := serve(map[string]any{"items": []any{map[string]any{"id": map[string]any{"videoId": "v1"}, "snippet": map[string]any{
				"publishedAt": at.Format(time.RFC3339), "title": "How do I wrap my app in &lt;AcmeProvider&gt;?", "description": "if a&lt;b and c&gt;d", "channelTitle": "c"}}}})
			return NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k", Client: srv.Client()})
		}, title + "\n\n" + body},
		{"linkedin (little text escapes < and >)", func() Collector {
			srv := serve(map[string]any{"elements": []any{map[string]any{"id": "urn:li:share:1", "author": "urn:li:organization:1",
				"commentary": `How do I wrap my app in \<AcmeProvider\>? if a\<b and c\>d`, "publishedAt": at.UnixMilli(), "lifecycleState": "PUBLISHED"}}, "paging": map[string]any{}})
			return NewLinkedIn(LinkedInConfig{BaseURL: srv.URL, AccessToken: "t", Client: srv.Client()})
		}, title + " " + body},
	}
	rule := Compile(Rule{Keywords: []string{"AcmeProvider"}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.c().Fetch(context.Background(), Query{Keywords: []string{"AcmeProvider"}, WatchAccounts: []string{"urn:li:organization:1"}, Since: now.Add(-time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Posts) == 0 {
				t.Fatal("no posts")
			}
			p := b.Posts[0]
			if p.Text != tc.want {
				t.Errorf("text %q, want %q", p.Text, tc.want)
			}
			if !rule.Match(p) {
				t.Errorf("keyword AcmeProvider does not match %q", p.Text)
			}
		})
	}
}

// Where the field is HTML, tags go and the words stay.
func TestHTMLSourcesStillStripped(t *testing.T) {
	hit := hnHit{ObjectID: "1", CreatedAtI: 1714564800, CommentText: ptr(`I wrap it in <code>&lt;AcmeProvider&gt;</code>, <i>if a&lt;b</i>`)}
	p, err := hit.post()
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "I wrap it in <AcmeProvider>, if a<b" {
		t.Errorf("hn text %q", p.Text)
	}
	// Atom: type="text" is plain text, type="html" is markup.
	feed := `<feed xmlns="http://www.w3.org/2005/Atom"><title>F</title>
<entry><id>1</id><title type="text">Wrap it in &lt;AcmeProvider&gt;</title><updated>2024-05-01T00:00:00Z</updated><summary type="html">&lt;p&gt;if a&amp;lt;b &lt;b&gt;now&lt;/b&gt;&lt;/p&gt;</summary></entry></feed>`
	posts, err := ParseFeed([]byte(feed), "https://blog.example/atom", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if want := "Wrap it in <AcmeProvider>\n\nif a<b now"; len(posts) != 1 || posts[0].Text != want {
		t.Errorf("atom posts %+v, want text %q", posts, want)
	}
	// App Store review content is type "text".
	e := appStoreEntry{ID: appStoreLabel{"9"}, Updated: appStoreLabel{"2024-05-01T07:49:30-07:00"}, Rating: &appStoreLabel{"4"},
		Title: appStoreLabel{"Needs <AcmeProvider>"}, Content: appStoreLabel{"if a<b and c>d"}}
	ap, err := appStorePost(e, "us", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ap.Text, "<AcmeProvider>") || !strings.Contains(ap.Text, "a<b and c>d") {
		t.Errorf("app store text %q", ap.Text)
	}
}

func ptr[T any](v T) *T { return &v }
