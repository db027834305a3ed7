package replay

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// Replay handler of Bluesky for `earshot demo` (see replay.go): the XRPC
// endpoints the collector uses with an app password (createSession,
// refreshSession, searchPosts, getAuthorFeed), answering from
// recorded/bluesky/posts.json with the real parameters applied (q,
// since/until, cursor, limit, actor).

// BlueskyHandle is the demo's Bluesky login, and BlueskyAccount the
// brand's account the demo monitor watches.
const (
	BlueskyHandle  = "earshot-demo.bsky.social"
	BlueskyAccount = "acme.bsky.social"
)

type demoBluesky struct{ d *demoShift }

func (h demoBluesky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("RateLimit-Limit", "3000")
	w.Header().Set("RateLimit-Remaining", "2999")
	w.Header().Set("RateLimit-Reset", strconv.FormatInt(time.Now().Add(5*time.Minute).Unix(), 10))
	w.Header().Set("RateLimit-Policy", "3000;w=300")
	switch r.URL.Path {
	case "/xrpc/com.atproto.server.createSession":
		var in struct{ Identifier, Password string }
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&in) != nil || in.Identifier == "" || in.Password == "" {
			writeDemoJSON(w, http.StatusUnauthorized, map[string]string{"error": "AuthenticationRequired", "message": "Invalid identifier or password"})
			return
		}
		writeDemoJSON(w, http.StatusOK, demoBlueskySession(in.Identifier))
		return
	case "/xrpc/com.atproto.server.refreshSession":
		if r.Header.Get("Authorization") != "Bearer demo-refresh-jwt" {
			writeDemoJSON(w, http.StatusBadRequest, map[string]string{"error": "ExpiredToken", "message": "Token has expired"})
			return
		}
		writeDemoJSON(w, http.StatusOK, demoBlueskySession(BlueskyHandle))
		return
	}
	if r.Header.Get("Authorization") != "Bearer demo-access-jwt" {
		writeDemoJSON(w, http.StatusUnauthorized, map[string]string{"error": "AuthenticationRequired", "message": "Authentication Required"})
		return
	}
	var all struct {
		Posts []json.RawMessage `json:"posts"`
	}
	if err := demoJSON(h.d, "posts.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	type item struct {
		raw  json.RawMessage
		at   time.Time
		text string
		who  []string
	}
	var items []item
	for _, raw := range all.Posts {
		var pv struct {
			Author struct{ DID, Handle string } `json:"author"`
			Record struct {
				Text      string `json:"text"`
				CreatedAt string `json:"createdAt"`
			} `json:"record"`
		}
		json.Unmarshal(raw, &pv)
		at, _ := wire.ParseTimestamp(pv.Record.CreatedAt)
		items = append(items, item{raw, at, pv.Record.Text, []string{pv.Author.Handle, pv.Author.DID}})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].at.After(items[j].at) })
	q := r.URL.Query()
	var keep func(item) bool
	switch r.URL.Path {
	case "/xrpc/app.bsky.feed.searchPosts":
		terms := parseDemoTerms(q.Get("q"))
		since, _ := wire.ParseTimestamp(q.Get("since"))
		until, err := wire.ParseTimestamp(q.Get("until"))
		if err != nil {
			until = time.Now().Add(time.Hour)
		}
		keep = func(it item) bool {
			return !it.at.Before(since) && it.at.Before(until) && terms.match(it.text, "")
		}
	case "/xrpc/app.bsky.feed.getAuthorFeed":
		actor := strings.ToLower(q.Get("actor"))
		keep = func(it item) bool { return strings.EqualFold(it.who[0], actor) || strings.EqualFold(it.who[1], actor) }
	default:
		writeDemoJSON(w, http.StatusNotImplemented, map[string]string{"error": "MethodNotImplemented", "message": "Method Not Implemented"})
		return
	}
	var hits []json.RawMessage
	for _, it := range items {
		if keep(it) {
			hits = append(hits, it.raw)
		}
	}
	limit := demoInt(q.Get("limit"), 25, 1, 100)
	from := demoInt(q.Get("cursor"), 0, 0, len(hits))
	page := hits[from:min(from+limit, len(hits))]
	out := map[string]any{}
	if from+limit < len(hits) {
		out["cursor"] = strconv.Itoa(from + limit)
	}
	if r.URL.Path == "/xrpc/app.bsky.feed.searchPosts" {
		out["posts"] = append([]json.RawMessage{}, page...)
		out["hitsTotal"] = len(hits)
	} else {
		feed := []map[string]any{}
		for _, p := range page {
			feed = append(feed, map[string]any{"post": p})
		}
		out["feed"] = feed
	}
	writeDemoJSON(w, http.StatusOK, out)
}

func demoBlueskySession(handle string) map[string]any {
	return map[string]any{"accessJwt": "demo-access-jwt", "refreshJwt": "demo-refresh-jwt", "handle": handle,
		"did": "did:plc:earshotdemo00000000000001", "active": true}
}
