package replay

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"earshot/collect/wire"
)

// Replay handlers of the developer-community sources (github,
// stackoverflow, discourse, devto): the real API paths, the query's words
// and time bound applied to the recorded items, one page.

func devHandlers(fsys fs.FS) map[string]http.Handler {
	return map[string]http.Handler{
		"github":        demoGitHub{newDemoShift(fsys, "github")},
		"stackoverflow": demoStackOverflow{newDemoShift(fsys, "stackoverflow")},
		"discourse":     demoDiscourse{newDemoShift(fsys, "discourse")},
		"devto":         demoDevto{newDemoShift(fsys, "devto")},
	}
}

// demoQualifiers splits a search query into its words and its
// name:value qualifiers (GitHub's created:>=…, author:…; Discourse's
// after:…, order:…).
func demoQualifiers(q string) (words string, quals map[string]string) {
	quals = map[string]string{}
	var ws []string
	for _, f := range strings.Fields(q) {
		if k, v, ok := strings.Cut(f, ":"); ok && k != "" && !strings.Contains(k, `"`) {
			quals[strings.ToLower(k)] = v
			continue
		}
		ws = append(ws, f)
	}
	return strings.Join(ws, " "), quals
}

func demoTime(v any) time.Time {
	s, _ := v.(string)
	t, _ := wire.ParseTimestamp(s)
	return t
}

type demoGitHub struct{ d *demoShift }

