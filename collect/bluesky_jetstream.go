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

	"github.com/coder/websocket"

	"earshot/collect/wire"
	"earshot/netguard"
)

// Jetstream mode (no Bluesky credentials). Jetstream is Bluesky's JSON
// firehose over a websocket: every commit on the network, filtered here to
// new app.bsky.feed.post records (wantedCollections), each stamped with
// time_us, the server's receive time in microseconds, which is also the
// cursor to resume from.
//
// A scan starts from the cursor of the monitor's previous scan (its State,
// "jetstream:<time_us>"), reads the stream until it reaches the time the
// scan started (or the stream goes quiet, or the scan's budget is spent),
// matches each post with the monitor's own rule (the matcher of the
// pipeline), and leaves the cursor of the last event read as the new State.
// So a restart resumes where the last scan stopped. The stream is read once
// for all monitors (jetstreamShare): a scan whose cursor falls in the
// stretch already read only reads on from its end. The first scan of a
// monitor starts at the live edge: no backfill. A cursor older than
// JetstreamCatchUp (an instance that was down for a day) is moved forward,
// since replaying a day of the whole network is not what Jetstream is for.
//
// Matched posts are hydrated through the public AppView
// (app.bsky.feed.getPosts, 25 at a time) for the author's handle and the
// like/repost/reply/quote counts; a post the AppView no longer has (and
// that is not minutes old) was deleted and is dropped. When hydration fails the post is kept with its
// author's DID in the URL and no counts.

const (
	jetstreamStatePrefix = "jetstream:"
	jetstreamReadLimit   = 1 << 20 // one event; posts are at most a few KB
	bskyGetPostsBatch    = 25      // getPosts takes at most 25 uris
	// bskyIndexDelay: a post younger than this may not be on the AppView
	// yet, so its absence from getPosts does not mean it was deleted.
	bskyIndexDelay = 2 * time.Minute
)

// jetstreamEvent is one Jetstream message; only commits are read.
type jetstreamEvent struct {
	DID    string `json:"did"`
	TimeUS int64  `json:"time_us"`
	Kind   string `json:"kind"`
	Commit *struct {
		Operation  string `json:"operation"`
		Collection string `json:"collection"`
		RKey       string `json:"rkey"`
		Record     struct {
			Text      string `json:"text"`
			CreatedAt string `json:"createdAt"`
			bskyRichText
		} `json:"record"`
	} `json:"commit"`
}

