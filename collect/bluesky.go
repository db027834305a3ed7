package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"earshot/collect/wire"
)

// Bluesky has two ways in (README, Bluesky):
//
//   - With an app password (EARSHOT_BLUESKY_HANDLE and
//     EARSHOT_BLUESKY_APP_PASSWORD): a session from
//     com.atproto.server.createSession, refreshed with refreshSession when
//     the access token expires; keyword search through
//     app.bsky.feed.searchPosts (sort=latest, since/until, cursor paging) and
//     the posts of watch_accounts through app.bsky.feed.getAuthorFeed.
//     Unauthenticated search on the public AppView has answered 403 since
//     January 2025, so search needs the session.
//   - Without credentials: Bluesky's public Jetstream (bluesky_jetstream.go),
//     every new post on the network, matched on our side. Live only: a
//     monitor sees posts from its first Jetstream scan on, never older ones.
//
// Both modes give a post the same ExternalID (its at:// URI), so switching
// modes does not store a post twice.

// Bluesky hosts.
const (
	// BlueskyBaseURL is the PDS that creates sessions; authenticated
	// app.bsky.* calls made there are proxied to the AppView.
	BlueskyBaseURL = "https://bsky.social"
	// BlueskyPublicURL is the public AppView: without credentials, Jetstream
	// posts are hydrated (handle, counts) and handles resolved there.
	BlueskyPublicURL = "https://public.api.bsky.app"
	// BlueskyJetstreamURL is one of Bluesky's public Jetstream instances.
	BlueskyJetstreamURL = "wss://jetstream2.us-east.bsky.network/subscribe"
)

const (
	bskyPostCollection = "app.bsky.feed.post"
	bskySearchLimit    = 100 // searchPosts limit is 1–100
	bskyFeedLimit      = 100 // getAuthorFeed limit is 1–100
)

// BlueskyConfig configures the Bluesky collector.
type BlueskyConfig struct {
	BaseURL      string // EARSHOT_BLUESKY_BASE_URL: XRPC host; default BlueskyBaseURL with credentials, BlueskyPublicURL without
	Handle       string // EARSHOT_BLUESKY_HANDLE (or the account's email or DID)
	AppPassword  string // EARSHOT_BLUESKY_APP_PASSWORD: an app password, never the account password
	JetstreamURL string // EARSHOT_BLUESKY_JETSTREAM_URL: default BlueskyJetstreamURL; "off" disables Jetstream
	Client       *http.Client
	Now          func() time.Time
	MaxPages     int // per query and scan; default 10

	// Jetstream bounds per scan: the longest a scan reads (default 2 min),
	// how long the stream may be silent before the scan counts as caught up
	// (default 15 s), and how far back a resumed cursor may reach (default
	// 2 h; older cursors are moved forward: Jetstream mode is live, not a
	// backfill).
	JetstreamBudget  time.Duration
	JetstreamIdle    time.Duration
	JetstreamCatchUp time.Duration
}

// Bluesky collects posts from Bluesky (see the comment above).
type Bluesky struct {
	cfg       BlueskyConfig
	http      *HTTP
	publicURL string

	mu   sync.Mutex
	sess *bskySession
	dids map[string]string // handle → DID, for watch_accounts in Jetstream mode
	js   jetstreamShare    // Jetstream mode: the stream read so far, shared by monitors
}

type bskySession struct {
	AccessJwt  string `json:"accessJwt"`
	RefreshJwt string `json:"refreshJwt"`
	Handle     string `json:"handle"`
	DID        string `json:"did"`
}

// NewBluesky returns a Bluesky collector.
func NewBluesky(cfg BlueskyConfig) *Bluesky {
	authed := cfg.Handle != "" || cfg.AppPassword != ""
	public := orDefault(cfg.BaseURL, BlueskyPublicURL)
	if authed {
		cfg.BaseURL = orDefault(cfg.BaseURL, BlueskyBaseURL)
	} else {
		cfg.BaseURL = public
	}
	if !strings.EqualFold(strings.TrimSpace(cfg.JetstreamURL), "off") {
		cfg.JetstreamURL = orDefault(cfg.JetstreamURL, BlueskyJetstreamURL)
	} else {
		cfg.JetstreamURL = "off"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = 10
	}
	if cfg.JetstreamBudget <= 0 {
		cfg.JetstreamBudget = 2 * time.Minute
	}
	if cfg.JetstreamIdle <= 0 {
		cfg.JetstreamIdle = 15 * time.Second
	}
	if cfg.JetstreamCatchUp <= 0 {
		cfg.JetstreamCatchUp = 2 * time.Hour
	}
	return &Bluesky{cfg: cfg, publicURL: public, dids: map[string]string{},
		http: &HTTP{Client: cfg.Client, Source: "bluesky", Now: cfg.Now}}
}

