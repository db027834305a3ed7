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

var youtubeNow = time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)

// fakeYouTube serves the recorded search pages and answers videos.list with
// the recorded statistics of the ids asked for.
func fakeYouTube(t *testing.T, log *requestLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.URL.Query().Get("key") != "k3y" {
			w.WriteHeader(400)
			w.Write(readFixture(t, "youtube/bad_key.json"))
			return
		}
		switch r.URL.Path {
		case "/search":
			switch r.URL.Query().Get("pageToken") {
			case "":
				w.Write(readFixture(t, "youtube/search_page1.json"))
			case "CAIQAA":
				w.Write(readFixture(t, "youtube/search_page2.json"))
			default:
				w.Write(readFixture(t, "youtube/empty.json"))
			}
		case "/videos":
			var all struct {
				Kind  string           `json:"kind"`
				Items []map[string]any `json:"items"`
			}
			if err := json.Unmarshal(readFixture(t, "youtube/videos.json"), &all); err != nil {
				t.Error(err)
			}
			want := map[string]bool{}
			for _, id := range strings.Split(r.URL.Query().Get("id"), ",") {
				want[id] = true
			}
			items := []map[string]any{}
			for _, it := range all.Items {
				if want[it["id"].(string)] {
					items = append(items, it)
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"kind": all.Kind, "etag": "e", "items": items,
				"pageInfo": map[string]int{"totalResults": len(items), "resultsPerPage": len(items)}})
		default:
			http.NotFound(w, r)
		}
	}
}

func TestYouTubeFetchPagesStatisticsAndQuota(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(fakeYouTube(t, &log))
	defer srv.Close()
	ledger := NewMemoryQuotaLedger()
	c := NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k3y", Client: srv.Client(), Now: fixedNow(youtubeNow), Ledger: ledger})
	since := youtubeNow.Add(-24 * time.Hour)
	b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme", "acme boards"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	reqs := log.all()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 2 search pages + 1 videos.list", len(reqs))
	}
	q := reqs[0].URL.Query()
	if q.Get("part") != "snippet" || q.Get("type") != "video" || q.Get("order") != "date" || q.Get("maxResults") != "50" ||
		q.Get("publishedAfter") != "2024-04-30T16:00:00Z" || q.Get("q") != `acme|"acme boards"` {
		t.Errorf("search params %v", q)
	}
	if reqs[1].URL.Query().Get("pageToken") != "CAIQAA" {
		t.Errorf("second page token %q", reqs[1].URL.Query().Get("pageToken"))
	}
	if reqs[2].URL.Path != "/videos" || reqs[2].URL.Query().Get("part") != "statistics" ||
		reqs[2].URL.Query().Get("id") != "JoR9u44dNjI,nSSP5mXGPV4,q1W2e3R4t5Y,ZyXwVuTsRqP" {
		t.Errorf("videos request %v", reqs[2].URL)
	}
	if got := ledger.Spent("youtube", "2024-05-01"); got != 201 {
		t.Errorf("units spent = %d, want 201", got)
	}
	if len(b.Posts) != 4 {
		t.Fatalf("%d posts", len(b.Posts))
	}
	p := b.Posts[0]
	if p.URL != "https://www.youtube.com/watch?v=JoR9u44dNjI" || p.AuthorHandle != "Tech Reviews" ||
		p.Text != "Acme 'Boards' review & tutorial\n\nWe tested Acme for a week with a 12-person team. Here's what we found ..." ||
		!p.PublishedAt.Equal(time.Date(2024, 5, 1, 15, 15, 1, 0, time.UTC)) ||
		p.Engagement["viewCount"] != 173178 || p.Engagement["likeCount"] != 2336 || p.Engagement["commentCount"] != 3552 {
		t.Errorf("first post = %+v", p)
	}
	if _, ok := b.Posts[1].Engagement["likeCount"]; ok || b.Posts[1].Engagement["commentCount"] != 14 {
		t.Errorf("hidden likes: %v", b.Posts[1].Engagement)
	}
	if b.Posts[1].Text != `Acme vs Globex "which is faster?"` {
		t.Errorf("quoted title %q", b.Posts[1].Text)
	}
	if b.Posts[2].AuthorHandle != "DevOps & Coffee" {
		t.Errorf("channel %q", b.Posts[2].AuthorHandle)
	}
	if _, ok := b.Posts[2].Engagement["commentCount"]; ok {
		t.Errorf("disabled comments: %v", b.Posts[2].Engagement)
	}

}

