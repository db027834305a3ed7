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

// DiscourseConfig configures the Discourse collector: the forums to search
// (EARSHOT_DISCOURSE_FORUMS, comma-separated base URLs such as
// https://forum.example.org). Public search needs no key.
type DiscourseConfig struct {
	Forums   string
	Client   *http.Client
	Now      func() time.Time
	MaxPages int // per query, forum and scan; default 3 (50 posts a page)
}

// Discourse searches the posts of the Discourse forums listed in its
// configuration through each forum's public search (GET /search.json with
// "after:" and "order:latest"). Each forum is a unit of its own (see
// PartialError): one that is down does not hide the others.
type Discourse struct {
	cfg    DiscourseConfig
	forums []string
	http   *HTTP
}

// NewDiscourse returns a Discourse collector.
func NewDiscourse(cfg DiscourseConfig) *Discourse {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 3
	}
	return &Discourse{cfg: cfg, forums: ParseDiscourseForums(cfg.Forums), http: &HTTP{Client: cfg.Client, Source: "discourse", Now: cfg.Now}}
}

// ParseDiscourseForums splits EARSHOT_DISCOURSE_FORUMS into base URLs.
func ParseDiscourseForums(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimRight(strings.TrimSpace(f), "/"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func (d *Discourse) Source() string { return "discourse" }

func (d *Discourse) Configured() (bool, string) {
	if len(d.forums) == 0 {
		return false, "EARSHOT_DISCOURSE_FORUMS"
	}
	return true, ""
}

type discourseSearch struct {
	Posts *[]struct {
		ID         int64  `json:"id"`
		Username   string `json:"username"`
		CreatedAt  string `json:"created_at"`
		LikeCount  int64  `json:"like_count"`
		Blurb      string `json:"blurb"` // an excerpt around the match, HTML-escaped
		PostNumber int    `json:"post_number"`
		TopicID    int64  `json:"topic_id"`
	} `json:"posts"`
	Topics []struct {
		ID         int64    `json:"id"`
		Title      string   `json:"title"`
		Slug       string   `json:"slug"`
		PostsCount int64    `json:"posts_count"`
		Tags       []string `json:"tags"`
	} `json:"topics"`
	Grouped *struct {
		MoreFullPageResults *bool `json:"more_full_page_results"`
	} `json:"grouped_search_result"`
}

// Fetch searches every forum for every keyword term.
func (d *Discourse) Fetch(ctx context.Context, q Query) (Batch, error) {
	var b Batch
	var errs []error
	seen := map[string]bool{}
	for _, forum := range d.forums {
		var unit Batch
		var err error
		for _, term := range searchTerms(q) {
			if err = d.search(ctx, forum, term, q.Since, seen, &unit); err != nil {
				break
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", forum, err))
			continue
		}
		b.Posts = append(b.Posts, unit.Posts...)
		for r, n := range unit.Skipped {
			b.Skipped.Add(r, n)
		}
	}
	if ctx.Err() != nil {
		return Batch{}, ctx.Err()
	}
	return b, partial(errs)
}

func (d *Discourse) search(ctx context.Context, forum, term string, since time.Time, seen map[string]bool, b *Batch) error {
	host := forum
	if u, err := url.Parse(forum); err == nil && u.Host != "" {
		host = u.Host
	}
	// after: takes a date; the exact bound is applied below.
	query := term + " after:" + since.UTC().AddDate(0, 0, -1).Format(time.DateOnly) + " order:latest"
	for page := 1; page <= d.cfg.MaxPages; page++ {
		v := url.Values{}
		v.Set("q", query)
		v.Set("page", strconv.Itoa(page))
		var s discourseSearch
		if _, err := d.http.GetJSON(ctx, forum+"/search.json?"+v.Encode(), &s); err != nil {
			return err
		}
		if s.Posts == nil && s.Grouped == nil {
			return fmt.Errorf("discourse: %w: neither posts nor grouped_search_result", errMalformed)
		}
		topics := map[int64]int{}
		for i, t := range s.Topics {
			topics[t.ID] = i
		}
		var posts []Post
		if s.Posts != nil {
			for _, p := range *s.Posts {
				published, err := wire.ParseTimestamp(p.CreatedAt)
				ti, ok := topics[p.TopicID]
				if p.ID == 0 || err != nil || !ok {
					b.Skipped.Add("no id, date or topic", 1)
					continue
				}
				t := s.Topics[ti]
				post := Post{
					Source:       "discourse",
					ExternalID:   host + ":" + strconv.FormatInt(p.ID, 10),
					URL:          fmt.Sprintf("%s/t/%s/%d/%d", forum, url.PathEscape(t.Slug), t.ID, p.PostNumber),
					AuthorHandle: wire.NormalizeHandle(p.Username),
					Text:         joinText(wire.UnescapeText(t.Title), wire.PlainText(p.Blurb)),
					PublishedAt:  published.UTC(),
					Engagement:   map[string]int64{"likes": p.LikeCount},
					Kind:         "reply",
					Tags:         t.Tags,
				}
				if p.PostNumber == 1 {
					post.Kind = "topic"
					post.Engagement["posts"] = t.PostsCount
				}
				posts = append(posts, post)
			}
		}
		for _, p := range posts {
			if seen[p.ExternalID] || p.PublishedAt.Before(since) {
				continue
			}
			seen[p.ExternalID] = true
			b.Posts = append(b.Posts, p)
		}
		if s.Grouped == nil || s.Grouped.MoreFullPageResults == nil || !*s.Grouped.MoreFullPageResults {
			return nil
		}
	}
	return nil
}
