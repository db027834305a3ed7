package collect

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"earshot/internal/replay"
)

// demoQuery is what a demo monitor asks: the brand and its competitor,
// the demo organization page, feeds and review pages.
func demoQuery(replayURL string, since time.Time) Query {
	return Query{
		Keywords:      []string{"Acme", "Globex"},
		WatchAccounts: []string{replay.LinkedInOrganization},
		FeedURLs:      replay.FeedURLs(replayURL),
		ReviewURLs:    replay.ReviewURLs(replayURL),
		Since:         since,
	}
}

// TestReplayCollectorsC runs the real threads, linkedin, news and reviews
// collectors, built by the registry from DemoConfig, against the replay server.
func TestReplayCollectorsC(t *testing.T) {
	srv := httptest.NewServer(replay.NewHandler())
	defer srv.Close()
	reg := NewRegistry(DemoConfig(srv.URL, replay.BlueskyHandle), srv.Client())
	now := time.Now()
	want := map[string]int{"threads": 20, "linkedin": 20, "news": 25, "reviews": 23}
	for source, n := range want {
		t.Run(source, func(t *testing.T) {
			c, ok := reg.Get(source)
			if !ok {
				t.Fatal("not in registry")
			}
			if ok, missing := c.Configured(); !ok {
				t.Fatalf("not configured under DemoConfig: %s", missing)
			}
			b, err := c.Fetch(context.Background(), demoQuery(srv.URL, now.Add(-5*24*time.Hour)))
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Posts) != n {
				t.Errorf("%d posts, want %d", len(b.Posts), n)
			}
			var newest time.Time
			for _, p := range b.Posts {
				if p.Source != source || p.ExternalID == "" || p.Text == "" || p.URL == "" {
					t.Errorf("incomplete post %+v", p)
				}
				if p.PublishedAt.After(now) {
					t.Errorf("post from the future: %v %q", p.PublishedAt, p.Text)
				}
				if p.PublishedAt.After(newest) {
					newest = p.PublishedAt
				}
			}
			// Shifted so the newest is about ten minutes old (date-only review
			// dates aside, which cannot be newer than midnight).
			if age := now.Sub(newest); age < 5*time.Minute || age > 40*time.Minute {
				t.Errorf("newest post is %v old, want about 10m", age)
			}
			// A scan over the last 24 hours sees a subset: times are spread.
			day, err := c.Fetch(context.Background(), demoQuery(srv.URL, now.Add(-24*time.Hour)))
			if err != nil {
				t.Fatal(err)
			}
			if len(day.Posts) == 0 || len(day.Posts) >= len(b.Posts) {
				t.Errorf("last 24h: %d of %d posts", len(day.Posts), len(b.Posts))
			}
		})
	}
}
