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

// GitHubBaseURL is GitHub's REST API host.
const GitHubBaseURL = "https://api.github.com"

// githubMaxPages: the search API returns at most 1,000 results a query
// (10 pages of 100).
const githubMaxPages = 10

// GitHubConfig configures the GitHub collector. The token is optional: the
// search API allows 10 requests a minute without one, 30 with one.
type GitHubConfig struct {
	BaseURL  string // default GitHubBaseURL (EARSHOT_GITHUB_BASE_URL)
	Token    string // EARSHOT_GITHUB_TOKEN; optional (a fine-grained token with no scopes reads public repositories)
	Client   *http.Client
	Now      func() time.Time
	MaxPages int // per query and scan; default 3
	// MaxCommentFetches bounds the comment calls of a scan (one per
	// issue or pull request); default githubCommentFetches.
	MaxCommentFetches int
}

// GitHub finds issues and pull requests that mention the keywords through
// the search API (GET /search/issues, newest first, bounded by
// created:>=Since), and, with a token, discussions through the GraphQL
// search (github_discussions.go). Individual comments are not searchable,
// but the issue search matches them ("in:comments"): the comments of the
// issues found are read back to Since and each is a post of its own
// (github_comments.go), so a brand named only in a comment is stored as
// that comment.
type GitHub struct {
	cfg  GitHubConfig
	http *HTTP
}

// NewGitHub returns a GitHub collector.
func NewGitHub(cfg GitHubConfig) *GitHub {
	cfg.BaseURL = orDefault(cfg.BaseURL, GitHubBaseURL)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 || cfg.MaxPages > githubMaxPages {
		cfg.MaxPages = 3
	}
	if cfg.MaxCommentFetches <= 0 {
		cfg.MaxCommentFetches = githubCommentFetches
	}
	h := http.Header{"Accept": {"application/vnd.github+json"}, "X-Github-Api-Version": {"2022-11-28"}}
	if cfg.Token != "" {
		h.Set("Authorization", "Bearer "+cfg.Token)
	}
	return &GitHub{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "github", Now: cfg.Now, Header: h}}
}

func (g *GitHub) Source() string { return "github" }

// Configured is always true: search works without a token, at a third of
// the rate.
func (g *GitHub) Configured() (bool, string) { return true, "" }

type githubSearchPage struct {
	TotalCount        *int         `json:"total_count"`
	IncompleteResults bool         `json:"incomplete_results"`
	Items             []githubItem `json:"items"`
}

