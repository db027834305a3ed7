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

// LinkedInBaseURL is the LinkedIn Marketing/Community Management API host.
const LinkedInBaseURL = "https://api.linkedin.com"

// LinkedInDefaultVersion is the LinkedIn-Version header sent when none is
// configured (EARSHOT_LINKEDIN_VERSION). LinkedIn retires a version about a
// year after release, so deployments should set a current one.
const LinkedInDefaultVersion = "202601"

// LinkedInNoKeywordSearch is the source status shown when a monitor gives
// LinkedIn nothing it can legitimately collect.
const LinkedInNoKeywordSearch = "LinkedIn has no public keyword search; add organization pages to watch_accounts"

// ErrLinkedInNoOrganizations is returned by Fetch when watch_accounts names
// no organization page; its text is LinkedInNoKeywordSearch.
var ErrLinkedInNoOrganizations = errors.New(LinkedInNoKeywordSearch)

const (
	linkedInPageSize       = 50
	linkedInMaxPages       = 4
	linkedInMaxCommentPost = 20 // posts per organization whose comments we read
	// Comments keep arriving on older posts: read comments of posts made
	// within this window before q.Since.
	linkedInCommentLookback = 14 * 24 * time.Hour
)

// LinkedInConfig configures the LinkedIn organization-page collector.
type LinkedInConfig struct {
	BaseURL     string // default LinkedInBaseURL
	AccessToken string // EARSHOT_LINKEDIN_ACCESS_TOKEN with r_organization_social
	Version     string // LinkedIn-Version header (YYYYMM); default LinkedInDefaultVersion
	Client      *http.Client
	Now         func() time.Time
}

// LinkedIn collects posts and comments of the organization pages a monitor
// watches. LinkedIn offers no keyword search of public posts; the Posts
// and Social Actions APIs read only pages the token's member administers
// (r_organization_social, Community Management API approval).
type LinkedIn struct {
	cfg  LinkedInConfig
	http *HTTP
}

// NewLinkedIn returns a LinkedIn collector.
func NewLinkedIn(cfg LinkedInConfig) *LinkedIn {
	cfg.BaseURL = orDefault(cfg.BaseURL, LinkedInBaseURL)
	cfg.Version = orDefault(cfg.Version, LinkedInDefaultVersion)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	h := &HTTP{Client: cfg.Client, Source: "linkedin", Now: cfg.Now, Header: http.Header{
		"Authorization":             {"Bearer " + cfg.AccessToken},
		"Linkedin-Version":          {cfg.Version},
		"X-Restli-Protocol-Version": {"2.0.0"},
	}}
	return &LinkedIn{cfg: cfg, http: h}
}

func (l *LinkedIn) Source() string { return "linkedin" }

// Configured says what is missing. A token alone is not enough to collect
// anything: each monitor must also name organization pages (see Fetch).
func (l *LinkedIn) Configured() (bool, string) {
	if l.cfg.AccessToken == "" {
		return false, "EARSHOT_LINKEDIN_ACCESS_TOKEN (a token with r_organization_social for the pages in watch_accounts; LinkedIn has no public keyword search)"
	}
	return true, ""
}

// LinkedInOrganizations returns the organization URNs named in
// watch_accounts: "urn:li:organization:123", a bare "123", or a company
// admin URL ending in the numeric id. Other entries are ignored.
func LinkedInOrganizations(watch []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range watch {
		w = strings.TrimSpace(w)
		id := ""
		switch {
		case strings.HasPrefix(w, "urn:li:organization:"):
			id = strings.TrimPrefix(w, "urn:li:organization:")
		case strings.HasPrefix(w, "urn:li:company:"):
			id = strings.TrimPrefix(w, "urn:li:company:")
		case strings.Contains(w, "linkedin.com/company/"):
			rest := w[strings.Index(w, "linkedin.com/company/")+len("linkedin.com/company/"):]
			id = strings.SplitN(rest, "/", 2)[0]
		default:
			id = w
		}
		if _, err := strconv.ParseUint(id, 10, 64); err != nil || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, "urn:li:organization:"+id)
	}
	return out
}

