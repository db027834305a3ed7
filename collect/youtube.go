package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"earshot/collect/wire"
)

// YouTubeBaseURL is the YouTube Data API v3.
const YouTubeBaseURL = "https://www.googleapis.com/youtube/v3"

// YouTube quota: every project gets YouTubeDailyQuota units a day; a
// search.list page costs 100 units and a videos.list call 1.
const (
	YouTubeDailyQuota = 10000
	youtubeSearchCost = 100
	youtubeVideosCost = 1
)

// QuotaLedger records units spent against a daily budget. Spend adds units
// to (source, day) and reports true only when the total stays within limit;
// when it would not, nothing is recorded and it reports false. The store
// provides a database-backed ledger so restarts and several processes share
// one count.
type QuotaLedger interface {
	Spend(ctx context.Context, source, day string, units, limit int) (bool, error)
}

// MemoryQuotaLedger is a QuotaLedger for one process (and for tests).
type MemoryQuotaLedger struct {
	mu    sync.Mutex
	spent map[string]int
}

// NewMemoryQuotaLedger returns an empty in-memory ledger.
func NewMemoryQuotaLedger() *MemoryQuotaLedger {
	return &MemoryQuotaLedger{spent: map[string]int{}}
}

// Spend implements QuotaLedger.
func (l *MemoryQuotaLedger) Spend(_ context.Context, source, day string, units, limit int) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := source + "\x00" + day
	if l.spent[k]+units > limit {
		return false, nil
	}
	l.spent[k] += units
	return true, nil
}

// Spent returns the units recorded for source on day.
func (l *MemoryQuotaLedger) Spent(source, day string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spent[source+"\x00"+day]
}

// YouTubeConfig configures the YouTube collector.
type YouTubeConfig struct {
	BaseURL    string // default YouTubeBaseURL (EARSHOT_YOUTUBE_BASE_URL)
	APIKey     string // EARSHOT_YOUTUBE_API_KEY; the collector is not configured without it
	Client     *http.Client
	Now        func() time.Time
	Ledger     QuotaLedger // default: a MemoryQuotaLedger of its own
	DailyQuota int         // units per UTC day; default YouTubeDailyQuota
	MaxPages   int         // search.list pages per query and scan; default 4
}

// YouTube finds new videos with search.list (order=date) and reads their
// counters with videos.list, within a daily quota-unit budget. Each scan
// searches the scheduler's window (q.Since); State only lists the videos
// stored without counters, to fill in later.
type YouTube struct {
	cfg  YouTubeConfig
	http *HTTP
}

// NewYouTube returns a YouTube collector.
func NewYouTube(cfg YouTubeConfig) *YouTube {
	cfg.BaseURL = orDefault(cfg.BaseURL, YouTubeBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Ledger == nil {
		cfg.Ledger = NewMemoryQuotaLedger()
	}
	if cfg.DailyQuota <= 0 {
		cfg.DailyQuota = YouTubeDailyQuota
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 4
	}
	return &YouTube{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "youtube", Now: cfg.Now}}
}

func (y *YouTube) Source() string { return "youtube" }

func (y *YouTube) Configured() (bool, string) {
	if y.cfg.APIKey == "" {
		return false, "EARSHOT_YOUTUBE_API_KEY"
	}
	return true, ""
}

type youtubeSearchPage struct {
	Kind          string `json:"kind"`
	NextPageToken string `json:"nextPageToken"`
	Items         *[]struct {
		ID struct {
			Kind    string `json:"kind"`
			VideoID string `json:"videoId"`
		} `json:"id"`
		Snippet *struct {
			PublishedAt  string `json:"publishedAt"`
			ChannelID    string `json:"channelId"`
			Title        string `json:"title"`
			Description  string `json:"description"`
			ChannelTitle string `json:"channelTitle"`
		} `json:"snippet"`
	} `json:"items"`
}

type youtubeVideosPage struct {
	Items *[]struct {
		ID         string            `json:"id"`
		Statistics map[string]string `json:"statistics"`
	} `json:"items"`
}

// youtubeCounters maps statistics fields (strings in the API) to
// engagement keys; missing ones (hidden likes, disabled comments) are left out.
var youtubeCounters = []string{"viewCount", "likeCount", "commentCount"}

