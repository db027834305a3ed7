package collect

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// XBaseURL is the X (Twitter) API host.
const XBaseURL = "https://api.x.com"

const (
	xMaxQuery = 512                // recent search query length limit
	xWindow   = 7 * 24 * time.Hour // recent search reaches back this far
)

// XConfig configures the X recent-search collector.
type XConfig struct {
	BaseURL     string // default XBaseURL (EARSHOT_X_BASE_URL)
	BearerToken string // EARSHOT_X_BEARER_TOKEN (app-only)
	Client      *http.Client
	Now         func() time.Time
	MaxPages    int // per query and scan; default 10 (1,000 posts)
}

// X searches the last seven days of posts through API v2 recent search,
// retweets excluded. State is the newest post id seen (since_id).
type X struct {
	cfg  XConfig
	http *HTTP
}

// NewX returns an X collector.
func NewX(cfg XConfig) *X {
	cfg.BaseURL = orDefault(cfg.BaseURL, XBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 10
	}
	h := &HTTP{Client: cfg.Client, Source: "x", Now: cfg.Now,
		Header: http.Header{"Authorization": {"Bearer " + cfg.BearerToken}}}
	return &X{cfg: cfg, http: h}
}

func (x *X) Source() string { return "x" }

func (x *X) Configured() (bool, string) {
	if x.cfg.BearerToken == "" {
		return false, "EARSHOT_X_BEARER_TOKEN"
	}
	return true, ""
}

type xPage struct {
	Data *[]struct {
		ID            string           `json:"id"`
		Text          string           `json:"text"`
		AuthorID      string           `json:"author_id"`
		CreatedAt     string           `json:"created_at"`
		PublicMetrics map[string]int64 `json:"public_metrics"`
		Entities      struct {
			URLs []xURLEntity `json:"urls"`
		} `json:"entities"`
	} `json:"data"`
	Includes struct {
		Users []struct {
			ID            string           `json:"id"`
			Username      string           `json:"username"`
			PublicMetrics map[string]int64 `json:"public_metrics"`
		} `json:"users"`
	} `json:"includes"`
	Meta *struct {
		NewestID    string `json:"newest_id"`
		ResultCount int    `json:"result_count"`
		NextToken   string `json:"next_token"`
	} `json:"meta"`
}

// xMetrics maps public_metrics keys to engagement keys.
var xMetrics = [][2]string{
	{"like_count", "likes"}, {"retweet_count", "retweets"}, {"reply_count", "replies"},
	{"quote_count", "quotes"}, {"impression_count", "impressions"}, {"bookmark_count", "bookmarks"},
}

// Fetch returns posts newer than the previous scan's newest id, within the
// seven days recent search covers and no older than q.Since.
func (x *X) Fetch(ctx context.Context, q Query) (Batch, error) {
	now := x.cfg.Now().UTC()
	// A minute of slack: a start_time the API judges older than seven days
	// is a 400.
	start := now.Add(-xWindow + time.Minute).Truncate(time.Second)
	if q.Since.After(start) {
		start = q.Since.UTC().Truncate(time.Second)
	}
	sinceID := q.State
	if sinceID != "" {
		if _, err := strconv.ParseUint(sinceID, 10, 64); err != nil {
			return Batch{}, fmt.Errorf("x: bad state %q", sinceID)
		}
		// An id from before the window is refused by the API; start_time
		// already bounds the search then.
		if snowflakeTime(sinceID).Before(start) {
			sinceID = ""
		}
	}
	b := Batch{State: q.State}
	newest := q.State
	seen := map[string]bool{}
	for _, term := range xQueries(q) {
		v := url.Values{}
		v.Set("query", term)
		v.Set("max_results", "100")
		v.Set("start_time", start.Format(time.RFC3339))
		if sinceID != "" {
			v.Set("since_id", sinceID)
		}
		v.Set("expansions", "author_id")
		v.Set("tweet.fields", "created_at,public_metrics,author_id,entities")
		v.Set("user.fields", "username,public_metrics")
		for page := 0; page < x.cfg.MaxPages; page++ {
			var p xPage
			hdr, err := x.http.GetJSON(ctx, x.cfg.BaseURL+"/2/tweets/search/recent?"+v.Encode(), &p)
			if err != nil {
				return Batch{}, x.capReached(err, hdr)
			}
			posts, err := p.posts()
			if err != nil {
				return Batch{}, err
			}
			for _, post := range posts {
				if wire.NewerID(post.ExternalID, newest) {
					newest = post.ExternalID
				}
				if !seen[post.ExternalID] {
					seen[post.ExternalID] = true
					b.Posts = append(b.Posts, post)
				}
			}
			if p.Meta.NextToken == "" {
				break
			}
			if err := x.waitForBudget(ctx, hdr); err != nil {
				return Batch{}, err
			}
			v.Set("next_token", p.Meta.NextToken)
		}
	}
	b.State = newest
	return b, nil
}