func (b *Bluesky) Source() string { return "bluesky" }

// authenticated reports whether the collector searches with a session
// (otherwise it reads Jetstream).
func (b *Bluesky) authenticated() bool { return b.cfg.Handle != "" || b.cfg.AppPassword != "" }

func (b *Bluesky) Configured() (bool, string) {
	switch {
	case b.cfg.Handle != "" && b.cfg.AppPassword == "":
		return false, "EARSHOT_BLUESKY_APP_PASSWORD"
	case b.cfg.Handle == "" && b.cfg.AppPassword != "":
		return false, "EARSHOT_BLUESKY_HANDLE"
	case !b.authenticated() && b.cfg.JetstreamURL == "off":
		return false, "EARSHOT_BLUESKY_HANDLE and EARSHOT_BLUESKY_APP_PASSWORD (Jetstream is off)"
	}
	return true, ""
}

// StatusNote is the source status detail of a working Bluesky source: in
// Jetstream mode, that it is live only.
func (b *Bluesky) StatusNote() string {
	if b.authenticated() {
		return ""
	}
	return "Jetstream (no Bluesky credentials): live only, posts from the first scan on, no backfill; set EARSHOT_BLUESKY_HANDLE and EARSHOT_BLUESKY_APP_PASSWORD for search and backfill"
}

// Fetch searches with the session, or reads Jetstream without one.
func (b *Bluesky) Fetch(ctx context.Context, q Query) (Batch, error) {
	if ok, missing := b.Configured(); !ok {
		return Batch{}, fmt.Errorf("bluesky: not configured: %s is not set", missing)
	}
	if !b.authenticated() {
		return b.fetchJetstream(ctx, q)
	}
	now := b.cfg.Now().UTC()
	seen := map[string]bool{}
	var posts []Post
	add := func(got []Post) {
		for _, p := range got {
			if !seen[p.ExternalID] {
				seen[p.ExternalID] = true
				posts = append(posts, p)
			}
		}
	}
	for _, term := range searchTerms(q) {
		got, err := b.search(ctx, term, q.Since, now)
		if err != nil {
			return Batch{}, err // a failed fetch stores nothing
		}
		add(got)
	}
	for _, actor := range watchHandles("bluesky", q.WatchAccounts) {
		got, err := b.authorFeed(ctx, actor, q.Since)
		if err != nil {
			return Batch{}, err
		}
		add(got)
	}
	return Batch{Posts: posts}, nil
}

// bskyPostView is app.bsky.feed.defs#postView, the fields we read.
type bskyPostView struct {
	URI    string `json:"uri"`
	Author struct {
		DID    string `json:"did"`
		Handle string `json:"handle"`
	} `json:"author"`
	Record struct {
		Type      string `json:"$type"`
		Text      string `json:"text"`
		CreatedAt string `json:"createdAt"`
		bskyRichText
	} `json:"record"`
	ReplyCount  *int64 `json:"replyCount"`
	RepostCount *int64 `json:"repostCount"`
	LikeCount   *int64 `json:"likeCount"`
	QuoteCount  *int64 `json:"quoteCount"`
	IndexedAt   string `json:"indexedAt"`
}

