package collect

import (
	"context"

	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// DevtoBaseURL is DEV's (Forem's) public API.
const DevtoBaseURL = "https://dev.to/api"

// DevtoConfig configures the DEV collector. DEV's API has no full-text
// search: the collector reads the newest articles (and those of the tags
// in Tags and of watched accounts) and the pipeline matches the keywords
// locally.
type DevtoConfig struct {
	BaseURL  string // default DevtoBaseURL (EARSHOT_DEVTO_BASE_URL)
	Tags     string // EARSHOT_DEVTO_TAGS: comma-separated tags read besides the latest articles
	Client   *http.Client
	Now      func() time.Time
	MaxPages int // per feed and scan; default 3 (100 articles a page)
}

// Devto reads DEV articles newest first (GET /articles/latest, and
// /articles?tag= and ?username=) back to q.Since. Only what the list
// carries is matched: title, description and tags (the body needs one
// request per article).
type Devto struct {
	cfg  DevtoConfig
	tags []string
	http *HTTP
}

// NewDevto returns a DEV collector.
func NewDevto(cfg DevtoConfig) *Devto {
	cfg.BaseURL = strings.TrimRight(orDefault(cfg.BaseURL, DevtoBaseURL), "/")
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 3
	}
	return &Devto{cfg: cfg, tags: ParseDevtoTags(cfg.Tags), http: &HTTP{Client: cfg.Client, Source: "devto", Now: cfg.Now}}
}

func (d *Devto) Source() string { return "devto" }

// Configured is always true: reading articles needs no key.
func (d *Devto) Configured() (bool, string) { return true, "" }

type devtoArticle struct {
	ID                     int64    `json:"id"`
	Title                  string   `json:"title"`
	Description            string   `json:"description"`
	URL                    string   `json:"url"`
	CanonicalURL           string   `json:"canonical_url"`
	PublishedTimestamp     string   `json:"published_timestamp"`
	PublishedAt            string   `json:"published_at"`
	CommentsCount          int64    `json:"comments_count"`
	PublicReactionsCount   int64    `json:"public_reactions_count"`
	PositiveReactionsCount int64    `json:"positive_reactions_count"`
	TagList                []string `json:"tag_list"`
	User                   struct {
		Username string `json:"username"`
	} `json:"user"`
}

// Fetch reads the latest articles, each configured tag and each watched
// account back to q.Since.
func (d *Devto) Fetch(ctx context.Context, q Query) (Batch, error) {
	feeds := []url.Values{{}}
	for _, t := range d.tags {
		feeds = append(feeds, url.Values{"tag": {t}})
	}
	for _, a := range watchHandles("devto", q.WatchAccounts) {
		feeds = append(feeds, url.Values{"username": {a}})
	}
	var b Batch
	seen := map[int64]bool{}
	for _, v := range feeds {
		path := "/articles"
		if len(v) == 0 {
			path = "/articles/latest" // newest first; /articles alone is ranked
		}
		v.Set("per_page", "100")
		for page := 1; page <= d.cfg.MaxPages; page++ {
			v.Set("page", strconv.Itoa(page))
			var arts []devtoArticle
			if _, err := d.http.GetJSON(ctx, d.cfg.BaseURL+path+"?"+v.Encode(), &arts); err != nil {
				return Batch{}, err
			}
			older := false
			for _, a := range arts {
				post, ok := a.post()
				if !ok {
					b.Skipped.Add("no id, date or link", 1)
					continue
				}
				if post.PublishedAt.Before(q.Since) {
					older = true
					continue
				}
				if !seen[a.ID] {
					seen[a.ID] = true
					b.Posts = append(b.Posts, post)
				}
			}
			if older || len(arts) < 100 {
				break
			}
		}
	}
	return b, nil
}

func (a devtoArticle) post() (Post, bool) {
	ts := a.PublishedTimestamp
	if ts == "" {
		ts = a.PublishedAt
	}
	published, err := wire.ParseTimestamp(ts)
	if a.ID == 0 || a.URL == "" || err != nil {
		return Post{}, false
	}
	text := joinText(a.Title, a.Description)
	if len(a.TagList) > 0 {
		text += "\n\n#" + strings.Join(a.TagList, " #")
	}
	post := Post{
		Source:       "devto",
		ExternalID:   strconv.FormatInt(a.ID, 10),
		URL:          a.URL,
		AuthorHandle: wire.NormalizeHandle(a.User.Username),
		Text:         text,
		PublishedAt:  published.UTC(),
		Engagement:   map[string]int64{"reactions": a.PublicReactionsCount, "comments": a.CommentsCount},
		Kind:         "article",
		Tags:         a.TagList,
	}
	if a.CanonicalURL != "" && a.CanonicalURL != a.URL {
		post.Links = []string{a.CanonicalURL} // cross-posted: the original joins the story
	}
	return post, true
}

// ParseDevtoTags splits EARSHOT_DEVTO_TAGS.
func ParseDevtoTags(v string) []string {
	var out []string
	for _, t := range strings.Split(v, ",") {
		if t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#")); t != "" {
			out = append(out, t)
		}
	}
	return out
}
