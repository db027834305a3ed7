package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"earshot/collect/wire"
)

// GitHub discussions are only searchable through the GraphQL API
// (search(type: DISCUSSION)), which refuses anonymous calls: without a
// token they are skipped and the source status says so (StatusNote).

// githubDiscussionsQuery asks for one page of discussions and the GraphQL
// budget left (its own, separate from the REST search one).
const githubDiscussionsQuery = `query($q: String!, $first: Int!, $after: String) {
  search(type: DISCUSSION, query: $q, first: $first, after: $after) {
    discussionCount
    pageInfo { hasNextPage endCursor }
    nodes {
      ... on Discussion {
        id
        title
        body
        url
        createdAt
        upvoteCount
        author { login }
        category { name }
        comments { totalCount }
      }
    }
  }
  rateLimit { remaining resetAt }
}`

// GitHubNoDiscussions is the source status note of a GitHub source
// without a token.
const GitHubNoDiscussions = "issues and pull requests only: discussions need EARSHOT_GITHUB_TOKEN (GitHub searches them only through its GraphQL API)"

// StatusNote says, once per status rather than per scan, that discussions
// are skipped without a token.
func (g *GitHub) StatusNote() string {
	if g.cfg.Token == "" {
		return GitHubNoDiscussions
	}
	return ""
}

// GitHubGraphQLURL derives the GraphQL endpoint from the REST base:
// https://api.github.com → /graphql; GitHub Enterprise's /api/v3 →
// /api/graphql.
func GitHubGraphQLURL(restBase string) string {
	base := strings.TrimRight(restBase, "/")
	return strings.TrimSuffix(base, "/v3") + "/graphql"
}

type githubGraphQLAnswer struct {
	Data *struct {
		Search *githubDiscussionPage `json:"search"`
	} `json:"data"`
	Errors []struct {
		Type string `json:"type"` // RATE_LIMITED, FORBIDDEN, …; the message is the platform's text and is not quoted
	} `json:"errors"`
}

type githubDiscussion struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Body        string `json:"body"` // Markdown
	URL         string `json:"url"`
	CreatedAt   string `json:"createdAt"`
	UpvoteCount int64  `json:"upvoteCount"`
	Author      *struct {
		Login string `json:"login"`
	} `json:"author"`
	Category *struct {
		Name string `json:"name"`
	} `json:"category"`
	Comments *struct {
		TotalCount int64 `json:"totalCount"`
	} `json:"comments"`
}

// fetchDiscussions adds the discussions matching the monitor's queries
// (the same qualifiers as the issue search: in:, created:>=, author:).
func (g *GitHub) fetchDiscussions(ctx context.Context, q Query, b *Batch) error {
	seen := map[string]bool{}
	for _, query := range githubQueries(q) {
		after := ""
		for page := 1; page <= g.cfg.MaxPages; page++ {
			ans, err := g.discussionsPage(ctx, query, after)
			if err != nil {
				return err
			}
			for _, d := range ans.Nodes {
				post, ok := d.post()
				if !ok {
					b.Skipped.Add("discussion without id, url or date", 1)
					continue
				}
				if seen[post.ExternalID] || post.PublishedAt.Before(q.Since) {
					continue
				}
				seen[post.ExternalID] = true
				b.Posts = append(b.Posts, post)
			}
			if !ans.PageInfo.HasNextPage || ans.PageInfo.EndCursor == "" {
				break
			}
			after = ans.PageInfo.EndCursor
		}
	}
	return nil
}

type githubDiscussionPage struct {
	DiscussionCount int `json:"discussionCount"`
	PageInfo        struct {
		HasNextPage bool   `json:"hasNextPage"`
		EndCursor   string `json:"endCursor"`
	} `json:"pageInfo"`
	Nodes []githubDiscussion `json:"nodes"`
}

// discussionsPage posts one search. GraphQL reports a spent budget as a
// 200 with an error of type RATE_LIMITED (or, like REST, a 403 with
// x-ratelimit-remaining 0); both wait for x-ratelimit-reset.
func (g *GitHub) discussionsPage(ctx context.Context, query, after string) (*githubDiscussionPage, error) {
	vars := map[string]any{"q": query, "first": 50}
	if after != "" {
		vars["after"] = after
	}
	body, err := json.Marshal(map[string]any{"query": githubDiscussionsQuery, "variables": vars})
	if err != nil {
		return nil, err
	}
	var ans githubGraphQLAnswer
	hdr, err := g.http.DoJSON(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, GitHubGraphQLURL(g.cfg.BaseURL), bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}, &ans)
	if err != nil {
		return nil, g.rateLimited(err, hdr)
	}
	for _, e := range ans.Errors {
		if e.Type == "RATE_LIMITED" {
			return nil, &RateLimitedError{Source: "github", Until: g.http.rateLimitUntil(hdr)}
		}
	}
	if len(ans.Errors) > 0 {
		return nil, fmt.Errorf("github: discussions search: GraphQL error %s", strings.ToLower(orDefault(ans.Errors[0].Type, "without a type")))
	}
	if ans.Data == nil || ans.Data.Search == nil {
		return nil, fmt.Errorf("github: %w: no data.search in the GraphQL answer", errMalformed)
	}
	return ans.Data.Search, nil
}

func (d githubDiscussion) post() (Post, bool) {
	published, err := wire.ParseTimestamp(d.CreatedAt)
	if d.ID == "" || d.URL == "" || err != nil {
		return Post{}, false
	}
	post := Post{
		Source:      "github",
		ExternalID:  d.ID, // a node id (D_…), never a REST issue's number id
		URL:         d.URL,
		Text:        joinText(d.Title, d.Body),
		PublishedAt: published.UTC(),
		Engagement:  map[string]int64{"upvotes": d.UpvoteCount},
		Kind:        "discussion",
	}
	if d.Author != nil {
		post.AuthorHandle = wire.NormalizeHandle(d.Author.Login)
	}
	if d.Comments != nil {
		post.Engagement["comments"] = d.Comments.TotalCount
	}
	if d.Category != nil && d.Category.Name != "" {
		post.Tags = []string{d.Category.Name}
	}
	return post, true
}
