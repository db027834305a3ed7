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
	"sync"
	"time"

	"earshot/collect/wire"
)

// Reddit's two hosts: the public site (keyless .json listings and the token
// endpoint) and the OAuth API host.
const (
	RedditBaseURL      = "https://www.reddit.com"
	RedditOAuthBaseURL = "https://oauth.reddit.com"
)

// RedditDefaultUserAgent follows Reddit's required form
// "<platform>:<app ID>:<version> (by /u/<user>)".
const RedditDefaultUserAgent = "server:earshot:1.0 (by /u/earshot-monitor)"

// redditMaxQuery is the longest q Reddit accepts.
const redditMaxQuery = 512

// RedditConfig configures the Reddit collector. With ClientID and
// ClientSecret it searches through the OAuth API (100 requests a minute);
// without them through public search.json (10 a minute, often refused from
// datacenter addresses).
type RedditConfig struct {
	BaseURL      string // default RedditBaseURL (EARSHOT_REDDIT_BASE_URL)
	OAuthBaseURL string // default RedditOAuthBaseURL (EARSHOT_REDDIT_OAUTH_BASE_URL)
	ClientID     string // EARSHOT_REDDIT_CLIENT_ID
	ClientSecret string // EARSHOT_REDDIT_CLIENT_SECRET
	UserAgent    string // default RedditDefaultUserAgent
	Client       *http.Client
	Now          func() time.Time
	MaxPages     int // per query and scan; default 10 (listings end near 1,000 items)
}

// Reddit searches posts (t3) sorted by new. It keeps no State: each scan
// pages back to the scheduler's window (q.Since), which overlaps the
// previous one.
type Reddit struct {
	cfg  RedditConfig
	http *HTTP

	mu     sync.Mutex // guards token and expiry; held while fetching a token
	token  string
	expiry time.Time
}

// NewReddit returns a Reddit collector.
func NewReddit(cfg RedditConfig) *Reddit {
	cfg.BaseURL = orDefault(cfg.BaseURL, RedditBaseURL)
	cfg.OAuthBaseURL = orDefault(cfg.OAuthBaseURL, RedditOAuthBaseURL)
	if cfg.UserAgent == "" {
		cfg.UserAgent = RedditDefaultUserAgent
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 10
	}
	return &Reddit{cfg: cfg, http: &HTTP{Client: cfg.Client, Source: "reddit", Now: cfg.Now}}
}

func (r *Reddit) Source() string { return "reddit" }

// Configured is true without credentials (public search), but half a pair of
// OAuth credentials is a mistake worth reporting.
func (r *Reddit) Configured() (bool, string) {
	switch {
	case r.cfg.ClientID != "" && r.cfg.ClientSecret == "":
		return false, "EARSHOT_REDDIT_CLIENT_SECRET"
	case r.cfg.ClientID == "" && r.cfg.ClientSecret != "":
		return false, "EARSHOT_REDDIT_CLIENT_ID"
	}
	return true, ""
}

func (r *Reddit) oauth() bool { return r.cfg.ClientID != "" && r.cfg.ClientSecret != "" }

type redditListing struct {
	Kind string `json:"kind"`
	Data *struct {
		After    *string `json:"after"`
		Children []struct {
			Kind string      `json:"kind"`
			Data redditThing `json:"data"`
		} `json:"children"`
	} `json:"data"`
}

type redditThing struct {
	Name        string   `json:"name"`
	ID          string   `json:"id"`
	Author      string   `json:"author"`
	Title       string   `json:"title"`
	Selftext    string   `json:"selftext"`
	Body        string   `json:"body"`
	Permalink   string   `json:"permalink"`
	URL         string   `json:"url"`     // a link post's target (a self post's own address)
	IsSelf      bool     `json:"is_self"` // a text post
	Score       *int64   `json:"score"`
	NumComments *int64   `json:"num_comments"`
	CreatedUTC  *float64 `json:"created_utc"`
}