func TestYouTubeQuotaStops(t *testing.T) {
	tests := []struct {
		name       string
		quota      int
		preSpent   int
		wantErr    bool
		wantSearch int
		wantStats  bool
	}{
		{"budget for everything", 201, 0, false, 2, true},
		{"no budget for the statistics call", 200, 0, false, 2, false},
		{"budget for one page only", 150, 0, true, 1, false},
		{"budget spent earlier today", 10000, 9950, true, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log requestLog
			srv := httptest.NewServer(fakeYouTube(t, &log))
			defer srv.Close()
			ledger := NewMemoryQuotaLedger()
			ledger.Spend(context.Background(), "youtube", "2024-05-01", tt.preSpent, 10000)
			c := NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k3y", Client: srv.Client(), Now: fixedNow(youtubeNow), Ledger: ledger, DailyQuota: tt.quota})
			b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: youtubeNow.Add(-24 * time.Hour)})
			searches := 0
			for _, r := range log.all() {
				if r.URL.Path == "/search" {
					searches++
				}
			}
			if searches != tt.wantSearch {
				t.Errorf("%d search requests, want %d", searches, tt.wantSearch)
			}
			if spent := ledger.Spent("youtube", "2024-05-01"); spent > max(tt.quota, tt.preSpent) {
				t.Errorf("spent %d over the %d budget", spent, tt.quota)
			}
			if tt.wantErr {
				rl, ok := IsRateLimited(err)
				if !ok || !rl.Until.Equal(time.Date(2024, 5, 2, 0, 0, 0, 0, time.UTC)) {
					t.Fatalf("err = %v, want RateLimitedError until next UTC midnight", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Posts) != 4 {
				t.Fatalf("%d posts", len(b.Posts))
			}
			if _, has := b.Posts[0].Engagement["viewCount"]; has != tt.wantStats {
				t.Errorf("statistics present = %v, want %v", has, tt.wantStats)
			}
		})
	}
	// A new UTC day has a fresh budget.
	ledger := NewMemoryQuotaLedger()
	ledger.Spend(context.Background(), "youtube", "2024-05-01", 10000, 10000)
	var log requestLog
	srv := httptest.NewServer(fakeYouTube(t, &log))
	defer srv.Close()
	tomorrow := time.Date(2024, 5, 2, 0, 0, 1, 0, time.UTC)
	c := NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k3y", Client: srv.Client(), Now: fixedNow(tomorrow), Ledger: ledger})
	if _, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: youtubeNow.Add(-24 * time.Hour)}); err != nil {
		t.Fatalf("next day: %v", err)
	}
}

func TestYouTubeErrors(t *testing.T) {
	pacific, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		pacific = time.FixedZone("PST", -8*3600)
	}
	midnightPT := time.Date(2024, 5, 2, 0, 0, 0, 0, pacific)
	tests := []struct {
		name    string
		status  int
		body    string
		limited bool
		until   time.Time
	}{
		{"Google quotaExceeded", 403, "youtube/quota_exceeded.json", true, midnightPT},
		{"bad key", 400, "youtube/bad_key.json", false, time.Time{}},
		{"truncated JSON", 200, "youtube/malformed.json", false, time.Time{}},
		{"no items", 200, "youtube/error_shape_200.json", false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := cannedServer(t, tt.status, nil, tt.body)
			c := NewYouTube(YouTubeConfig{BaseURL: srv.URL, APIKey: "k3y", Client: srv.Client(), Now: fixedNow(youtubeNow)})
			b, err := c.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: youtubeNow.Add(-time.Hour)})
			if err == nil {
				t.Fatalf("no error; batch %+v", b)
			}
			rl, ok := IsRateLimited(err)
			if ok != tt.limited {
				t.Fatalf("limited = %v, want %v: %v", ok, tt.limited, err)
			}
			if ok && !rl.Until.Equal(tt.until) {
				t.Errorf("Until = %v, want %v", rl.Until, tt.until)
			}
		})
	}
	if ok, missing := NewYouTube(YouTubeConfig{}).Configured(); ok || missing != "EARSHOT_YOUTUBE_API_KEY" {
		t.Errorf("Configured without key = %v %q", ok, missing)
	}
}

func TestYouTubeQuery(t *testing.T) {
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Keywords: []string{"acme", "globex"}}, "acme|globex"},
		{Query{Keywords: []string{"acme", "pricing"}, QueryMode: "all"}, "acme pricing"},
		{Query{Keywords: []string{"acme", "board"}, QueryMode: "phrase"}, `"acme board"`},
		{Query{Keywords: []string{" "}}, ""},
	}
	for _, tt := range tests {
		if got := youtubeQuery(tt.q); got != tt.want {
			t.Errorf("youtubeQuery(%v) = %q, want %q", tt.q.Keywords, got, tt.want)
		}
	}
}