type linkedInPost struct {
	ID             string `json:"id"`
	Author         string `json:"author"`
	Commentary     string `json:"commentary"`
	CreatedAt      int64  `json:"createdAt"`
	PublishedAt    int64  `json:"publishedAt"`
	LifecycleState string `json:"lifecycleState"`
	Visibility     string `json:"visibility"`
	Content        struct {
		Article *struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Source      string `json:"source"`
		} `json:"article"`
	} `json:"content"`
}

type linkedInPosts struct {
	Elements *[]linkedInPost `json:"elements"`
	Paging   linkedInPaging  `json:"paging"`
}

type linkedInPaging struct {
	Start int  `json:"start"`
	Count int  `json:"count"`
	Total *int `json:"total"`
	Links []struct {
		Rel  string `json:"rel"`
		Href string `json:"href"`
	} `json:"links"`
}

// hasNext reports whether LinkedIn says another page follows: a "next"
// link, or a total beyond this page.
func (p linkedInPaging) hasNext(got int) bool {
	for _, l := range p.Links {
		if l.Rel == "next" {
			return true
		}
	}
	if p.Total != nil {
		return p.Start+got < *p.Total
	}
	return false
}

type linkedInComments struct {
	Elements *[]struct {
		ID         string `json:"id"`
		CommentURN string `json:"commentUrn"`
		Actor      string `json:"actor"`
		Object     string `json:"object"`
		Created    struct {
			Time int64 `json:"time"`
		} `json:"created"`
		Message struct {
			Text string `json:"text"`
		} `json:"message"`
		LikesSummary struct {
			TotalLikes int64 `json:"totalLikes"`
		} `json:"likesSummary"`
	} `json:"elements"`
	Paging linkedInPaging `json:"paging"`
}

// Fetch reads, for each organization in q.WatchAccounts, its posts created
// at or after q.Since (Posts API, q=author, sortBy=CREATED) and the comments
// on its recent posts (Social Actions API).
func (l *LinkedIn) Fetch(ctx context.Context, q Query) (Batch, error) {
	if ok, missing := l.Configured(); !ok {
		return Batch{}, fmt.Errorf("linkedin: not configured: %s", missing)
	}
	orgs := LinkedInOrganizations(q.WatchAccounts)
	if len(orgs) == 0 {
		return Batch{}, ErrLinkedInNoOrganizations
	}
	// Each organization page is a unit of its own (see PartialError): a page
	// the token cannot read must not stop the others. A failed page adds
	// nothing; a rate limit ends the scan, since it holds for every page.
	var posts []Post
	var errs []error
	for _, org := range orgs {
		got, err := l.fetchOrg(ctx, org, q.Since)
		if err != nil {
			if ctx.Err() != nil {
				return Batch{}, err
			}
			errs = append(errs, fmt.Errorf("%s: %w", org, err))
			if _, ok := IsRateLimited(err); ok {
				break
			}
			continue
		}
		posts = append(posts, got...)
	}
	return Batch{Posts: posts}, partial(errs)
}