// search runs one searchPosts query over [since, now), newest first,
// following the cursor.
func (b *Bluesky) search(ctx context.Context, term string, since, now time.Time) ([]Post, error) {
	v := url.Values{}
	v.Set("q", term)
	v.Set("sort", "latest")
	if !since.IsZero() {
		v.Set("since", since.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	v.Set("until", now.Add(time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"))
	v.Set("limit", fmt.Sprint(bskySearchLimit))
	return b.readPages(ctx, v, since, func(ctx context.Context, v url.Values) (bskyPage, error) {
		var p struct {
			Cursor string          `json:"cursor"`
			Posts  *[]bskyPostView `json:"posts"`
		}
		hdr, err := b.xrpc(ctx, "app.bsky.feed.searchPosts", v, &p)
		if err != nil {
			return bskyPage{}, err
		}
		if p.Posts == nil {
			return bskyPage{}, fmt.Errorf("bluesky: %w: searchPosts without \"posts\"", errMalformed)
		}
		return bskyPage{views: *p.Posts, items: len(*p.Posts), cursor: p.Cursor, hdr: hdr}, nil
	})
}

// authorFeed reads the posts of one account (handle or DID), reposts left
// out, newest first until posts older than since.
func (b *Bluesky) authorFeed(ctx context.Context, actor string, since time.Time) ([]Post, error) {
	v := url.Values{}
	v.Set("actor", actor)
	v.Set("limit", fmt.Sprint(bskyFeedLimit))
	v.Set("filter", "posts_with_replies")
	return b.readPages(ctx, v, since, func(ctx context.Context, v url.Values) (bskyPage, error) {
		var p struct {
			Cursor string `json:"cursor"`
			Feed   *[]struct {
				Post   bskyPostView    `json:"post"`
				Reason json.RawMessage `json:"reason"`
			} `json:"feed"`
		}
		hdr, err := b.xrpc(ctx, "app.bsky.feed.getAuthorFeed", v, &p)
		if err != nil {
			return bskyPage{}, err
		}
		if p.Feed == nil {
			return bskyPage{}, fmt.Errorf("bluesky: %w: getAuthorFeed without \"feed\"", errMalformed)
		}
		pg := bskyPage{items: len(*p.Feed), cursor: p.Cursor, hdr: hdr}
		for _, item := range *p.Feed {
			if len(item.Reason) > 0 && string(item.Reason) != "null" {
				continue // a repost (or a pin): not this account's new post
			}
			pg.views = append(pg.views, item.Post)
		}
		return pg, nil
	})
}

// bskyPage is one page of a post list: the posts it holds (reposts left
// out), how many items it held in all, the next cursor and the response
// headers (rate-limit budget).
type bskyPage struct {
	views  []bskyPostView
	items  int
	cursor string
	hdr    http.Header
}

// readPages follows a post list's cursor, newest first, for at most
// MaxPages pages: it stops at an empty or last page, a repeated cursor or
// the first post older than since, and waits for the rate-limit budget
// between pages. searchPosts and getAuthorFeed differ only in fetch.
func (b *Bluesky) readPages(ctx context.Context, v url.Values, since time.Time,
	fetch func(context.Context, url.Values) (bskyPage, error)) ([]Post, error) {
	var out []Post
	for page := 0; page < b.cfg.MaxPages; page++ {
		pg, err := fetch(ctx, v)
		if err != nil {
			return nil, err
		}
		older := false
		for _, pv := range pg.views {
			post, err := pv.post()
			if err != nil {
				return nil, err
			}
			if post.PublishedAt.Before(since) {
				older = true
				continue
			}
			out = append(out, post)
		}
		if pg.cursor == "" || pg.items == 0 || older || pg.cursor == v.Get("cursor") {
			break
		}
		if err := b.waitForBudget(ctx, pg.hdr); err != nil {
			return nil, err
		}
		v.Set("cursor", pg.cursor)
	}
	return out, nil
}

// post maps a postView to a Post.
func (pv bskyPostView) post() (Post, error) {
	did, rkey, ok := bskyPostURI(pv.URI)
	if !ok {
		return Post{}, fmt.Errorf("bluesky: %w: post uri %q", errMalformed, pv.URI)
	}
	if pv.Author.DID == "" {
		pv.Author.DID = did
	}
	published, err := wire.ParseTimestamp(pv.Record.CreatedAt)
	if err != nil {
		if published, err = wire.ParseTimestamp(pv.IndexedAt); err != nil {
			return Post{}, fmt.Errorf("bluesky: %w: post %s: no valid createdAt or indexedAt", errMalformed, pv.URI)
		}
	}
	handle := pv.Author.Handle
	if handle == "handle.invalid" {
		handle = ""
	}
	text, links := pv.Record.expand(pv.Record.Text)
	post := Post{
		Source:       "bluesky",
		ExternalID:   pv.URI,
		URL:          bskyPostURL(handle, pv.Author.DID, rkey),
		AuthorHandle: wire.NormalizeHandle(handle),
		AuthorID:     pv.Author.DID,
		Text:         strings.TrimSpace(text), // plain text; Bluesky does not escape it
		PublishedAt:  published.UTC(),
		Engagement:   map[string]int64{},
		Links:        links,
	}
	for _, c := range []struct {
		key string
		n   *int64
	}{{"likes", pv.LikeCount}, {"reposts", pv.RepostCount}, {"replies", pv.ReplyCount}, {"quotes", pv.QuoteCount}} {
		if c.n != nil {
			post.Engagement[c.key] = *c.n
		}
	}
	return post, nil
}

var reBskyPostURI = regexp.MustCompile(`^at://(did:[a-z]+:[A-Za-z0-9._:%-]+)/app\.bsky\.feed\.post/([A-Za-z0-9._~:-]{1,512})$`)

// bskyPostURI splits at://{did}/app.bsky.feed.post/{rkey}.
func bskyPostURI(uri string) (did, rkey string, ok bool) {
	m := reBskyPostURI.FindStringSubmatch(uri)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// bskyPostURL is the post's page on bsky.app: by handle, or by DID when the
// handle is unknown (bsky.app accepts both).
func bskyPostURL(handle, did, rkey string) string {
	who := handle
	if who == "" {
		who = did
	}
	return "https://bsky.app/profile/" + url.PathEscape(who) + "/post/" + url.PathEscape(rkey)
}

// --- session ---

// xrpc GETs an XRPC query with the session's access token; an expired or
// refused token is refreshed (or the session created again) once.
func (b *Bluesky) xrpc(ctx context.Context, method string, params url.Values, v any) (http.Header, error) {
	sess, err := b.session(ctx, nil)
	if err != nil {
		return nil, err
	}
	hdr, err := b.get(ctx, b.cfg.BaseURL, method, params, sess.AccessJwt, v)
	if !bskyAuthExpired(err) {
		return hdr, err
	}
	if sess, err = b.session(ctx, sess); err != nil {
		return nil, err
	}
	return b.get(ctx, b.cfg.BaseURL, method, params, sess.AccessJwt, v)
}

// get is one XRPC GET; token "" sends no Authorization.
func (b *Bluesky) get(ctx context.Context, base, method string, params url.Values, token string, v any) (http.Header, error) {
	u := base + "/xrpc/" + method + "?" + params.Encode()
	return b.http.DoJSON(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return req, nil
	}, v)
}

// session returns the current session. stale is the session whose access
// token was just refused: it is refreshed with its refresh token, or, when
// that fails for a reason other than the network or a rate limit, created
// again from the app password.
func (b *Bluesky) session(ctx context.Context, stale *bskySession) (*bskySession, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess != nil && b.sess != stale {
		return b.sess, nil
	}
	if stale != nil && stale.RefreshJwt != "" {
		s, err := b.postSession(ctx, "com.atproto.server.refreshSession", nil, stale.RefreshJwt)
		if err == nil {
			b.sess = s
			return s, nil
		}
		if !bskyAuthExpired(err) {
			return nil, err
		}
	}
	b.sess = nil
	s, err := b.postSession(ctx, "com.atproto.server.createSession",
		map[string]string{"identifier": b.cfg.Handle, "password": b.cfg.AppPassword}, "")
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusBadRequest) {
			return nil, fmt.Errorf("bluesky: signing in as %s failed (check EARSHOT_BLUESKY_HANDLE and EARSHOT_BLUESKY_APP_PASSWORD): %w", b.cfg.Handle, err)
		}
		return nil, err
	}
	b.sess = s
	return s, nil
}

func (b *Bluesky) postSession(ctx context.Context, method string, body any, token string) (*bskySession, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	var s bskySession
	_, err := b.http.DoJSON(ctx, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, b.cfg.BaseURL+"/xrpc/"+method, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return req, nil
	}, &s)
	if err != nil {
		return nil, err
	}
	if s.AccessJwt == "" {
		return nil, fmt.Errorf("bluesky: %w: %s without accessJwt", errMalformed, method)
	}
	return &s, nil
}

// bskyAuthExpired reports an XRPC answer that says the token is expired or
// invalid (400 ExpiredToken, 401 InvalidToken / AuthenticationRequired).
func bskyAuthExpired(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	return se.Status == http.StatusUnauthorized ||
		(se.Status == http.StatusBadRequest && (strings.Contains(se.Body, "ExpiredToken") || strings.Contains(se.Body, "InvalidToken")))
}

// waitForBudget honours RateLimit-Remaining (Bluesky's PDS and AppView send
// RateLimit-Limit/-Remaining/-Reset/-Policy) before the next page.
func (b *Bluesky) waitForBudget(ctx context.Context, hdr http.Header) error {
	if strings.TrimSpace(hdr.Get("Ratelimit-Remaining")) != "0" {
		return nil
	}
	return b.http.waitForReset(ctx, hdr)
}
