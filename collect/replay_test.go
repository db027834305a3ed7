package collect

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

// demoQuery is what a demo monitor asks: the brand and its competitor,
// the demo organization page, feeds and review pages.
func demoQuery(replayURL string, since time.Time) Query {
	return Query{
		Keywords:      []string{"Acme", "Globex"},
		WatchAccounts: []string{DemoLinkedInOrganization},
		FeedURLs:      DemoFeedURLs(replayURL),
		ReviewURLs:    DemoReviewURLs(replayURL),
		Since:         since,
	}
}

// TestReplayCollectorsC runs the real threads, linkedin, news and reviews
// collectors, built by the registry from DemoConfig, against the replay server.
func TestReplayCollectorsC(t *testing.T) {
	srv := httptest.NewServer(NewReplayHandler())
	defer srv.Close()
	reg := NewRegistry(DemoConfig(srv.URL), srv.Client())
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

func TestShiftTimestampsKeepsLayouts(t *testing.T) {
	in := `{"timestamp":"2024-05-03T17:42:03+0000","updated":{"label":"2024-05-03T07:49:30-07:00"},` +
		`"createdAt":"2024-05-03T11:20:31.000Z","createdAt":1714748400000,"seendate":"20240503T141500Z",` +
		`"datePublished":"2024-05-03","created_utc":1714564800.0}<pubDate>Fri, 03 May 2024 14:15:07 GMT</pubDate>` +
		`<pubDate>Thu, 2 May 2024 09:05:00 +0000</pubDate>`
	want := `{"timestamp":"2024-05-04T19:42:03+0000","updated":{"label":"2024-05-04T09:49:30-07:00"},` +
		`"createdAt":"2024-05-04T13:20:31.000Z","createdAt":1714842000000,"seendate":"20240504T161500Z",` +
		`"datePublished":"2024-05-04","created_utc":1714658400.0}<pubDate>Sat, 04 May 2024 16:15:07 GMT</pubDate>` +
		`<pubDate>Fri, 03 May 2024 11:05:00 +0000</pubDate>`
	got := string(shiftTimestamps([]byte(in), 26*time.Hour))
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
