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
	"time"

	"earshot/collect/wire"
)

// ThreadsBaseURL is the Threads Graph API host.
const ThreadsBaseURL = "https://graph.threads.net"

// threadsFields are the keyword_search fields we read (its fields parameter).
const threadsFields = "id,text,media_type,permalink,timestamp,username,has_replies,is_quote_post,is_reply"

// threadsMaxPages bounds one scan per query: 2,200 queries a day is the
// whole budget, shared across apps.
const threadsMaxPages = 5

// ThreadsConfig configures the Threads keyword-search collector.
type ThreadsConfig struct {
	BaseURL     string // default ThreadsBaseURL
	AccessToken string // EARSHOT_THREADS_ACCESS_TOKEN: threads_basic + threads_keyword_search
	Client      *http.Client
	Now         func() time.Time
}

// Threads searches recent public Threads posts through the keyword_search
// endpoint. Without app review for threads_keyword_search Meta only returns
// the token owner's own posts; nothing in the response says so.
type Threads struct {
	cfg  ThreadsConfig
	http *HTTP
}

// NewThreads returns a Threads collector.
func NewThreads(cfg ThreadsConfig) *Threads {
	cfg.BaseURL = orDefault(cfg.BaseURL, ThreadsBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Threads{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "threads", Now: cfg.Now}}
}

func (t *Threads) Source() string { return "threads" }

func (t *Threads) Configured() (bool, string) {
	if t.cfg.AccessToken == "" {
		return false, "EARSHOT_THREADS_ACCESS_TOKEN"
	}
	return true, ""
}

type threadsPage struct {
	Data *[]struct {
		ID          string `json:"id"`
		Text        string `json:"text"`
		MediaType   string `json:"media_type"`
		Permalink   string `json:"permalink"`
		Timestamp   string `json:"timestamp"`
		Username    string `json:"username"`
		HasReplies  bool   `json:"has_replies"`
		IsQuotePost bool   `json:"is_quote_post"`
		IsReply     bool   `json:"is_reply"`
	} `json:"data"`
	Paging struct {
		Cursors struct {
			After string `json:"after"`
		} `json:"cursors"`
		Next string `json:"next"`
	} `json:"paging"`
}

// Fetch runs one RECENT keyword search per query term (see threadsQueries)
// bounded by since/until, following paging until it reaches posts older
// than q.Since.
func (t *Threads) Fetch(ctx context.Context, q Query) (Batch, error) {
	if ok, missing := t.Configured(); !ok {
		return Batch{}, fmt.Errorf("threads: not configured: %s is not set", missing)
	}
	now := t.cfg.Now().UTC()
	seen := map[string]bool{}
	var posts []Post
	for _, term := range threadsQueries(q) {
		got, err := t.search(ctx, term, q.Since, now, seen)
		if err != nil {
			return Batch{}, err // a failed fetch stores nothing (PartialError)
		}
		posts = append(posts, got...)
	}
	return Batch{Posts: posts}, nil
}

func (t *Threads) search(ctx context.Context, term string, since, now time.Time, seen map[string]bool) ([]Post, error) {
	params := url.Values{}
	params.Set("q", term)
	params.Set("search_type", "RECENT")
	params.Set("fields", threadsFields)
	params.Set("limit", "100")
	if !since.IsZero() {
		params.Set("since", strconv.FormatInt(since.Unix(), 10))
	}
	params.Set("until", strconv.FormatInt(now.Unix(), 10))
	params.Set("access_token", t.cfg.AccessToken)
	endpoint := t.cfg.BaseURL + "/v1.0/keyword_search?"
	next := endpoint + params.Encode()

	var posts []Post
	for page := 0; page < threadsMaxPages && next != ""; page++ {
		var p threadsPage
		if _, err := t.http.GetJSON(ctx, next, &p); err != nil {
			return posts, t.graphError(err)
		}
		if p.Data == nil {
			return posts, fmt.Errorf("threads: malformed response: no \"data\" array")
		}
		older := false
		for _, m := range *p.Data {
			if m.ID == "" {
				return posts, fmt.Errorf("threads: malformed response: post without id")
			}
			ts, err := time.Parse("2006-01-02T15:04:05-0700", m.Timestamp)
			if err != nil {
				if ts, err = wire.ParseTimestamp(m.Timestamp); err != nil {
					return posts, fmt.Errorf("threads: post %s: %w", m.ID, err)
				}
			}
			ts = ts.UTC()
			if ts.Before(since) {
				older = true
				continue
			}
			if seen[m.ID] {
				continue
			}
			seen[m.ID] = true
			link := m.Permalink
			if link == "" && m.Username != "" {
				link = "https://www.threads.net/@" + wire.NormalizeHandle(m.Username) + "/post/" + m.ID
			}
			eng := map[string]int64{"has_replies": 0}
			if m.HasReplies {
				eng["has_replies"] = 1
			}
			posts = append(posts, Post{
				Source:       "threads",
				ExternalID:   m.ID,
				URL:          link,
				AuthorHandle: wire.NormalizeHandle(m.Username),
				Text:         wire.UnescapeText(m.Text), // plain text, not HTML
				PublishedAt:  ts,
				Engagement:   eng,
			})
		}
		// RECENT is newest first: once a page reaches past since, stop.
		// Otherwise another page follows when Meta gives a next link or
		// only an "after" cursor (the cursors-only paging shape of the
		// other Threads list endpoints); an empty page or a
		// cursor that does not move ends it.
		after := p.Paging.Cursors.After
		if older || len(*p.Data) == 0 || (p.Paging.Next == "" && after == "") || (after != "" && after == params.Get("after")) {
			break
		}
		// Paging stays on our own base URL (so overrides and replays hold)
		// by re-sending the query with the "after" cursor; only a page
		// without a cursor makes us follow paging.next as given.
		if after == "" {
			next = p.Paging.Next
		} else {
			params.Set("after", after)
			next = endpoint + params.Encode()
		}
	}
	return posts, nil
}

// graphError turns Meta's throttling answers (HTTP 400/403 with error code
// 4, 17, 32 or 613) into RateLimitedError; Meta sends no Retry-After, and
// the Threads window is a rolling 24 hours, so we back off for an hour.
func (t *Threads) graphError(err error) error {
	var se *StatusError
	if !errors.As(err, &se) {
		return err
	}
	var body struct {
		Error struct {
			Message string `json:"message"`
			Code    int    `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(se.Body), &body) // Body may be cut short; fall back to text
	switch {
	case body.Error.Code == 4 || body.Error.Code == 17 || body.Error.Code == 32 || body.Error.Code == 613,
		strings.Contains(se.Body, `"code":4,`), strings.Contains(se.Body, `"code":613`),
		strings.Contains(strings.ToLower(se.Body), "request limit reached"):
		return &RateLimitedError{Source: "threads", Until: t.cfg.Now().Add(time.Hour)}
	}
	return err
}

// threadsQueries turns a monitor's keywords into keyword_search queries.
// keyword_search has no OR operator, so "any" runs one query per keyword;
// "all" and "phrase" run the keywords as one query. Matching proper happens
// after collection.
func threadsQueries(q Query) []string {
	kws := queryKeywords(q.Keywords, "")
	if len(kws) == 0 {
		return nil
	}
	if q.QueryMode == "all" || q.QueryMode == "phrase" {
		return []string{strings.Join(kws, " ")}
	}
	return kws
}