// jetstreamCursor reads a State written by fetchJetstream; 0 when it is
// not one (the first scan, or a State of search mode).
func jetstreamCursor(state string) int64 {
	v, ok := strings.CutPrefix(state, jetstreamStatePrefix)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// jetstreamShare is the stretch of the stream already read, shared by the
// scans of every monitor: the stream is read once over [from, to], and the
// posts that matched any monitor's rule then are kept (only those, so memory
// stays small), for the next monitors whose cursors fall in that stretch. A
// monitor whose rule is new or changed is served from the share only for
// what was read after its rule was known; for older cursors the stream is
// read again from its cursor. Scans of Jetstream take turns (mu).
type jetstreamShare struct {
	mu    sync.Mutex
	from  int64 // 0: nothing read yet
	to    int64
	hits  []jetstreamHit
	held  map[string]bool           // ExternalIDs in hits: a read resumed at "to" sees its last event again
	rules map[string]*jetstreamRule // by monitor
}

type jetstreamHit struct {
	timeUS int64
	post   Post
}

type jetstreamRule struct {
	key       string
	m         *Matcher
	validFrom int64 // the share holds this rule's posts from here on
	lastUsed  time.Time
}

// jetstreamRuleTTL: a monitor not scanned for this long (deleted, paused)
// no longer makes the shared reading keep its posts.
const jetstreamRuleTTL = 24 * time.Hour

func (b *Bluesky) fetchJetstream(ctx context.Context, q Query) (Batch, error) {
	rule := RuleFromQuery(q)
	rule.WatchAccounts = append(append([]string(nil), q.WatchAccounts...), b.watchDIDs(ctx, q.WatchAccounts)...)
	posts, state, err := b.readShared(ctx, q, rule)
	if err != nil {
		return Batch{}, err
	}
	// Hydration is outside the share's lock: other scans need not wait.
	posts = b.hydrate(ctx, posts)
	return Batch{Posts: posts, State: jetstreamStatePrefix + strconv.FormatInt(state, 10)}, nil
}

// readShared brings the share up to the scan's start and returns this
// monitor's posts since its cursor and its new cursor.
func (b *Bluesky) readShared(ctx context.Context, q Query, rule Rule) ([]Post, int64, error) {
	key, _ := json.Marshal(rule)
	id := q.MonitorID
	if id == "" {
		id = string(key)
	}

	sh := &b.js
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := b.cfg.Now()
	target := now.UnixMicro()
	cursor := jetstreamCursor(q.State)
	if floor := now.Add(-b.cfg.JetstreamCatchUp).UnixMicro(); cursor != 0 && cursor < floor {
		cursor = floor
	}
	if cursor == 0 {
		cursor = target // live edge: Jetstream mode does not backfill
	}
	if sh.rules == nil {
		sh.rules = map[string]*jetstreamRule{}
	}
	for k, r := range sh.rules {
		if now.Sub(r.lastUsed) > jetstreamRuleTTL {
			delete(sh.rules, k)
		}
	}
	r := sh.rules[id]
	if r == nil || r.key != string(key) {
		r = &jetstreamRule{key: string(key), m: Compile(rule), validFrom: sh.to}
		sh.rules[id] = r
	}
	r.lastUsed = now

	// Read on from where the share ends, or, when it does not cover this
	// monitor's cursor, afresh from the cursor.
	start := sh.to
	if sh.to == 0 || cursor < sh.from || cursor < r.validFrom {
		start = cursor
		sh.from, sh.to, sh.hits, sh.held = cursor, cursor, nil, map[string]bool{}
		for _, rr := range sh.rules {
			rr.validFrom = cursor
		}
	}
	var readErr error
	// A first scan (start == target) still connects: it checks the stream
	// answers and starts at its live edge.
	if start <= target {
		readErr = b.readJetstream(ctx, sh, start, target)
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
	}
	state := max(sh.to, cursor)
	if readErr != nil && state <= cursor {
		// Nothing read past this monitor's cursor: a failed scan. (Events
		// arrive in time_us order, so a stream that broke after some
		// events leaves a complete stretch up to the last one.)
		return nil, 0, readErr
	}
	var posts []Post
	for _, h := range sh.hits {
		if h.timeUS >= cursor && r.m.Match(h.post) {
			p := h.post
			p.Engagement = map[string]int64{} // the share's posts are not handed out to be changed
			posts = append(posts, p)
		}
	}
	// Keep the share to the catch-up window.
	if floor := now.Add(-b.cfg.JetstreamCatchUp).UnixMicro(); sh.from < floor {
		i := 0
		for i < len(sh.hits) && sh.hits[i].timeUS < floor {
			i++
		}
		for _, h := range sh.hits[:i] {
			delete(sh.held, h.post.ExternalID)
		}
		sh.hits = append([]jetstreamHit(nil), sh.hits[i:]...)
		sh.from = floor
	}
	return posts, state, nil
}

// readJetstream reads the stream from start until an event at or after
// target (the scan's start), a quiet spell of JetstreamIdle, or the
// JetstreamBudget, adding to the share the posts any monitor's rule wants.
// An error means the stream failed; what was read before stays in the share.
func (b *Bluesky) readJetstream(ctx context.Context, sh *jetstreamShare, start, target int64) error {
	u, err := url.Parse(b.cfg.JetstreamURL)
	if err != nil {
		return fmt.Errorf("bluesky: jetstream URL: %w", err)
	}
	// Tests stay hermetic, as for every platform request (HTTP.Do).
	if err := netguard.CheckLoopbackURL(u); err != nil {
		return fmt.Errorf("bluesky: %w", err)
	}
	qs := u.Query()
	qs.Set("wantedCollections", bskyPostCollection)
	qs.Set("cursor", strconv.FormatInt(start, 10))
	u.RawQuery = qs.Encode()

	scanCtx, cancel := context.WithTimeout(ctx, b.cfg.JetstreamBudget)
	defer cancel()
	conn, resp, err := websocket.Dial(scanCtx, u.String(), &websocket.DialOptions{
		HTTPClient: b.cfg.Client,
		HTTPHeader: http.Header{"User-Agent": {UserAgent}},
	})
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
			return &RateLimitedError{Source: "bluesky", Until: b.http.rateLimitUntil(resp.Header)}
		}
		return fmt.Errorf("bluesky: jetstream: %w", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(jetstreamReadLimit)
	for {
		readCtx, cancelRead := context.WithTimeout(scanCtx, b.cfg.JetstreamIdle)
		typ, data, err := conn.Read(readCtx)
		cancelRead()
		if err != nil {
			// Quiet for JetstreamIdle or the budget spent: caught up as far
			// as this scan goes. Anything else is a broken stream.
			if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("bluesky: jetstream: %w", err)
			}
			break
		}
		if typ != websocket.MessageText {
			continue
		}
		var ev jetstreamEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return fmt.Errorf("bluesky: jetstream: %w: %v", errMalformed, err)
		}
		if ev.TimeUS > sh.to {
			sh.to = ev.TimeUS
		}
		if p, ok := jetstreamPost(ev); ok && !sh.held[p.ExternalID] {
			for _, r := range sh.rules {
				if r.m.Match(p) {
					sh.hits = append(sh.hits, jetstreamHit{timeUS: ev.TimeUS, post: p})
					sh.held[p.ExternalID] = true
					break
				}
			}
		}
		if ev.TimeUS >= target {
			break // reached the time this scan started
		}
	}
	conn.Close(websocket.StatusNormalClosure, "")
	return nil
}

