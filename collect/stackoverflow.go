package collect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// StackExchangeBaseURL is the Stack Exchange API (version 2.3).
const StackExchangeBaseURL = "https://api.stackexchange.com/2.3"

// StackOverflowConfig configures the Stack Exchange collector. The key is
// optional: without one an IP gets 300 requests a day, with one 10,000.
type StackOverflowConfig struct {
	BaseURL  string // default StackExchangeBaseURL (EARSHOT_STACKEXCHANGE_BASE_URL)
	Key      string // EARSHOT_STACKEXCHANGE_KEY; optional (an app key, not a secret)
	Sites    string // EARSHOT_STACKEXCHANGE_SITES: comma-separated api_site_parameter values; default stackoverflow
	Client   *http.Client
	Now      func() time.Time
	MaxPages int // per query, site and scan; default 3
}

// StackOverflow finds questions that mention the keywords on any sites of
// the Stack Exchange network through /search/advanced (full text: title
// and body), newest first from fromdate=Since. It honours the API's
// backoff (seconds before the next call of the same method) and
// quota_remaining (the day's budget, reset at midnight UTC). Answers are
// not searched by this method: a question whose answers mention the
// brand is not found.
type StackOverflow struct {
	cfg   StackOverflowConfig
	sites []string
	http  *HTTP
}

// NewStackOverflow returns a Stack Exchange collector.
func NewStackOverflow(cfg StackOverflowConfig) *StackOverflow {
	cfg.BaseURL = strings.TrimRight(orDefault(cfg.BaseURL, StackExchangeBaseURL), "/")
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sites := ParseStackExchangeSites(cfg.Sites)
	if len(sites) == 0 {
		sites = []string{"stackoverflow"}
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 3
	}
	return &StackOverflow{cfg: cfg, sites: sites, http: &HTTP{Client: cfg.Client, Source: "stackoverflow", Now: cfg.Now}}
}

// ParseStackExchangeSites splits EARSHOT_STACKEXCHANGE_SITES.
func ParseStackExchangeSites(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (s *StackOverflow) Source() string { return "stackoverflow" }

// Configured is always true: the API is keyless at a lower daily quota.
func (s *StackOverflow) Configured() (bool, string) { return true, "" }

// seWrapper is the common wrapper of every Stack Exchange answer.
type seWrapper struct {
	Items          *[]seQuestion `json:"items"`
	HasMore        bool          `json:"has_more"`
	QuotaMax       int           `json:"quota_max"`
	QuotaRemaining *int          `json:"quota_remaining"`
	Backoff        int           `json:"backoff"`
	ErrorID        int           `json:"error_id"`
	ErrorName      string        `json:"error_name"`
	ErrorMessage   string        `json:"error_message"`
}

type seQuestion struct {
	QuestionID   int64    `json:"question_id"`
	Title        string   `json:"title"` // HTML-escaped
	Body         string   `json:"body"`  // HTML (filter=withbody)
	Link         string   `json:"link"`
	CreationDate int64    `json:"creation_date"`
	Score        int64    `json:"score"`
	AnswerCount  int64    `json:"answer_count"`
	ViewCount    int64    `json:"view_count"`
	IsAnswered   bool     `json:"is_answered"`
	Tags         []string `json:"tags"`
	Owner        *struct {
		DisplayName string `json:"display_name"`
		UserID      int64  `json:"user_id"`
		Reputation  int64  `json:"reputation"`
	} `json:"owner"`
}

// Fetch returns questions created at or after q.Since on every site.
func (s *StackOverflow) Fetch(ctx context.Context, q Query) (Batch, error) {
	var b Batch
	seen := map[string]bool{}
	for _, site := range s.sites {
		for _, term := range searchTerms(q) {
			if err := s.search(ctx, site, term, q.Since, seen, &b); err != nil {
				return Batch{}, err
			}
		}
	}
	return b, nil
}

func (s *StackOverflow) search(ctx context.Context, site, term string, since time.Time, seen map[string]bool, b *Batch) error {
	v := url.Values{}
	v.Set("order", "desc")
	v.Set("sort", "creation")
	v.Set("q", term)
	v.Set("site", site)
	v.Set("fromdate", strconv.FormatInt(since.Unix(), 10))
	v.Set("pagesize", "100")
	v.Set("filter", "withbody")
	if s.cfg.Key != "" {
		v.Set("key", s.cfg.Key)
	}
	for page := 1; page <= s.cfg.MaxPages; page++ {
		v.Set("page", strconv.Itoa(page))
		var w seWrapper
		if _, err := s.http.GetJSON(ctx, s.cfg.BaseURL+"/search/advanced?"+v.Encode(), &w); err != nil {
			return s.apiError(err)
		}
		if w.Items == nil {
			return fmt.Errorf("stackoverflow: %w: no items", errMalformed)
		}
		for _, it := range *w.Items {
			post, ok := it.post(site)
			if !ok {
				b.Skipped.Add("no id, date or link", 1)
				continue
			}
			if seen[post.ExternalID] || post.PublishedAt.Before(since) {
				continue
			}
			seen[post.ExternalID] = true
			b.Posts = append(b.Posts, post)
		}
		if !w.HasMore {
			return nil
		}
		if w.QuotaRemaining != nil && *w.QuotaRemaining <= 0 {
			return &RateLimitedError{Source: "stackoverflow", Until: nextUTCMidnight(s.cfg.Now())}
		}
		if w.Backoff > 0 {
			// "backoff": do not call this method again for that many
			// seconds; sleep through a short one, else come back later.
			until := s.cfg.Now().Add(time.Duration(w.Backoff) * time.Second)
			if time.Duration(w.Backoff)*time.Second > s.http.maxWait() {
				return &RateLimitedError{Source: "stackoverflow", Until: until}
			}
			if err := sleep(ctx, time.Duration(w.Backoff)*time.Second); err != nil {
				return err
			}
		}
	}
	return nil
}

// apiError reads Stack Exchange's error wrapper: a throttle_violation
// (error_id 502, HTTP 400) says when requests are allowed again ("more
// requests available in 82855 seconds").
func (s *StackOverflow) apiError(err error) error {
	var se *StatusError
	if !errors.As(err, &se) || !strings.Contains(se.Body, "throttle_violation") {
		return err
	}
	wait := 24 * time.Hour
	if i := strings.Index(se.Body, "available in "); i >= 0 {
		if n, perr := strconv.Atoi(strings.Fields(se.Body[i+len("available in "):])[0]); perr == nil {
			wait = time.Duration(n) * time.Second
		}
	}
	return &RateLimitedError{Source: "stackoverflow", Until: s.cfg.Now().Add(wait), Body: se.Body}
}

func (it seQuestion) post(site string) (Post, bool) {
	if it.QuestionID == 0 || it.CreationDate <= 0 || it.Link == "" {
		return Post{}, false
	}
	post := Post{
		Source:      "stackoverflow",
		ExternalID:  site + ":q" + strconv.FormatInt(it.QuestionID, 10),
		URL:         it.Link,
		Text:        joinText(wire.UnescapeText(it.Title), wire.PlainText(it.Body)),
		PublishedAt: time.Unix(it.CreationDate, 0).UTC(),
		Engagement:  map[string]int64{"score": it.Score, "answers": it.AnswerCount, "views": it.ViewCount},
		Kind:        "question",
		Tags:        it.Tags,
	}
	if it.Owner != nil {
		post.AuthorHandle = wire.NormalizeHandle(wire.UnescapeText(it.Owner.DisplayName))
	}
	return post, true
}