type githubItem struct {
	ID            int64  `json:"id"`
	Number        int    `json:"number"`
	HTMLURL       string `json:"html_url"`
	RepositoryURL string `json:"repository_url"`
	Title         string `json:"title"`
	Body          string `json:"body"` // Markdown; null on an empty issue
	State         string `json:"state"`
	User          *struct {
		Login string `json:"login"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Comments    int64           `json:"comments"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"` // bumped by a new comment
	PullRequest json.RawMessage `json:"pull_request"`
	Reactions   *struct {
		TotalCount int64 `json:"total_count"`
	} `json:"reactions"`
}

// githubQueries are the search queries of a monitor: one per keyword term
// (the search ANDs words; a quoted phrase stays one) and one per watched
// account (author:), each restricted to created:>=since.
func githubQueries(q Query) []string {
	var out []string
	since := " created:>=" + q.Since.UTC().Format("2006-01-02T15:04:05Z")
	for _, t := range searchTerms(q) {
		out = append(out, t+" in:title,body,comments"+since)
	}
	for _, a := range watchHandles("github", q.WatchAccounts) {
		out = append(out, "author:"+a+since)
	}
	return out
}

// Fetch returns issues, pull requests, their comments and (with a token)
// discussions created at or after q.Since that mention a keyword (or are
// by a watched account). Comments and discussions are units of their own
// (other calls, other budgets): when one fails the issues found are kept
// and the failure is a PartialError.
func (g *GitHub) Fetch(ctx context.Context, q Query) (Batch, error) {
	b, items, err := g.fetchIssues(ctx, q)
	if err != nil {
		return b, err
	}
	var errs []error
	if err := g.fetchComments(ctx, q, items, &b); err != nil {
		if ctx.Err() != nil {
			return Batch{}, ctx.Err()
		}
		errs = append(errs, err)
	}
	if g.cfg.Token == "" {
		return b, partial(errs)
	}
	var d Batch // all or nothing: a failed unit contributes no post
	if err := g.fetchDiscussions(ctx, q, &d); err != nil {
		if ctx.Err() != nil {
			return Batch{}, ctx.Err()
		}
		return b, partial(append(errs, err))
	}
	b.Posts = append(b.Posts, d.Posts...)
	for reason, n := range d.Skipped {
		b.Skipped.Add(reason, n)
	}
	return b, partial(errs)
}

// fetchIssues reads the REST issue search (issues and pull requests) and
// returns the items kept, for their comments.
func (g *GitHub) fetchIssues(ctx context.Context, q Query) (Batch, []githubItem, error) {
	var b Batch
	var kept []githubItem
	seen := map[int64]bool{}
	for _, query := range githubQueries(q) {
		v := url.Values{}
		v.Set("q", query)
		v.Set("sort", "created")
		v.Set("order", "desc")
		v.Set("per_page", "100")
		for page := 1; page <= g.cfg.MaxPages; page++ {
			v.Set("page", strconv.Itoa(page))
			var p githubSearchPage
			hdr, err := g.http.GetJSON(ctx, g.cfg.BaseURL+"/search/issues?"+v.Encode(), &p)
			if err != nil {
				return Batch{}, nil, g.rateLimited(err, hdr)
			}
			if p.TotalCount == nil {
				return Batch{}, nil, fmt.Errorf("github: %w: no total_count", errMalformed)
			}
			for _, it := range p.Items {
				post, ok := it.post()
				if !ok {
					b.Skipped.Add("no id or date", 1)
					continue
				}
				if seen[it.ID] || post.PublishedAt.Before(q.Since) {
					continue
				}
				seen[it.ID] = true
				b.Posts = append(b.Posts, post)
				kept = append(kept, it)
			}
			if len(p.Items) < 100 || page*100 >= *p.TotalCount {
				break
			}
			if strings.TrimSpace(hdr.Get("X-Ratelimit-Remaining")) == "0" {
				if err := g.http.waitForReset(ctx, hdr); err != nil {
					return Batch{}, nil, err
				}
			}
		}
	}
	return b, kept, nil
}

// rateLimited: GitHub answers an exhausted rate limit with 403 (or 429)
// and x-ratelimit-remaining: 0, or a secondary limit with retry-after;
// both wait for the reset instead of failing the source.
func (g *GitHub) rateLimited(err error, hdr http.Header) error {
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusForbidden {
		return err
	}
	if strings.TrimSpace(hdr.Get("X-Ratelimit-Remaining")) == "0" || hdr.Get("Retry-After") != "" || strings.Contains(se.Body, "rate limit") {
		return &RateLimitedError{Source: "github", Until: g.http.rateLimitUntil(hdr), Body: se.Body}
	}
	return err
}

// Kind names what a post is on its platform, for classifiers and the
// dashboard: issue, pull_request, question, answer, topic, article.
func (it githubItem) kind() string {
	if len(it.PullRequest) > 0 && string(it.PullRequest) != "null" {
		return "pull_request"
	}
	return "issue"
}

func (it githubItem) post() (Post, bool) {
	published, err := wire.ParseTimestamp(it.CreatedAt)
	if it.ID == 0 || it.HTMLURL == "" || err != nil {
		return Post{}, false
	}
	post := Post{
		Source:      "github",
		ExternalID:  strconv.FormatInt(it.ID, 10),
		URL:         it.HTMLURL,
		Text:        joinText(it.Title, it.Body),
		PublishedAt: published.UTC(),
		Engagement:  map[string]int64{"comments": it.Comments},
		Kind:        it.kind(),
	}
	if it.User != nil {
		post.AuthorHandle = wire.NormalizeHandle(it.User.Login)
	}
	if it.Reactions != nil {
		post.Engagement["reactions"] = it.Reactions.TotalCount
	}
	for _, l := range it.Labels {
		post.Tags = append(post.Tags, l.Name)
	}
	return post, true
}
