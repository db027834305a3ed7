package collect

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"earshot/internal/replay"
)

// TestReplaySearchAPIs runs the real hn, reddit, youtube and x collectors
// against the demo replay server.
func TestReplaySearchAPIs(t *testing.T) {
	srv := httptest.NewServer(replay.NewHandler())
	defer srv.Close()

	collectors := []Collector{
		NewHN(HNConfig{BaseURL: srv.URL + "/hn", Client: srv.Client(), HitsPerPage: 5}),
		NewReddit(RedditConfig{BaseURL: srv.URL + "/reddit", Client: srv.Client()}),
		NewReddit(RedditConfig{BaseURL: srv.URL + "/reddit", OAuthBaseURL: srv.URL + "/reddit", ClientID: "demo", ClientSecret: "demo", Client: srv.Client()}),
		NewYouTube(YouTubeConfig{BaseURL: srv.URL + "/youtube", APIKey: "demo", Client: srv.Client(), MaxPages: 10}),
		NewX(XConfig{BaseURL: srv.URL + "/x", BearerToken: "demo", Client: srv.Client()}),
	}
	rule := Compile(Rule{Keywords: []string{"acme", "globex"}})
	for _, c := range collectors {
		t.Run(c.Source(), func(t *testing.T) {
			if !slices.Contains(replay.Sources(), c.Source()) {
				t.Fatalf("no demo handler for %s", c.Source())
			}
			q := Query{Keywords: []string{"acme", "globex"}, Since: time.Now().Add(-5 * 24 * time.Hour)}
			b, err := c.Fetch(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Posts) < 10 {
				t.Fatalf("%d posts, want the demo's dozen or more", len(b.Posts))
			}
			var newest time.Time
			matched, handles := 0, 0
			for _, p := range b.Posts {
				if p.PublishedAt.After(newest) {
					newest = p.PublishedAt
				}
				if p.URL == "" || p.ExternalID == "" || p.Text == "" {
					t.Errorf("incomplete post %+v", p)
				}
				if rule.Match(p) {
					matched++
				}
				if p.AuthorHandle != "" {
					handles++
				}
			}
			if age := time.Since(newest); age < 5*time.Minute || age > 30*time.Minute {
				t.Errorf("newest post is %v old, want about ten minutes", age)
			}
			if matched < len(b.Posts)/2 || handles == 0 {
				t.Errorf("%d of %d posts match, %d have handles", matched, len(b.Posts), handles)
			}
			// The next scan gets the scheduler's overlapping window (an hour
			// back) and the returned state: it reads that hour again at most
			// (the pipeline dedupes it), never the whole backfill.
			q.State, q.Since = b.State, time.Now().Add(-time.Hour)
			inHour := 0
			for _, p := range b.Posts {
				if !p.PublishedAt.Before(q.Since) {
					inHour++
				}
			}
			b2, err := c.Fetch(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(b2.Posts) > inHour+1 {
				t.Errorf("second scan: %d posts, want at most the %d of the last hour", len(b2.Posts), inHour)
			}
			for _, p := range b2.Posts {
				if p.PublishedAt.Before(q.Since.Add(-time.Second)) {
					t.Errorf("second scan returned %s from %v, before its window", p.ExternalID, p.PublishedAt)
				}
			}
		})
	}
	// Watched accounts reach the demo too.
	x := NewX(XConfig{BaseURL: srv.URL + "/x", BearerToken: "demo", Client: srv.Client()})
	b, err := x.Fetch(context.Background(), Query{WatchAccounts: []string{"@acmehq"}, Since: time.Now().Add(-5 * 24 * time.Hour)})
	if err != nil || len(b.Posts) != 3 {
		t.Errorf("from:acmehq: %d posts, %v", len(b.Posts), err)
	}
}