// Fetch pages each query's sort=new listing until it reaches a post older
// than q.Since (or MaxPages). It does not stop at the newest post the
// previous scan saw: Reddit's search index takes some posts minutes late,
// and such a post sits below that one in the listing. The scheduler's
// window overlaps the previous scan for exactly these posts; the
// pipeline's dedupe makes the refetched overlap harmless.
func (r *Reddit) Fetch(ctx context.Context, q Query) (Batch, error) {
	floor := float64(q.Since.Unix())
	if q.Since.IsZero() {
		floor = 0
	}
	var b Batch
	seen := map[string]bool{}
	for _, term := range redditQueries(q) {
		if err := r.search(ctx, term, floor, seen, &b.Posts); err != nil {
			return Batch{}, err
		}
	}
	return b, nil
}

func (r *Reddit) search(ctx context.Context, term string, floor float64, seen map[string]bool, posts *[]Post) error {
	base := r.cfg.BaseURL + "/search.json"
	if r.oauth() {
		base = r.cfg.OAuthBaseURL + "/search"
	}
	v := url.Values{}
	v.Set("q", term)
	v.Set("sort", "new")
	v.Set("limit", "100")
	v.Set("raw_json", "1")
	v.Set("type", "link")
	v.Set("t", redditWindow(r.cfg.Now().Sub(time.Unix(int64(floor), 0))))
	for page := 0; page < r.cfg.MaxPages; page++ {
		var l redditListing
		hdr, err := r.getJSON(ctx, base+"?"+v.Encode(), &l)
		if err != nil {
			return err
		}
		if l.Kind != "Listing" || l.Data == nil {
			return fmt.Errorf("reddit: %w: not a Listing (kind %q)", errMalformed, l.Kind)
		}
		for _, c := range l.Data.Children {
			t := c.Data
			if t.Name == "" || t.CreatedUTC == nil || t.Permalink == "" {
				return fmt.Errorf("reddit: %w: child without name, created_utc or permalink", errMalformed)
			}
			if *t.CreatedUTC < floor {
				return nil
			}
			if !seen[t.Name] {
				seen[t.Name] = true
				*posts = append(*posts, t.post())
			}
		}
		if l.Data.After == nil || *l.Data.After == "" || len(l.Data.Children) == 0 {
			return nil
		}
		if err := r.waitForBudget(ctx, hdr); err != nil {
			return err
		}
		v.Set("after", *l.Data.After)
	}
	return nil
}

// waitForBudget honours X-Ratelimit-Remaining before asking for another
// page: with nothing left it sleeps through a short reset or gives up with
// RateLimitedError.
func (r *Reddit) waitForBudget(ctx context.Context, hdr http.Header) error {
	rem, err := strconv.ParseFloat(hdr.Get("X-Ratelimit-Remaining"), 64)
	if err != nil || rem >= 1 {
		return nil
	}
	return r.http.waitForReset(ctx, hdr)
}

// getJSON sends an authorised GET when OAuth is configured, refreshing the
// token once on 401.
func (r *Reddit) getJSON(ctx context.Context, u string, v any) (http.Header, error) {
	var hdr http.Header
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		token := ""
		if r.oauth() {
			if token, err = r.accessToken(ctx, attempt > 0); err != nil {
				return nil, err
			}
		}
		hdr, err = r.http.DoJSON(ctx, func() (*http.Request, error) {
			req, err := http.NewRequest(http.MethodGet, u, nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("User-Agent", r.cfg.UserAgent)
			req.Header.Set("Accept", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "bearer "+token)
			}
			return req, nil
		}, v)
		var se *StatusError
		if token != "" && errors.As(err, &se) && se.Status == http.StatusUnauthorized {
			continue
		}
		break
	}
	return hdr, err
}