// Fetch searches videos published at or after q.Since, then reads their
// statistics. publishedAfter is the scheduler's window, not the newest video
// seen before: search indexes some videos late, and a high-water mark would
// skip one published before the newest but indexed after the last scan.
// The overlap costs no extra search page in a normal scan (a page holds
// 50 videos) and the pipeline's dedupe drops the repeats.
func (y *YouTube) Fetch(ctx context.Context, q Query) (Batch, error) {
	after := q.Since.UTC()
	term := youtubeQuery(q)
	var b Batch
	if term == "" {
		return b, nil
	}
	var ids []string
	byID := map[string]*Post{}
	v := url.Values{}
	v.Set("part", "snippet")
	v.Set("q", term)
	v.Set("type", "video")
	v.Set("order", "date")
	v.Set("maxResults", "50")
	if !after.IsZero() {
		v.Set("publishedAfter", after.Format(time.RFC3339))
	}
	v.Set("key", y.cfg.APIKey)
	for page := 0; page < y.cfg.MaxPages; page++ {
		if err := y.spend(ctx, youtubeSearchCost); err != nil {
			return Batch{}, err
		}
		var sp youtubeSearchPage
		if err := y.getJSON(ctx, y.cfg.BaseURL+"/search?"+v.Encode(), &sp); err != nil {
			return Batch{}, err
		}
		if sp.Items == nil {
			return Batch{}, fmt.Errorf("youtube: %w: search response without items (kind %q)", errMalformed, sp.Kind)
		}
		for _, it := range *sp.Items {
			if it.ID.VideoID == "" || it.Snippet == nil {
				continue // channels and playlists never come with type=video
			}
			published, err := wire.ParseTimestamp(it.Snippet.PublishedAt)
			if err != nil {
				return Batch{}, fmt.Errorf("youtube: %w: video %s: %v", errMalformed, it.ID.VideoID, err)
			}
			if byID[it.ID.VideoID] != nil || published.Before(after) {
				continue
			}
			ids = append(ids, it.ID.VideoID)
			byID[it.ID.VideoID] = &Post{
				Source:       "youtube",
				ExternalID:   it.ID.VideoID,
				URL:          "https://www.youtube.com/watch?v=" + url.QueryEscape(it.ID.VideoID),
				AuthorHandle: wire.NormalizeHandle(wire.UnescapeText(it.Snippet.ChannelTitle)),
				// Snippets are plain text with entities escaped (&#39;).
				Text:        joinText(wire.UnescapeText(it.Snippet.Title), wire.UnescapeText(it.Snippet.Description)),
				PublishedAt: published,
				Engagement:  map[string]int64{},
			}
		}
		if sp.NextPageToken == "" {
			break
		}
		v.Set("pageToken", sp.NextPageToken)
	}
	pending, err := y.statistics(ctx, ids, byID)
	if err != nil {
		return Batch{}, err
	}
	for _, id := range pending {
		byID[id].Note = NoteNoCounters
	}
	for _, id := range ids {
		b.Posts = append(b.Posts, *byID[id])
	}
	// Videos an earlier scan stored without counters get them now, if
	// the budget allows (it does once Google's quota reset). Those found
	// again are duplicates the pipeline does not write, so their counters
	// go out as a refresh too.
	var earlier []string
	refresh := map[string]*Post{}
	for _, id := range parseYouTubeState(q.State).PendingStats {
		if p := byID[id]; p != nil {
			refresh[id] = p
			continue
		}
		earlier = append(earlier, id)
		refresh[id] = &Post{Source: "youtube", ExternalID: id, Engagement: map[string]int64{}}
	}
	still, err := y.statistics(ctx, earlier, refresh)
	if err != nil {
		return Batch{}, err
	}
	pending = append(pending, still...)
	for _, id := range parseYouTubeState(q.State).PendingStats {
		if p := refresh[id]; len(p.Engagement) > 0 {
			b.Refresh = append(b.Refresh, Post{Source: "youtube", ExternalID: id, Engagement: p.Engagement})
		}
	}
	b.State = youtubeState{PendingStats: pending[:min(len(pending), youtubeMaxPending)]}.String()
	return b, nil
}

// NoteNoCounters marks a video stored without its counters: videos.list
// was refused (Google's quotaExceeded, or our own daily budget); a later
// scan fills them in.
const NoteNoCounters = "stored without counters (videos.list refused; filled in on a later scan)"

// youtubeMaxPending bounds the ids a scan remembers to fill in later (10
// videos.list calls).
const youtubeMaxPending = 500

// youtubeState is YouTube's Batch.State: the videos stored without
// counters. It is never empty ("{}"), so a scan that filled them in
// clears what the previous one left.
type youtubeState struct {
	PendingStats []string `json:"pending_stats,omitempty"`
}

