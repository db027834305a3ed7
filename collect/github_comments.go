package collect

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// GitHub's issue search matches the text of comments too, so an issue
// found may name the brand only in a comment. The comments of the issues
// (and pull requests: their conversation comments are issue comments)
// found by a scan are read through the documented REST endpoint
// GET /repos/{owner}/{repo}/issues/{number}/comments?since=…, one call per
// issue, and each comment is a post of its own; the pipeline's matcher
// keeps those that mention the keywords.

// githubCommentFetches is the default number of comment calls a scan
// makes: they come out of the REST budget (60 an hour without a token,
// 5,000 with one), not the search one.
const githubCommentFetches = 10

// The REST calls left (X-RateLimit-Remaining) at which a scan stops
// reading comments: a sixth of the anonymous hourly budget, 2% of a
// token's.
const (
	githubCommentReserveAnonymous = 10
	githubCommentReserveToken     = 100
)

// The notes of an issue whose comments were not read: the scan summary
// counts them, so comments skipped are never a silent zero.
const (
	NoteGitHubCommentsCapped  = "comments not read (the scan's comment calls were spent)"
	NoteGitHubCommentsRefused = "comments not read (the comments call was refused)"
	NoteGitHubCommentsBudget  = "comments not read (the REST budget's reserve was reached)"
)

type githubComment struct {
	ID        int64  `json:"id"`
	HTMLURL   string `json:"html_url"`
	Body      string `json:"body"` // Markdown
	CreatedAt string `json:"created_at"`
	User      *struct {
		Login string `json:"login"`
	} `json:"user"`
	Reactions *struct {
		TotalCount int64 `json:"total_count"`
	} `json:"reactions"`
}

// updated is when the item last changed (a new comment bumps it); its
// creation when the platform gives no update time.
func (it githubItem) updated() time.Time {
	if t, err := wire.ParseTimestamp(it.UpdatedAt); err == nil {
		return t
	}
	t, _ := wire.ParseTimestamp(it.CreatedAt)
	return t
}

// fetchComments adds the comments written since q.Since on the items that
// have comments and changed in the window, most recently updated first,
// at most MaxCommentFetches calls. Comments of the calls that completed
// are kept when a later one fails; the issues left unread are noted.
func (g *GitHub) fetchComments(ctx context.Context, q Query, items []githubItem, b *Batch) error {
	var todo []githubItem
	for _, it := range items {
		if it.Comments > 0 && !it.updated().Before(q.Since) {
			todo = append(todo, it)
		}
	}
	slices.SortStableFunc(todo, func(x, y githubItem) int { return y.updated().Compare(x.updated()) })
	for i, it := range todo {
		if i == g.cfg.MaxCommentFetches {
			noteIssues(b, todo[i:], NoteGitHubCommentsCapped)
			return nil
		}
		hdr, err := g.issueComments(ctx, q, it, b)
		var se *StatusError
		if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusGone) {
			// Deleted (or made private) since the search: that issue only.
			noteIssues(b, todo[i:i+1], NoteGitHubCommentsRefused)
			continue
		}
		if err != nil {
			noteIssues(b, todo[i:], NoteGitHubCommentsRefused)
			return err
		}
		more := i+1 < len(todo) && i+1 < g.cfg.MaxCommentFetches
		if more && g.commentBudgetLow(hdr) {
			noteIssues(b, todo[i+1:], NoteGitHubCommentsBudget)
			return nil
		}
	}
	return nil
}

// commentBudgetLow says the REST budget the comment calls draw on is down
// to its reserve. Comments stop there rather than run it dry: a refused
// comments call pauses the whole source until the reset (search included,
// though its budget is separate), and the discussions and the next scans'
// comments need calls too. Without a token the budget is 60 an hour.
func (g *GitHub) commentBudgetLow(hdr http.Header) bool {
	left, err := strconv.Atoi(strings.TrimSpace(hdr.Get("X-Ratelimit-Remaining")))
	if err != nil {
		return false
	}
	reserve := githubCommentReserveAnonymous
	if g.cfg.Token != "" {
		reserve = githubCommentReserveToken
	}
	return left <= reserve
}

// issueComments reads one page (100) of an issue's comments updated since
// q.Since; those written before it (old comments edited since) are not new.
func (g *GitHub) issueComments(ctx context.Context, q Query, it githubItem, b *Batch) (http.Header, error) {
	_, repo, ok := strings.Cut(it.RepositoryURL, "/repos/")
	if !ok || repo == "" || it.Number <= 0 {
		return nil, &StatusError{Source: "github", Status: http.StatusNotFound}
	}
	v := url.Values{}
	v.Set("since", q.Since.UTC().Format(time.RFC3339))
	v.Set("per_page", "100")
	u := g.cfg.BaseURL + "/repos/" + strings.Trim(repo, "/") + "/issues/" + strconv.Itoa(it.Number) + "/comments?" + v.Encode()
	var cs []githubComment
	hdr, err := g.http.GetJSON(ctx, u, &cs)
	if err != nil {
		return hdr, g.rateLimited(err, hdr)
	}
	for _, c := range cs {
		post, ok := c.post()
		if !ok {
			b.Skipped.Add("comment without id, url or date", 1)
			continue
		}
		if post.PublishedAt.Before(q.Since) {
			continue
		}
		b.Posts = append(b.Posts, post)
	}
	return hdr, nil
}

// noteIssues marks the posts of items whose comments were not read.
func noteIssues(b *Batch, items []githubItem, note string) {
	ids := map[string]bool{}
	for _, it := range items {
		ids[strconv.FormatInt(it.ID, 10)] = true
	}
	for i := range b.Posts {
		if p := &b.Posts[i]; ids[p.ExternalID] && p.Kind != "comment" && p.Note == "" {
			p.Note = note
		}
	}
}

// post is the comment as a post of kind comment; its id is prefixed so it
// can never collide with an issue's (both are REST numeric ids). The
// text is the comment alone, without the issue's title or labels: the
// matcher must find the keyword in the comment, and the classifier judge
// the comment, not the thread.
func (c githubComment) post() (Post, bool) {
	published, err := wire.ParseTimestamp(c.CreatedAt)
	if c.ID == 0 || c.HTMLURL == "" || err != nil {
		return Post{}, false
	}
	post := Post{
		Source:      "github",
		ExternalID:  "comment-" + strconv.FormatInt(c.ID, 10),
		URL:         c.HTMLURL,
		Text:        strings.TrimSpace(c.Body),
		PublishedAt: published.UTC(),
		Engagement:  map[string]int64{},
		Kind:        "comment",
	}
	if c.User != nil {
		post.AuthorHandle = wire.NormalizeHandle(c.User.Login)
	}
	if c.Reactions != nil {
		post.Engagement["reactions"] = c.Reactions.TotalCount
	}
	return post, true
}