func (p *xPage) posts() ([]Post, error) {
	if p.Meta == nil {
		return nil, fmt.Errorf("x: %w: no meta", errMalformed)
	}
	if p.Data == nil {
		if p.Meta.ResultCount > 0 {
			return nil, fmt.Errorf("x: %w: result_count %d without data", errMalformed, p.Meta.ResultCount)
		}
		return nil, nil
	}
	type user struct {
		name      string
		followers int64
	}
	users := map[string]user{}
	for _, u := range p.Includes.Users {
		users[u.ID] = user{u.Username, u.PublicMetrics["followers_count"]}
	}
	var out []Post
	for _, t := range *p.Data {
		if t.ID == "" {
			return nil, fmt.Errorf("x: %w: post without id", errMalformed)
		}
		published, err := wire.ParseTimestamp(t.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("x: %w: post %s: %v", errMalformed, t.ID, err)
		}
		u := users[t.AuthorID] // absent for suspended or deleted accounts
		post := Post{
			Source:          "x",
			ExternalID:      t.ID,
			URL:             "https://x.com/i/web/status/" + t.ID,
			AuthorHandle:    wire.NormalizeHandle(u.name),
			AuthorFollowers: u.followers,
			Text:            expandXURLs(wire.UnescapeText(t.Text), t.Entities.URLs), // plain text; X escapes &, < and >
			PublishedAt:     published,
			Engagement:      map[string]int64{},
		}
		if u.name != "" {
			post.URL = "https://x.com/" + url.PathEscape(u.name) + "/status/" + t.ID
		}
		post.Links = xLinks(t.Entities.URLs)
		for _, m := range xMetrics {
			if n, ok := t.PublicMetrics[m[0]]; ok {
				post.Engagement[m[1]] = n
			}
		}
		out = append(out, post)
	}
	return out, nil
}

// xURLEntity is one link of a post: X shortens every link in the text to
// a t.co URL and gives the full one here.
type xURLEntity struct {
	URL         string `json:"url"`          // the t.co link in the text
	ExpandedURL string `json:"expanded_url"` // what the author wrote
	UnwoundURL  string `json:"unwound_url"`  // after redirects (enterprise and some v2 answers)
}

func (e xURLEntity) full() string {
	if e.UnwoundURL != "" {
		return e.UnwoundURL
	}
	return e.ExpandedURL
}

// expandXURLs shows every link of the text in its full form: a t.co link
// joins no story and matches no keyword of the page it points to.
func expandXURLs(text string, urls []xURLEntity) string {
	for _, e := range urls {
		if e.URL != "" && e.full() != "" {
			text = strings.ReplaceAll(text, e.URL, e.full())
		}
	}
	return text
}

// xLinks are the post's full links; a link card's URL (the last t.co of
// a link-only post) may not be in the text at all.
func xLinks(urls []xURLEntity) []string {
	var out []string
	for _, e := range urls {
		if u := e.full(); u != "" && !strings.HasPrefix(u, "https://x.com/") && !strings.HasPrefix(u, "https://twitter.com/") {
			out = append(out, u)
		}
	}
	return out
}

// reXCapDetail reads "detail" from X's usage-cap answer; the error keeps
// only the start of the body, so it may not be whole JSON.
var reXCapDetail = regexp.MustCompile(`"detail"\s*:\s*"([^"]*)"`)

// capReached turns a 429 UsageCapExceeded into a CapReachedError: the
// monthly post cap lasts until the next month (or the Retry-After X may
// send), so retrying every minute only burns requests.
func (x *X) capReached(err error, hdr http.Header) error {
	rl, ok := IsRateLimited(err)
	if !ok || !strings.Contains(rl.Body, "UsageCapExceeded") && !strings.Contains(rl.Body, "usage-capped") {
		return err
	}
	detail := "UsageCapExceeded"
	if m := reXCapDetail.FindStringSubmatch(rl.Body); m != nil {
		detail = m[1]
	}
	now := x.cfg.Now().UTC()
	until := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	if ra := strings.TrimSpace(hdr.Get("Retry-After")); ra != "" {
		until = x.http.rateLimitUntil(hdr).UTC()
	}
	return &CapReachedError{Source: "x", Until: until, Detail: detail}
}

// waitForBudget honours x-rate-limit-remaining before the next page: with
// none left it sleeps through a reset a few seconds away or returns
// RateLimitedError until x-rate-limit-reset.
func (x *X) waitForBudget(ctx context.Context, hdr http.Header) error {
	if strings.TrimSpace(hdr.Get("X-Rate-Limit-Remaining")) != "0" {
		return nil
	}
	return x.http.waitForReset(ctx, hdr)
}

// snowflakeTime is when an X id was minted.
func snowflakeTime(id string) time.Time {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(int64(n>>22) + wire.TwitterEpochMS).UTC()
}

// xQueries builds recent-search queries: keywords (quoted unless a plain
// word, @mention, #hashtag or $cashtag) OR'ed, AND'ed or as one phrase,
// from: terms for watched accounts, and -is:retweet. A query over 512
// characters is split across several.
func xQueries(q Query) []string {
	kws := queryKeywords(q.Keywords, `"`)
	var terms []string
	switch {
	case len(kws) == 0:
	case q.QueryMode == "all":
		for i, k := range kws {
			kws[i] = xQuote(k)
		}
		terms = append(terms, "("+strings.Join(kws, " ")+")")
	case q.QueryMode == "phrase":
		terms = append(terms, `"`+strings.Join(kws, " ")+`"`)
	default:
		for _, k := range kws {
			terms = append(terms, xQuote(k))
		}
	}
	for _, a := range watchHandles("x", q.WatchAccounts) {
		terms = append(terms, "from:"+a)
	}
	const suffix = " -is:retweet"
	var out []string
	var cur []string
	size := 0
	flush := func() {
		if len(cur) == 1 {
			out = append(out, cur[0]+suffix)
		} else if len(cur) > 1 {
			out = append(out, "("+strings.Join(cur, " OR ")+")"+suffix)
		}
		cur, size = nil, 0
	}
	for _, t := range terms {
		if len(cur) > 0 && size+len(" OR ")+len(t)+len("()")+len(suffix) > xMaxQuery {
			flush()
		}
		if len(cur) > 0 {
			size += len(" OR ")
		}
		cur = append(cur, t)
		size += len(t)
	}
	flush()
	return out
}

func xQuote(k string) string {
	body := strings.TrimLeft(k, "@#$")
	if len(body) < len(k)-1 || body == "" {
		return `"` + k + `"`
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c > 127) {
			return `"` + k + `"`
		}
	}
	return k
}