func (l *LinkedIn) fetchOrg(ctx context.Context, org string, since time.Time) ([]Post, error) {
	var posts []Post
	var commentOn []string
	lookback := since.Add(-linkedInCommentLookback)
	for page := 0; page < linkedInMaxPages; page++ {
		u := fmt.Sprintf("%s/rest/posts?author=%s&q=author&count=%d&start=%d&sortBy=CREATED",
			l.cfg.BaseURL, url.QueryEscape(org), linkedInPageSize, page*linkedInPageSize)
		var p linkedInPosts
		if _, err := l.http.GetJSON(ctx, u, &p); err != nil {
			return posts, err
		}
		if p.Elements == nil {
			return posts, fmt.Errorf("linkedin: malformed response: no \"elements\" array")
		}
		for _, e := range *p.Elements {
			if e.ID == "" {
				return posts, fmt.Errorf("linkedin: malformed response: post without id")
			}
			ms := e.PublishedAt
			if ms == 0 {
				ms = e.CreatedAt
			}
			ts := wire.UnixMilliTime(ms)
			if e.LifecycleState != "" && e.LifecycleState != "PUBLISHED" {
				continue
			}
			if !ts.Before(lookback) && len(commentOn) < linkedInMaxCommentPost {
				commentOn = append(commentOn, e.ID)
			}
			if ts.Before(since) {
				continue
			}
			text := e.Commentary
			if a := e.Content.Article; a != nil {
				text = joinText(text, joinText(a.Title, a.Description))
			}
			posts = append(posts, Post{
				Source:       "linkedin",
				ExternalID:   e.ID,
				URL:          "https://www.linkedin.com/feed/update/" + e.ID + "/",
				AuthorHandle: org,
				Text:         linkedInText(text),
				PublishedAt:  ts,
				Engagement:   map[string]int64{},
			})
		}
		// Newest first: once a page ends before the comment lookback, later
		// pages hold nothing we want.
		n := len(*p.Elements)
		if n == 0 || wire.UnixMilliTime((*p.Elements)[n-1].CreatedAt).Before(lookback) || !p.Paging.hasNext(n) {
			break
		}
	}
	for _, postURN := range commentOn {
		got, err := l.fetchComments(ctx, postURN, since)
		posts = append(posts, got...)
		if err != nil {
			return posts, err
		}
	}
	return posts, nil
}

func (l *LinkedIn) fetchComments(ctx context.Context, postURN string, since time.Time) ([]Post, error) {
	var posts []Post
	for page := 0; page < linkedInMaxPages; page++ {
		u := fmt.Sprintf("%s/rest/socialActions/%s/comments?count=%d&start=%d",
			l.cfg.BaseURL, url.PathEscape(postURN), linkedInPageSize, page*linkedInPageSize)
		var c linkedInComments
		if _, err := l.http.GetJSON(ctx, u, &c); err != nil {
			var se *StatusError
			if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusForbidden) {
				// Comments disabled, or the post is gone: not a source failure.
				return posts, nil
			}
			return posts, err
		}
		if c.Elements == nil {
			return posts, fmt.Errorf("linkedin: malformed comments response: no \"elements\" array")
		}
		for _, e := range *c.Elements {
			ts := wire.UnixMilliTime(e.Created.Time)
			if ts.Before(since) {
				continue
			}
			id := e.CommentURN
			if id == "" {
				id = "urn:li:comment:(" + postURN + "," + e.ID + ")"
			}
			object := e.Object
			if object == "" {
				object = postURN
			}
			posts = append(posts, Post{
				Source:       "linkedin",
				ExternalID:   id,
				URL:          "https://www.linkedin.com/feed/update/" + object + "/?commentUrn=" + url.QueryEscape(id),
				AuthorHandle: e.Actor, // a member URN: the API does not give names without r_liteprofile of that member
				Text:         linkedInText(e.Message.Text),
				PublishedAt:  ts,
				Engagement:   map[string]int64{"likes": e.LikesSummary.TotalLikes},
			})
		}
		if !c.Paging.hasNext(len(*c.Elements)) || len(*c.Elements) == 0 {
			break
		}
	}
	return posts, nil
}

// linkedInText turns LinkedIn's "little text" commentary into plain text:
// mentions are written @[Name](urn:li:organization:1) and hashtags
// {hashtag|\#|word}; reserved characters (among them < and >) are
// backslash-escaped. It is not HTML, so nothing is stripped; article
// descriptions copied from a page's meta tags may carry entities.
func linkedInText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		case c == '@' && i+1 < len(s) && s[i+1] == '[':
			end := strings.Index(s[i:], "](")
			closing := strings.IndexByte(s[i:], ')')
			if end < 0 || closing < end {
				b.WriteByte(c)
				continue
			}
			b.WriteString("@" + s[i+2:i+end])
			i += closing
		case c == '{' && strings.HasPrefix(s[i:], "{hashtag|"):
			closing := strings.IndexByte(s[i:], '}')
			if closing < 0 {
				b.WriteByte(c)
				continue
			}
			parts := strings.Split(s[i+1:i+closing], "|")
			b.WriteString("#" + parts[len(parts)-1])
			i += closing
		default:
			b.WriteByte(c)
		}
	}
	return wire.UnescapeText(b.String())
}