// accessToken returns the cached app-only token, fetching a new one when
// there is none, it expires within a minute, or force is set (after a 401).
func (r *Reddit) accessToken(ctx context.Context, force bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.cfg.Now()
	if !force && r.token != "" && now.Before(r.expiry.Add(-time.Minute)) {
		return r.token, nil
	}
	r.token = ""
	body, _, err := r.http.Do(ctx, func() (*http.Request, error) {
		form := url.Values{"grant_type": {"client_credentials"}}
		req, err := http.NewRequest(http.MethodPost, r.cfg.BaseURL+"/api/v1/access_token", strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		req.SetBasicAuth(r.cfg.ClientID, r.cfg.ClientSecret)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("User-Agent", r.cfg.UserAgent)
		return req, nil
	})
	if err != nil {
		return "", fmt.Errorf("reddit: access token: %w", err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
		Error       string `json:"error"`
	}
	if err := json.Unmarshal(body, &tok); err != nil {
		return "", fmt.Errorf("reddit: access token: %w: %w", errMalformed, jsonProblem(err, body))
	}
	if tok.AccessToken == "" {
		return "", fmt.Errorf("reddit: access token refused: %s", oauthErrorCode(tok.Error))
	}
	if tok.ExpiresIn <= 0 {
		tok.ExpiresIn = 3600
	}
	r.token = tok.AccessToken
	r.expiry = now.Add(time.Duration(tok.ExpiresIn) * time.Second)
	return r.token, nil
}

func (t redditThing) post() Post {
	author := t.Author
	if author == "[deleted]" || author == "[removed]" {
		author = ""
	}
	body := t.Selftext
	if t.Body != "" {
		body = t.Body
	}
	if body == "[removed]" || body == "[deleted]" {
		body = ""
	}
	p := Post{
		Source:       "reddit",
		ExternalID:   t.Name,
		URL:          "https://www.reddit.com" + t.Permalink,
		AuthorHandle: wire.NormalizeHandle(author),
		Text:         joinText(wire.UnescapeText(t.Title), wire.UnescapeText(body)), // plain text (raw_json=1), not HTML
		PublishedAt:  wire.UnixTime(*t.CreatedUTC),
		Engagement:   map[string]int64{},
	}
	if t.URL != "" && !t.IsSelf && t.Body == "" && t.Title != "" { // a link post's target
		p.Links = []string{t.URL}
	}
	if t.Score != nil {
		p.Engagement["upvotes"] = *t.Score
	}
	if t.NumComments != nil {
		p.Engagement["comments"] = *t.NumComments
	}
	return p
}

// redditWindow picks the narrowest t= that still covers the wanted age.
func redditWindow(age time.Duration) string {
	switch {
	case age < 55*time.Minute:
		return "hour"
	case age < 23*time.Hour:
		return "day"
	case age < 6*24*time.Hour:
		return "week"
	case age < 29*24*time.Hour:
		return "month"
	case age < 364*24*time.Hour:
		return "year"
	}
	return "all"
}

// redditQueries builds q values: keywords quoted when they hold anything
// but letters and digits, OR'ed (any), AND'ed (all) or as one quoted phrase,
// plus author: terms for watched accounts. Each q stays within 512
// characters; in any mode the terms are spread over several queries.
func redditQueries(q Query) []string {
	var terms []string
	kws := queryKeywords(q.Keywords, "")
	switch {
	case len(kws) == 0:
	case q.QueryMode == "all":
		quoted := make([]string, len(kws))
		for i, k := range kws {
			quoted[i] = redditQuote(k)
		}
		terms = append(terms, "("+strings.Join(quoted, " AND ")+")")
	case q.QueryMode == "phrase":
		terms = append(terms, `"`+strings.ReplaceAll(strings.Join(kws, " "), `"`, "")+`"`)
	default:
		for _, k := range kws {
			terms = append(terms, redditQuote(k))
		}
	}
	for _, a := range watchHandles("reddit", q.WatchAccounts) {
		terms = append(terms, "author:"+a)
	}
	var out []string
	cur := ""
	for _, t := range terms {
		switch {
		case cur == "":
			cur = t
		case len(cur)+len(" OR ")+len(t) <= redditMaxQuery:
			cur += " OR " + t
		default:
			out = append(out, cur)
			cur = t
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

func redditQuote(k string) string {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c > 127) {
			return `"` + strings.ReplaceAll(k, `"`, "") + `"`
		}
	}
	return k
}

// oauthErrorCode is the "error" of an OAuth token answer as the status may
// show it: a code of RFC 6749's characters (invalid_grant), never free
// text, which could be anything the answer's sender chose.
func oauthErrorCode(code string) string {
	if code == "" || len(code) > 64 || strings.Trim(code, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return "no error code"
	}
	return code
}
