package replay

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// Replay handlers of hn, reddit, youtube and x for `earshot demo`. Each
// source's fixture under recorded/<source>/ holds every demo post in
// the platform's own response shape, with timestamps shifted (demoShift) so
// the newest is minutes old. The handlers answer the real API paths and
// apply the real parameters (time filters, since_id, paging, query terms) so
// the real collectors, incremental state included, behave as in production.

// searchHandlers returns the handlers of hn, reddit, youtube and x, keyed
// by source name; NewHandler mounts each under /<source>. fsys is rooted at
// recorded/.
func searchHandlers(fsys fs.FS) map[string]http.Handler {
	return map[string]http.Handler{
		"hn":      demoHN{newDemoShift(fsys, "hn")},
		"reddit":  demoReddit{newDemoShift(fsys, "reddit")},
		"youtube": demoYouTube{newDemoShift(fsys, "youtube")},
		"x":       demoX{newDemoShift(fsys, "x")},
	}
}

// demoTerms reads a platform query loosely: the words it looks for and the
// authors it names (author:, from:, author_ tags). Operators are dropped.
// An item matches when it holds any word or is by any named author.
type demoTerms struct {
	words   []string
	authors []string
}

func parseDemoTerms(q string) demoTerms {
	var t demoTerms
	q = strings.NewReplacer(`"`, " ", "(", " ", ")", " ", "|", " ").Replace(q)
	for _, f := range strings.Fields(q) {
		lf := strings.ToLower(f)
		switch {
		case lf == "or" || lf == "and" || strings.HasPrefix(lf, "-"):
		case strings.HasPrefix(lf, "author:"):
			t.authors = append(t.authors, strings.TrimPrefix(lf, "author:"))
		case strings.HasPrefix(lf, "from:"):
			t.authors = append(t.authors, strings.TrimPrefix(lf, "from:"))
		default:
			t.words = append(t.words, strings.TrimLeft(lf, "@#$"))
		}
	}
	return t
}

