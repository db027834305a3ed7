package collect

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// HNBaseURL is Algolia's Hacker News search API.
const HNBaseURL = "https://hn.algolia.com/api/v1"

// hnMaxHits is how far Algolia lets one query page; past it the API answers
// "you can only fetch the 1000 hits for this query".
const hnMaxHits = 1000

// HNConfig configures the Hacker News collector. No key is needed.
type HNConfig struct {
	BaseURL     string // default HNBaseURL (EARSHOT_HN_BASE_URL)
	Client      *http.Client
	Now         func() time.Time
	HitsPerPage int // default 100
}

// HN searches Hacker News stories and comments, newest first, through
// Algolia's search_by_date. It keeps no State: each scan asks for the
// scheduler's window (q.Since), which overlaps the previous one.
type HN struct {
	cfg  HNConfig
	http *HTTP
}

// NewHN returns a Hacker News collector.
func NewHN(cfg HNConfig) *HN {
	cfg.BaseURL = orDefault(cfg.BaseURL, HNBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HitsPerPage <= 0 || cfg.HitsPerPage > hnMaxHits {
		cfg.HitsPerPage = 100
	}
	return &HN{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "hn", Now: cfg.Now}}
}

func (h *HN) Source() string { return "hn" }

// Configured is always true: the Algolia API is keyless.
func (h *HN) Configured() (bool, string) { return true, "" }

type hnPage struct {
	Hits    *[]hnHit `json:"hits"`
	NbHits  *int     `json:"nbHits"`
	Page    int      `json:"page"`
	NbPages *int     `json:"nbPages"`
}

type hnHit struct {
	ObjectID    string   `json:"objectID"`
	CreatedAt   string   `json:"created_at"`
	CreatedAtI  int64    `json:"created_at_i"`
	Title       *string  `json:"title"`
	URL         *string  `json:"url"`
	Author      *string  `json:"author"`
	Points      *int64   `json:"points"`
	StoryText   *string  `json:"story_text"`
	CommentText *string  `json:"comment_text"`
	NumComments *int64   `json:"num_comments"`
	Tags        []string `json:"_tags"`
}

// hnSearch is one query sent to Algolia: text plus the tag filter.
type hnSearch struct{ query, tags string }

const hnTypeTags = "(story,comment)"

// hnSearches turns a monitor's query into Algolia searches: one per keyword
// in any mode (Algolia ANDs words), one for all/phrase, and one per watched
// account through the author_ tag.
func hnSearches(q Query) []hnSearch {
	var out []hnSearch
	kws := queryKeywords(q.Keywords, "")
	switch {
	case len(kws) == 0:
	case q.QueryMode == "all" || q.QueryMode == "phrase":
		out = append(out, hnSearch{query: strings.Join(kws, " "), tags: hnTypeTags})
	default:
		for _, k := range kws {
			out = append(out, hnSearch{query: k, tags: hnTypeTags})
		}
	}
	for _, a := range watchHandles("hn", q.WatchAccounts) {
		out = append(out, hnSearch{tags: hnTypeTags + ",author_" + a})
	}
	return out
}

// Fetch returns stories and comments created at or after q.Since. The
// bound is the scheduler's scan window, not the newest hit seen before:
// Algolia indexes some items minutes late, and a high-water mark would
// skip an item published before the newest one but indexed after the last
// scan. The window overlaps the previous scan; the pipeline's dedupe makes
// the refetched overlap harmless.
func (h *HN) Fetch(ctx context.Context, q Query) (Batch, error) {
	lo := max(q.Since.Unix()-1, 0) // created_at_i > lo  ⇔  at or after Since
	hi := h.cfg.Now().Unix()
	var b Batch
	seen := map[string]bool{}
	for _, s := range hnSearches(q) {
		if err := h.window(ctx, s, lo, hi, seen, &b.Posts); err != nil {
			return Batch{}, err
		}
	}
	return b, nil
}

// window collects every hit with lo < created_at_i <= hi. When Algolia
// reports more hits than it lets us page through, the range is bisected so
// nothing is lost.
func (h *HN) window(ctx context.Context, s hnSearch, lo, hi int64, seen map[string]bool, posts *[]Post) error {
	if hi <= lo {
		return nil
	}
	for page := 0; ; page++ {
		var p hnPage
		if _, err := h.http.GetJSON(ctx, h.pageURL(s, lo, hi, page), &p); err != nil {
			return err
		}
		if p.Hits == nil || p.NbPages == nil || p.NbHits == nil {
			return fmt.Errorf("hn: %w: no hits/nbHits/nbPages", errMalformed)
		}
		if page == 0 && *p.NbHits > hnMaxHits && hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if err := h.window(ctx, s, mid, hi, seen, posts); err != nil {
				return err
			}
			return h.window(ctx, s, lo, mid, seen, posts)
		}
		for _, hit := range *p.Hits {
			post, err := hit.post()
			if err != nil {
				return err
			}
			if !seen[post.ExternalID] {
				seen[post.ExternalID] = true
				*posts = append(*posts, post)
			}
		}
		if page+1 >= *p.NbPages || (page+1)*h.cfg.HitsPerPage >= hnMaxHits || len(*p.Hits) == 0 {
			return nil
		}
	}
}

func (h *HN) pageURL(s hnSearch, lo, hi int64, page int) string {
	v := url.Values{}
	v.Set("query", s.query)
	v.Set("tags", s.tags)
	v.Set("numericFilters", fmt.Sprintf("created_at_i>%d,created_at_i<=%d", lo, hi))
	v.Set("hitsPerPage", strconv.Itoa(h.cfg.HitsPerPage))
	v.Set("page", strconv.Itoa(page))
	return h.cfg.BaseURL + "/search_by_date?" + v.Encode()
}

func (hit hnHit) post() (Post, error) {
	if hit.ObjectID == "" {
		return Post{}, fmt.Errorf("hn: %w: hit without objectID", errMalformed)
	}
	published := time.Unix(hit.CreatedAtI, 0).UTC()
	if hit.CreatedAtI == 0 {
		t, err := wire.ParseTimestamp(hit.CreatedAt)
		if err != nil {
			return Post{}, fmt.Errorf("hn: %w: hit %s: %v", errMalformed, hit.ObjectID, err)
		}
		published = t
	}
	p := Post{
		Source:      "hn",
		ExternalID:  hit.ObjectID,
		URL:         "https://news.ycombinator.com/item?id=" + url.QueryEscape(hit.ObjectID),
		PublishedAt: published,
		Engagement:  map[string]int64{},
	}
	if hit.Author != nil {
		p.AuthorHandle = wire.NormalizeHandle(*hit.Author)
	}
	if hit.CommentText != nil && *hit.CommentText != "" {
		p.Text = wire.PlainText(*hit.CommentText)
	} else {
		p.Text = joinText(wire.PlainText(hnString(hit.Title)), wire.PlainText(hnString(hit.StoryText)))
	}
	if hit.URL != nil && *hit.URL != "" && hit.CommentText == nil { // a link submission's article
		p.Links = []string{*hit.URL}
	}
	if hit.Points != nil {
		p.Engagement["points"] = *hit.Points
	}
	if hit.NumComments != nil {
		p.Engagement["num_comments"] = *hit.NumComments
	}
	return p, nil
}

func hnString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