func (s youtubeState) String() string {
	b, err := json.Marshal(s)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// parseYouTubeState reads the state; an older or damaged one is empty (the
// counters of those videos are lost, not the scan).
func parseYouTubeState(raw string) youtubeState {
	var s youtubeState
	_ = json.Unmarshal([]byte(raw), &s)
	return s
}

// statistics fills counters from videos.list, 50 ids a call, and returns
// the ids left without them. When the day's budget cannot pay for a call,
// or Google refuses it (403 quotaExceeded after the search units were
// spent), the videos go out without counters: the posts are worth more
// than the numbers, and a later scan fills them in.
func (y *YouTube) statistics(ctx context.Context, ids []string, byID map[string]*Post) (pending []string, err error) {
	for start := 0; start < len(ids); start += 50 {
		chunk := ids[start:min(start+50, len(ids))]
		if err := y.spend(ctx, youtubeVideosCost); err != nil {
			if _, ok := IsRateLimited(err); ok {
				return ids[start:], nil
			}
			return nil, err
		}
		v := url.Values{}
		v.Set("part", "statistics")
		v.Set("id", strings.Join(chunk, ","))
		v.Set("maxResults", "50")
		v.Set("key", y.cfg.APIKey)
		var vp youtubeVideosPage
		if err := y.getJSON(ctx, y.cfg.BaseURL+"/videos?"+v.Encode(), &vp); err != nil {
			if _, ok := IsRateLimited(err); ok {
				return ids[start:], nil
			}
			return nil, err
		}
		if vp.Items == nil {
			return nil, fmt.Errorf("youtube: %w: videos response without items", errMalformed)
		}
		for _, it := range *vp.Items {
			p := byID[it.ID]
			if p == nil {
				continue
			}
			for _, k := range youtubeCounters {
				if s, ok := it.Statistics[k]; ok {
					n, err := strconv.ParseInt(s, 10, 64)
					if err != nil {
						return nil, fmt.Errorf("youtube: %w: %s of %s = %q", errMalformed, k, it.ID, s)
					}
					p.Engagement[k] = n
				}
			}
		}
	}
	return nil, nil
}

// spend charges units to today's (UTC) budget, or returns a
// RateLimitedError until the next UTC midnight when they would exceed it.
func (y *YouTube) spend(ctx context.Context, units int) error {
	now := y.cfg.Now().UTC()
	ok, err := y.cfg.Ledger.Spend(ctx, "youtube", now.Format(time.DateOnly), units, y.cfg.DailyQuota)
	if err != nil {
		return fmt.Errorf("youtube: quota ledger: %w", err)
	}
	if !ok {
		return &RateLimitedError{Source: "youtube", Until: nextUTCMidnight(now)}
	}
	return nil
}

// getJSON is GetJSON plus Google's quota answer: 403 quotaExceeded means the
// project's real budget (reset at midnight Pacific) is gone.
func (y *YouTube) getJSON(ctx context.Context, u string, v any) error {
	_, err := y.http.GetJSON(ctx, u, v)
	var se *StatusError
	if errors.As(err, &se) && se.Status == http.StatusForbidden &&
		(strings.Contains(se.Body, "quotaExceeded") || strings.Contains(se.Body, "exceeded your")) {
		return &RateLimitedError{Source: "youtube", Until: nextPacificMidnight(y.cfg.Now())}
	}
	return err
}

func nextUTCMidnight(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
}

// nextPacificMidnight is when Google resets API quotas. Without zone data it
// assumes UTC-8 (PST), at worst an hour late.
func nextPacificMidnight(t time.Time) time.Time {
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		loc = time.FixedZone("PST", -8*3600)
	}
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc).UTC()
}

// youtubeQuery builds q: keywords OR'ed with "|" (any), space-separated
// (all) or one quoted phrase; multi-word keywords are quoted.
func youtubeQuery(q Query) string {
	kws := queryKeywords(q.Keywords, `"`)
	if len(kws) == 0 {
		return ""
	}
	if q.QueryMode == "phrase" {
		return `"` + strings.Join(kws, " ") + `"`
	}
	for i, k := range kws {
		if strings.ContainsAny(k, " \t|-") {
			kws[i] = `"` + k + `"`
		}
	}
	if q.QueryMode == "all" {
		return strings.Join(kws, " ")
	}
	return strings.Join(kws, "|")
}