func (h demoGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/graphql" && r.Method == http.MethodPost {
		h.discussions(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/repos/") && strings.HasSuffix(r.URL.Path, "/comments") {
		h.comments(w, r)
		return
	}
	if r.URL.Path != "/search/issues" {
		http.NotFound(w, r)
		return
	}
	var all struct {
		Items []map[string]any `json:"items"`
	}
	if err := demoJSON(h.d, "search_issues.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	words, quals := demoQualifiers(r.URL.Query().Get("q"))
	terms := parseDemoTerms(words)
	if a := quals["author"]; a != "" {
		terms.authors = append(terms.authors, a)
	}
	since, _ := wire.ParseTimestamp(strings.TrimPrefix(quals["created"], ">="))
	items := []map[string]any{}
	for _, it := range all.Items {
		user, _ := it["user"].(map[string]any)
		login, _ := user["login"].(string)
		title, _ := it["title"].(string)
		body, _ := it["body"].(string)
		if demoTime(it["created_at"]).Before(since) || !terms.match(title+" "+body, login) {
			continue
		}
		items = append(items, it)
	}
	if r.URL.Query().Get("page") != "1" && r.URL.Query().Get("page") != "" {
		items = []map[string]any{}
	}
	w.Header().Set("X-Ratelimit-Limit", "10")
	w.Header().Set("X-Ratelimit-Remaining", "9")
	w.Header().Set("X-Ratelimit-Resource", "search")
	writeDemoJSON(w, http.StatusOK, map[string]any{"total_count": len(items), "incomplete_results": false, "items": items})
}

// comments answers GET /repos/{owner}/{repo}/issues/{number}/comments
// from issue_comments_{owner}_{repo}_{number}.json (an issue without a
// recording has none), with since= applied to updated_at.
func (h demoGitHub) comments(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // repos, owner, repo, issues, number, comments
	if len(parts) != 6 || parts[3] != "issues" {
		http.NotFound(w, r)
		return
	}
	all := []map[string]any{}
	if name := "issue_comments_" + parts[1] + "_" + parts[2] + "_" + parts[4] + ".json"; h.d.exists(name) {
		if err := demoJSON(h.d, name, &all); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	since, _ := wire.ParseTimestamp(r.URL.Query().Get("since"))
	out := []map[string]any{}
	for _, c := range all {
		if !demoTime(c["updated_at"]).Before(since) {
			out = append(out, c)
		}
	}
	w.Header().Set("X-Ratelimit-Limit", "5000")
	w.Header().Set("X-Ratelimit-Remaining", "4999")
	w.Header().Set("X-Ratelimit-Resource", "core")
	writeDemoJSON(w, http.StatusOK, out)
}

// discussions answers the GraphQL search(type: DISCUSSION) from the
// recorded discussions, with the query's words and created:>= applied.
func (h demoGitHub) discussions(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Variables struct {
			Q     string `json:"q"`
			After string `json:"after"`
		} `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad GraphQL request", http.StatusBadRequest)
		return
	}
	var all struct {
		Data struct {
			Search struct {
				Nodes []map[string]any `json:"nodes"`
			} `json:"search"`
		} `json:"data"`
	}
	if err := demoJSON(h.d, "graphql_discussions.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	words, quals := demoQualifiers(req.Variables.Q)
	terms := parseDemoTerms(words)
	if a := quals["author"]; a != "" {
		terms.authors = append(terms.authors, a)
	}
	since, _ := wire.ParseTimestamp(strings.TrimPrefix(quals["created"], ">="))
	nodes := []map[string]any{}
	for _, n := range all.Data.Search.Nodes {
		author, _ := n["author"].(map[string]any)
		login, _ := author["login"].(string)
		title, _ := n["title"].(string)
		body, _ := n["body"].(string)
		if req.Variables.After != "" || demoTime(n["createdAt"]).Before(since) || !terms.match(title+" "+body, login) {
			continue
		}
		nodes = append(nodes, n)
	}
	w.Header().Set("X-Ratelimit-Limit", "5000")
	w.Header().Set("X-Ratelimit-Remaining", "4999")
	w.Header().Set("X-Ratelimit-Resource", "graphql")
	writeDemoJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"search":    map[string]any{"discussionCount": len(nodes), "pageInfo": map[string]any{"hasNextPage": false, "endCursor": nil}, "nodes": nodes},
		"rateLimit": map[string]any{"remaining": 4999},
	}})
}

type demoStackOverflow struct{ d *demoShift }

// ServeHTTP answers /search/advanced (questions) and /search/excerpts
// (questions and answers) from their recordings, /posts/{ids}/comments
// from the comments recorded on those posts.
func (h demoStackOverflow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ids, ok := strings.CutPrefix(r.URL.Path, "/2.3/posts/"); ok && strings.HasSuffix(ids, "/comments") {
		h.comments(w, r, strings.Split(strings.TrimSuffix(ids, "/comments"), ";"))
		return
	}
	file := map[string]string{"/2.3/search/advanced": "search_advanced.json", "/2.3/search/excerpts": "search_excerpts.json"}[r.URL.Path]
	if file == "" {
		http.NotFound(w, r)
		return
	}
	var all struct {
		Items []map[string]any `json:"items"`
	}
	if err := demoJSON(h.d, file, &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	terms := parseDemoTerms(q.Get("q"))
	from, _ := strconv.ParseFloat(q.Get("fromdate"), 64)
	items := []map[string]any{}
	for _, it := range all.Items {
		title, _ := it["title"].(string)
		body, _ := it["body"].(string)
		created, _ := it["creation_date"].(float64)
		if created < from || !terms.match(title+" "+body, "") || q.Get("site") != "stackoverflow" || demoInt(q.Get("page"), 1, 1, 100) > 1 {
			continue
		}
		items = append(items, it)
	}
	writeDemoJSON(w, http.StatusOK, map[string]any{"items": items, "has_more": false, "quota_max": 300, "quota_remaining": 299})
}

// comments answers /posts/{ids}/comments: the recorded comments on those
// posts, from fromdate.
func (h demoStackOverflow) comments(w http.ResponseWriter, r *http.Request, ids []string) {
	var all struct {
		Items []map[string]any `json:"items"`
	}
	if err := demoJSON(h.d, "post_comments.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	from, _ := strconv.ParseFloat(q.Get("fromdate"), 64)
	items := []map[string]any{}
	for _, it := range all.Items {
		post, _ := it["post_id"].(float64)
		created, _ := it["creation_date"].(float64)
		if created < from || !slices.Contains(ids, strconv.FormatInt(int64(post), 10)) || q.Get("site") != "stackoverflow" || demoInt(q.Get("page"), 1, 1, 100) > 1 {
			continue
		}
		items = append(items, it)
	}
	writeDemoJSON(w, http.StatusOK, map[string]any{"items": items, "has_more": false, "quota_max": 300, "quota_remaining": 298})
}

type demoDiscourse struct{ d *demoShift }

func (h demoDiscourse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/search.json" {
		http.NotFound(w, r)
		return
	}
	var all map[string]any
	if err := demoJSON(h.d, "search.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	words, quals := demoQualifiers(r.URL.Query().Get("q"))
	terms := parseDemoTerms(words)
	after, _ := time.Parse(time.DateOnly, quals["after"])
	posts := []any{}
	if demoInt(r.URL.Query().Get("page"), 1, 1, 100) == 1 {
		all, _ := all["posts"].([]any)
		for _, p := range all {
			m, _ := p.(map[string]any)
			blurb, _ := m["blurb"].(string)
			title, _ := m["topic_title_headline"].(string)
			user, _ := m["username"].(string)
			if demoTime(m["created_at"]).Before(after) || !terms.match(title+" "+blurb, user) {
				continue
			}
			posts = append(posts, m)
		}
	}
	all["posts"] = posts
	writeDemoJSON(w, http.StatusOK, all)
}

type demoDevto struct{ d *demoShift }

func (h demoDevto) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/articles/latest" && r.URL.Path != "/api/articles" {
		http.NotFound(w, r)
		return
	}
	var all []map[string]any
	if err := demoJSON(h.d, "articles_latest.json", &all); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	q := r.URL.Query()
	out := []map[string]any{}
	if demoInt(q.Get("page"), 1, 1, 1000) == 1 {
		for _, a := range all {
			user, _ := a["user"].(map[string]any)
			name, _ := user["username"].(string)
			tags, _ := a["tags"].(string)
			if u := q.Get("username"); u != "" && !strings.EqualFold(u, name) {
				continue
			}
			if t := q.Get("tag"); t != "" && !strings.Contains(", "+tags+",", ", "+t+",") {
				continue
			}
			out = append(out, a)
		}
	}
	writeDemoJSON(w, http.StatusOK, out)
}