// jetstreamPost is the Post of a commit that creates a post.
func jetstreamPost(ev jetstreamEvent) (Post, bool) {
	c := ev.Commit
	if ev.Kind != "commit" || c == nil || c.Operation != "create" || c.Collection != bskyPostCollection ||
		ev.DID == "" || c.RKey == "" {
		return Post{}, false
	}
	published, err := wire.ParseTimestamp(c.Record.CreatedAt)
	if err != nil {
		published = time.UnixMicro(ev.TimeUS)
	}
	text, links := c.Record.expand(c.Record.Text)
	return Post{
		Source:      "bluesky",
		ExternalID:  "at://" + ev.DID + "/" + bskyPostCollection + "/" + c.RKey,
		URL:         bskyPostURL("", ev.DID, c.RKey),
		AuthorID:    ev.DID,
		Text:        strings.TrimSpace(text),
		PublishedAt: published.UTC(),
		Engagement:  map[string]int64{},
		Links:       links,
	}, true
}

// hydrate fills handle, URL and counts of Jetstream posts from the public
// AppView and drops posts it says are gone; on any error the posts stay as
// they are.
func (b *Bluesky) hydrate(ctx context.Context, posts []Post) []Post {
	if len(posts) == 0 {
		return posts
	}
	views := map[string]bskyPostView{}
	for i := 0; i < len(posts); i += bskyGetPostsBatch {
		v := url.Values{}
		for _, p := range posts[i:min(i+bskyGetPostsBatch, len(posts))] {
			v.Add("uris", p.ExternalID)
		}
		var out struct {
			Posts *[]bskyPostView `json:"posts"`
		}
		if _, err := b.get(ctx, b.publicURL, "app.bsky.feed.getPosts", v, "", &out); err != nil || out.Posts == nil {
			return posts
		}
		for _, pv := range *out.Posts {
			views[pv.URI] = pv
		}
	}
	indexed := b.cfg.Now().Add(-bskyIndexDelay)
	kept := posts[:0]
	for _, p := range posts {
		pv, ok := views[p.ExternalID]
		if !ok {
			if p.PublishedAt.Before(indexed) {
				continue // deleted, or hidden by its author or moderation
			}
			kept = append(kept, p) // too new for the AppView to have it yet
			continue
		}
		if full, err := pv.post(); err == nil {
			full.PublishedAt = p.PublishedAt
			p = full
		}
		kept = append(kept, p)
	}
	return kept
}

// watchDIDs resolves the Bluesky handles among watch_accounts to DIDs
// (Jetstream events name authors by DID only), through the public AppView,
// remembered for the process's life. A handle that does not resolve is
// skipped.
func (b *Bluesky) watchDIDs(ctx context.Context, watch []string) []string {
	var out []string
	for _, h := range watchHandles("bluesky", watch) {
		if strings.HasPrefix(h, "did:") {
			continue // matched as it is
		}
		key := strings.ToLower(h)
		b.mu.Lock()
		did, ok := b.dids[key]
		b.mu.Unlock()
		if !ok {
			var r struct {
				DID string `json:"did"`
			}
			if _, err := b.get(ctx, b.publicURL, "com.atproto.identity.resolveHandle", url.Values{"handle": {h}}, "", &r); err != nil || r.DID == "" {
				continue
			}
			did = r.DID
			b.mu.Lock()
			b.dids[key] = did
			b.mu.Unlock()
		}
		out = append(out, did)
	}
	return out
}