func (t demoTerms) match(text, author string) bool {
	if len(t.words) == 0 && len(t.authors) == 0 {
		return true
	}
	for _, a := range t.authors {
		if strings.EqualFold(a, author) {
			return true
		}
	}
	text = strings.ToLower(text)
	for _, w := range t.words {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// demoJSON decodes a shifted fixture into v.
func demoJSON(d *demoShift, name string, v any) error {
	b, err := d.file(name)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func writeDemoJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func demoInt(s string, def, lo, hi int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return max(lo, min(n, hi))
}

// --- Hacker News (Algolia) ---

type demoHN struct{ d *demoShift }

func (h demoHN) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/search_by_date") && !strings.HasSuffix(r.URL.Path, "/search") {
		http.NotFound(w, r)
		return
	}
	var all struct {
		Hits []map[string]any `json:"hits"`
	}
	if err := demoJSON(h.d, "search_by_date.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	terms := parseDemoTerms(q.Get("query"))
	for _, tag := range strings.Split(q.Get("tags"), ",") {
		if a, ok := strings.CutPrefix(tag, "author_"); ok {
			terms.authors = append(terms.authors, a)
		}
	}
	lo, hi := int64(0), int64(1<<62)
	for _, c := range strings.Split(q.Get("numericFilters"), ",") {
		c = strings.ReplaceAll(c, " ", "")
		if v, ok := strings.CutPrefix(c, "created_at_i<="); ok {
			hi, _ = strconv.ParseInt(v, 10, 64)
		} else if v, ok := strings.CutPrefix(c, "created_at_i<"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			hi = n - 1
		} else if v, ok := strings.CutPrefix(c, "created_at_i>="); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			lo = n - 1
		} else if v, ok := strings.CutPrefix(c, "created_at_i>"); ok {
			lo, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	hits := []map[string]any{}
	for _, hit := range all.Hits {
		ts, _ := hit["created_at_i"].(float64)
		if int64(ts) <= lo || int64(ts) > hi {
			continue
		}
		var text []string
		for _, k := range []string{"title", "story_text", "comment_text"} {
			if s, ok := hit[k].(string); ok {
				text = append(text, s)
			}
		}
		author, _ := hit["author"].(string)
		if terms.match(strings.Join(text, " "), author) {
			hits = append(hits, hit)
		}
	}
	perPage := demoInt(q.Get("hitsPerPage"), 20, 1, 1000)
	page := demoInt(q.Get("page"), 0, 0, 1<<20)
	nbPages := (len(hits) + perPage - 1) / perPage
	start, end := min(page*perPage, len(hits)), min((page+1)*perPage, len(hits))
	writeDemoJSON(w, http.StatusOK, map[string]any{
		"hits": hits[start:end], "nbHits": len(hits), "page": page, "nbPages": nbPages, "hitsPerPage": perPage,
		"exhaustiveNbHits": true, "query": q.Get("query"), "params": r.URL.RawQuery, "processingTimeMS": 1,
	})
}

// --- Reddit ---

type demoReddit struct{ d *demoShift }

func (h demoReddit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/v1/access_token":
		if _, _, ok := r.BasicAuth(); !ok || r.Method != http.MethodPost {
			writeDemoJSON(w, http.StatusUnauthorized, map[string]any{"message": "Unauthorized", "error": 401})
			return
		}
		writeDemoJSON(w, http.StatusOK, map[string]any{"access_token": "demo-reddit-token", "token_type": "bearer", "expires_in": 86400, "scope": "*"})
		return
	case "/search", "/search.json":
	default:
		http.NotFound(w, r)
		return
	}
	var all redditDemoListing
	if err := demoJSON(h.d, "search.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	terms := parseDemoTerms(q.Get("q"))
	limit := demoInt(q.Get("limit"), 25, 1, 100)
	after := q.Get("after")
	var matched []json.RawMessage
	skipping := after != ""
	for _, c := range all.Data.Children {
		var t struct {
			Name, Title, Selftext, Author string
		}
		json.Unmarshal(c.Data, &t)
		if skipping {
			skipping = t.Name != after
			continue
		}
		if terms.match(t.Title+" "+t.Selftext, t.Author) {
			matched = append(matched, c.Data)
		}
	}
	children := []map[string]any{}
	var next any
	for i, m := range matched {
		if i == limit {
			var t struct{ Name string }
			json.Unmarshal(matched[i-1], &t)
			next = t.Name
			break
		}
		children = append(children, map[string]any{"kind": "t3", "data": m})
	}
	w.Header().Set("X-Ratelimit-Used", "1")
	w.Header().Set("X-Ratelimit-Remaining", "99.0")
	w.Header().Set("X-Ratelimit-Reset", "60")
	writeDemoJSON(w, http.StatusOK, map[string]any{"kind": "Listing", "data": map[string]any{
		"after": next, "dist": len(children), "modhash": "", "geo_filter": "", "children": children, "before": nil}})
}

type redditDemoListing struct {
	Data struct {
		Children []struct {
			Data json.RawMessage `json:"data"`
		} `json:"children"`
	} `json:"data"`
}

// --- YouTube Data API ---

type demoYouTube struct{ d *demoShift }

func (h demoYouTube) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("key") == "" {
		writeDemoJSON(w, http.StatusForbidden, map[string]any{"error": map[string]any{"code": 403,
			"message": "The request is missing a valid API key.", "errors": []map[string]string{{
				"message": "The request is missing a valid API key.", "domain": "global", "reason": "forbidden"}}, "status": "PERMISSION_DENIED"}})
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/search"):
		h.search(w, q)
	case strings.HasSuffix(r.URL.Path, "/videos"):
		h.videos(w, q.Get("id"))
	default:
		http.NotFound(w, r)
	}
}

func (h demoYouTube) search(w http.ResponseWriter, q map[string][]string) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	var all struct {
		Items []struct {
			ID      struct{ VideoID string } `json:"id"`
			Snippet struct {
				PublishedAt, Title, Description, ChannelTitle string
			} `json:"snippet"`
		} `json:"items"`
	}
	var raw struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := demoJSON(h.d, "search.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	demoJSON(h.d, "search.json", &raw)
	after, _ := time.Parse(time.RFC3339, get("publishedAfter"))
	terms := parseDemoTerms(get("q"))
	var items []json.RawMessage
	for i, it := range all.Items {
		t, _ := time.Parse(time.RFC3339, it.Snippet.PublishedAt)
		if t.Before(after) || !terms.match(it.Snippet.Title+" "+it.Snippet.Description, it.Snippet.ChannelTitle) {
			continue
		}
		items = append(items, raw.Items[i])
	}
	per := demoInt(get("maxResults"), 5, 0, 50)
	start := 0
	if tok := get("pageToken"); tok != "" {
		start = demoInt(strings.TrimPrefix(tok, "DEMO"), 0, 0, len(items))
	}
	end := min(start+per, len(items))
	resp := map[string]any{"kind": "youtube#searchListResponse", "etag": "demo-" + strconv.Itoa(start), "regionCode": "US",
		"pageInfo": map[string]int{"totalResults": len(items), "resultsPerPage": per}, "items": append([]json.RawMessage{}, items[min(start, end):end]...)}
	if end < len(items) {
		resp["nextPageToken"] = "DEMO" + strconv.Itoa(end)
	}
	writeDemoJSON(w, http.StatusOK, resp)
}

func (h demoYouTube) videos(w http.ResponseWriter, ids string) {
	var all struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := demoJSON(h.d, "videos.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[id] = true
	}
	items := []json.RawMessage{}
	for _, it := range all.Items {
		var v struct{ ID string }
		json.Unmarshal(it, &v)
		if want[v.ID] {
			items = append(items, it)
		}
	}
	writeDemoJSON(w, http.StatusOK, map[string]any{"kind": "youtube#videoListResponse", "etag": "demo-videos", "items": items,
		"pageInfo": map[string]int{"totalResults": len(items), "resultsPerPage": len(items)}})
}

// --- X API v2 recent search ---

type demoX struct{ d *demoShift }

type demoTweet struct {
	ID                  string           `json:"id"`
	Text                string           `json:"text"`
	AuthorID            string           `json:"author_id"`
	CreatedAt           string           `json:"created_at"`
	EditHistoryTweetIDs []string         `json:"edit_history_tweet_ids"`
	PublicMetrics       map[string]int64 `json:"public_metrics,omitempty"`
}

func (h demoX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") || len(r.Header.Get("Authorization")) <= len("Bearer ") {
		writeDemoJSON(w, http.StatusUnauthorized, map[string]any{"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"})
		return
	}
	if r.URL.Path != "/2/tweets/search/recent" {
		http.NotFound(w, r)
		return
	}
	var all struct {
		Data     []demoTweet `json:"data"`
		Includes struct {
			Users []struct {
				ID       string `json:"id"`
				Username string `json:"username"`
			} `json:"users"`
		} `json:"includes"`
	}
	var rawUsers struct {
		Includes struct {
			Users []json.RawMessage `json:"users"`
		} `json:"includes"`
	}
	if err := demoJSON(h.d, "search_recent.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	demoJSON(h.d, "search_recent.json", &rawUsers)
	names := map[string]string{}
	for _, u := range all.Includes.Users {
		names[u.ID] = u.Username
	}
	q := r.URL.Query()
	terms := parseDemoTerms(q.Get("query"))
	start, _ := time.Parse(time.RFC3339, q.Get("start_time"))
	sinceID := q.Get("since_id")
	var tweets []demoTweet
	for i, t := range all.Data {
		created, err := time.Parse(time.RFC3339, t.CreatedAt)
		if err != nil {
			continue
		}
		// Ids are snowflakes of the shifted time, so since_id works.
		ms := uint64(created.UnixMilli() - wire.TwitterEpochMS)
		t.ID = strconv.FormatUint(ms<<22|uint64(i+1), 10)
		t.EditHistoryTweetIDs = []string{t.ID}
		if created.Before(start) || (sinceID != "" && !wire.NewerID(t.ID, sinceID)) ||
			!terms.match(t.Text, names[t.AuthorID]) {
			continue
		}
		tweets = append(tweets, t)
	}
	per := demoInt(q.Get("max_results"), 10, 10, 100)
	from := 0
	if tok := q.Get("next_token"); tok != "" {
		from = demoInt(strings.TrimPrefix(tok, "demo"), 0, 0, len(tweets))
	}
	page := tweets[from:min(from+per, len(tweets))]
	w.Header().Set("x-rate-limit-limit", "450")
	w.Header().Set("x-rate-limit-remaining", "449")
	w.Header().Set("x-rate-limit-reset", strconv.FormatInt(time.Now().Add(15*time.Minute).Unix(), 10))
	if len(page) == 0 {
		writeDemoJSON(w, http.StatusOK, map[string]any{"meta": map[string]any{"result_count": 0}})
		return
	}
	ids := map[string]bool{}
	for _, t := range page {
		ids[t.AuthorID] = true
	}
	users := []json.RawMessage{}
	for i, u := range all.Includes.Users {
		if ids[u.ID] {
			users = append(users, rawUsers.Includes.Users[i])
		}
	}
	meta := map[string]any{"newest_id": page[0].ID, "oldest_id": page[len(page)-1].ID, "result_count": len(page)}
	if from+per < len(tweets) {
		meta["next_token"] = fmt.Sprintf("demo%d", from+per)
	}
	writeDemoJSON(w, http.StatusOK, map[string]any{"data": page, "includes": map[string]any{"users": users}, "meta": meta})
}
