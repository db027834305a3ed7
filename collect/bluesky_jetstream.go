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

	"github.com/coder/websocket"

	"earshot/deliver"
)

// Jetstream mode (no Bluesky credentials). Jetstream is Bluesky's JSON
// firehose over a websocket: every commit on the network, filtered here to
// new app.bsky.feed.post records (wantedCollections), each stamped with
// time_us, the server's receive time in microseconds, which is also the
// cursor to resume from.
//
// A scan connects with the cursor of the monitor's previous scan (its
// State, "jetstream:<time_us>"), reads the stream until it reaches the time
// the scan started (or the stream goes quiet, or the scan's budget is
// spent), matches each post with the monitor's own rule (the matcher of the
// pipeline), and leaves the cursor of the last event read as the new State.
// So a restart resumes where the last scan stopped. The first scan of a
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

func (b *Bluesky) fetchJetstream(ctx context.Context, q Query) (Batch, error) {
	now := b.cfg.Now()
	target := now.UnixMicro()
	cursor := jetstreamCursor(q.State)
	if floor := now.Add(-b.cfg.JetstreamCatchUp).UnixMicro(); cursor != 0 && cursor < floor {
		cursor = floor
	}
	if cursor == 0 {
		cursor = target // live edge: Jetstream mode does not backfill
	}
	rule := RuleFromQuery(q)
	rule.WatchAccounts = append(append([]string(nil), q.WatchAccounts...), b.watchDIDs(ctx, q.WatchAccounts)...)
	m := Compile(rule)

	u, err := url.Parse(b.cfg.JetstreamURL)
	if err != nil {
		return Batch{}, fmt.Errorf("bluesky: jetstream URL: %w", err)
	}
	// Tests stay hermetic, as for every platform request (HTTP.Do).
	if err := deliver.CheckLoopbackURL(u); err != nil {
		return Batch{}, fmt.Errorf("bluesky: %w", err)
	}
	qs := u.Query()
	qs.Set("wantedCollections", bskyPostCollection)
	qs.Set("cursor", strconv.FormatInt(cursor, 10))
	u.RawQuery = qs.Encode()

	scanCtx, cancel := context.WithTimeout(ctx, b.cfg.JetstreamBudget)
	defer cancel()
	conn, resp, err := websocket.Dial(scanCtx, u.String(), &websocket.DialOptions{
		HTTPClient: b.cfg.Client,
		HTTPHeader: http.Header{"User-Agent": {UserAgent}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return Batch{}, ctx.Err()
		}
		if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
			return Batch{}, &RateLimitedError{Source: "bluesky", Until: b.http.rateLimitUntil(resp.Header)}
		}
		return Batch{}, fmt.Errorf("bluesky: jetstream: %w", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(jetstreamReadLimit)

	last := cursor
	read := 0
	var posts []Post
	var readErr error
	for {
		readCtx, cancelRead := context.WithTimeout(scanCtx, b.cfg.JetstreamIdle)
		typ, data, err := conn.Read(readCtx)
		cancelRead()
		if err != nil {
			if ctx.Err() != nil {
				return Batch{}, ctx.Err()
			}
			// Quiet for JetstreamIdle or the budget spent: caught up as far
			// as this scan goes. Anything else is a broken stream.
			if !errors.Is(err, context.DeadlineExceeded) {
				readErr = err
			}
			break
		}
		if typ != websocket.MessageText {
			continue
		}
		var ev jetstreamEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			readErr = fmt.Errorf("%w: %v", errMalformed, err)
			break
		}
		read++
		if ev.TimeUS > last {
			last = ev.TimeUS
		}
		if p, ok := jetstreamPost(ev); ok && m.Match(p) {
			posts = append(posts, p)
		}
		if ev.TimeUS >= target {
			break // reached the time this scan started
		}
	}
	conn.Close(websocket.StatusNormalClosure, "")
	// Events arrive in time_us order, so what was read up to the failure is
	// complete: keep it and resume after it. A stream that broke before one
	// event is a failed scan.
	if readErr != nil && read == 0 {
		return Batch{}, fmt.Errorf("bluesky: jetstream: %w", readErr)
	}
	posts = b.hydrate(ctx, posts)
	return Batch{Posts: posts, State: jetstreamStatePrefix + strconv.FormatInt(last, 10)}, nil
}

// jetstreamPost is the Post of a commit that creates a post.
func jetstreamPost(ev jetstreamEvent) (Post, bool) {
	c := ev.Commit
	if ev.Kind != "commit" || c == nil || c.Operation != "create" || c.Collection != bskyPostCollection ||
		ev.DID == "" || c.RKey == "" {
		return Post{}, false
	}
	published, err := ParseTimestamp(c.Record.CreatedAt)
	if err != nil {
		published = time.UnixMicro(ev.TimeUS)
	}
	return Post{
		Source:      "bluesky",
		ExternalID:  "at://" + ev.DID + "/" + bskyPostCollection + "/" + c.RKey,
		URL:         bskyPostURL("", ev.DID, c.RKey),
		AuthorID:    ev.DID,
		Text:        strings.TrimSpace(c.Record.Text),
		PublishedAt: published.UTC(),
		Engagement:  map[string]int64{},
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
