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

// StackOverflow finds questions and answers that mention the keywords on
// any sites of the Stack Exchange network, newest first from
// fromdate=Since: questions through /search/advanced (full text: title and
// body, with owner, link and counters), answers through /search/excerpts
// (which returns both; its questions are left to the first call). Each
// answer is its own post. It honours the API's backoff (seconds before the
// next call of the same method) and quota_remaining (the day's budget,
// reset at midnight UTC). /search/excerpts carries no answer author, so
// answers are stored without one.
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
type seWrapper[T any] struct {
	Items          *[]T   `json:"items"`
	HasMore        bool   `json:"has_more"`
	QuotaMax       int    `json:"quota_max"`
	QuotaRemaining *int   `json:"quota_remaining"`
	Backoff        int    `json:"backoff"`
	ErrorID        int    `json:"error_id"`
	ErrorName      string `json:"error_name"`
	ErrorMessage   string `json:"error_message"`
}

// seItem is an item of a Stack Exchange answer: post returns the Post, or
// why it was skipped; ignore is an item another call collects. parents
// holds the links of the site's posts found so far (for comments); postID
// is the item's id there, to ask for its comments.
type seItem interface {
	post(site string, parents map[int64]string) (p Post, skip string, ignore bool)
	postID() int64
}

// seExcerpt is a search_excerpt of /search/excerpts: a question or an
// answer (item_type); an answer's title is its question's.
type seExcerpt struct {
	ItemType     string   `json:"item_type"`
	QuestionID   int64    `json:"question_id"`
	AnswerID     int64    `json:"answer_id"`
	Title        string   `json:"title"`   // HTML-escaped
	Excerpt      string   `json:"excerpt"` // HTML, keywords in <span class="highlight">
	Body         string   `json:"body"`
	CreationDate int64    `json:"creation_date"`
	Score        int64    `json:"score"`
	IsAccepted   bool     `json:"is_accepted"`
	Tags         []string `json:"tags"`
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

// Fetch returns questions, answers and their comments created at or after
// q.Since on every site. The comments are read last, a unit of their own:
// when their call fails the questions and answers are kept (PartialError).
func (s *StackOverflow) Fetch(ctx context.Context, q Query) (Batch, error) {
	var b Batch
	seen := map[string]bool{}
	found := map[string]map[int64]int{} // site → post id → index in b.Posts
	for _, site := range s.sites {
		found[site] = map[int64]int{}
		for _, term := range searchTerms(q) {
			if err := seSearch[seQuestion](ctx, s, "/search/advanced", site, term, q.Since, seen, found[site], &b); err != nil {
				return Batch{}, err
			}
			if err := seSearch[seExcerpt](ctx, s, "/search/excerpts", site, term, q.Since, seen, found[site], &b); err != nil {
				return Batch{}, err
			}
		}
	}
	for _, site := range s.sites {
		if err := s.fetchComments(ctx, site, q.Since, found[site], seen, &b); err != nil {
			if ctx.Err() != nil {
				return Batch{}, ctx.Err()
			}
			return b, &PartialError{Err: err}
		}
	}
	return b, nil
}

// seSearch reads up to MaxPages of one search method for one site and term.
func seSearch[T seItem](ctx context.Context, s *StackOverflow, path, site, term string, since time.Time, seen map[string]bool, found map[int64]int, b *Batch) error {
	v := url.Values{}
	v.Set("q", term)
	return seRead[T](ctx, s, path, v, site, since, seen, found, nil, b)
}

// seRead reads up to MaxPages of one method for one site, newest first
// from since, honouring the quota and backoff the API reports. The posts
// kept are added to found (id → index in b.Posts) unless it is nil;
// parents are the links of the posts comments belong to.
func seRead[T seItem](ctx context.Context, s *StackOverflow, path string, v url.Values, site string, since time.Time, seen map[string]bool, found map[int64]int, parents map[int64]string, b *Batch) error {
	v.Set("order", "desc")
	v.Set("sort", "creation")
	v.Set("site", site)
	v.Set("fromdate", strconv.FormatInt(since.Unix(), 10))
	v.Set("pagesize", "100")
	v.Set("filter", "withbody")
	if s.cfg.Key != "" {
		v.Set("key", s.cfg.Key)
	}
	for page := 1; page <= s.cfg.MaxPages; page++ {
		v.Set("page", strconv.Itoa(page))
		var w seWrapper[T]
		if _, err := s.http.GetJSON(ctx, s.cfg.BaseURL+path+"?"+v.Encode(), &w); err != nil {
			return s.apiError(err)
		}
		if w.Items == nil {
			return fmt.Errorf("stackoverflow: %w: no items", errMalformed)
		}
		for _, it := range *w.Items {
			post, skip, ignore := it.post(site, parents)
			if ignore {
				continue
			}
			if skip != "" {
				b.Skipped.Add(skip, 1)
				continue
			}
			if seen[post.ExternalID] || post.PublishedAt.Before(since) {
				continue
			}
			seen[post.ExternalID] = true
			b.Posts = append(b.Posts, post)
			if found != nil {
				found[it.postID()] = len(b.Posts) - 1
			}
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

func (it seQuestion) postID() int64 { return it.QuestionID }

func (it seQuestion) post(site string, _ map[int64]string) (Post, string, bool) {
	if it.QuestionID == 0 || it.CreationDate <= 0 || it.Link == "" {
		return Post{}, "no id, date or link", false
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
	return post, "", false
}

// post turns an answer into its own post at https://{host}/a/{id}; a
// question is ignored (/search/advanced returns it with more fields).
func (it seExcerpt) postID() int64 { return it.AnswerID }

func (it seExcerpt) post(site string, _ map[int64]string) (Post, string, bool) {
	if it.ItemType != "answer" {
		return Post{}, "", true
	}
	if it.AnswerID == 0 || it.CreationDate <= 0 {
		return Post{}, "no id or date", false
	}
	text := it.Excerpt
	if strings.TrimSpace(text) == "" {
		text = it.Body
	}
	id := strconv.FormatInt(it.AnswerID, 10)
	accepted := int64(0)
	if it.IsAccepted {
		accepted = 1
	}
	return Post{
		Source:      "stackoverflow",
		ExternalID:  site + ":a" + id,
		URL:         "https://" + StackExchangeSiteHost(site) + "/a/" + id,
		Text:        joinText(wire.UnescapeText(it.Title), wire.PlainText(text)),
		PublishedAt: time.Unix(it.CreationDate, 0).UTC(),
		Engagement:  map[string]int64{"score": it.Score, "accepted": accepted},
		Kind:        "answer",
		Tags:        it.Tags,
	}, "", false
}

// StackExchangeSiteHost is the web host of an api_site_parameter: the
// few sites with a domain of their own, else {site}.stackexchange.com; a
// site given as a domain (the API accepts "stackoverflow.com") is kept.
func StackExchangeSiteHost(site string) string {
	switch site {
	case "stackoverflow", "serverfault", "superuser", "askubuntu", "stackapps":
		return site + ".com"
	case "mathoverflow":
		return "mathoverflow.net"
	}
	if strings.Contains(site, ".") {
		return site
	}
	return site + ".stackexchange.com"
}
