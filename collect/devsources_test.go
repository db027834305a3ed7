package collect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"earshot/classify"
)

// devNow is after every recorded post of the developer sources.
var devNow = time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC)

// GitHub: the search API's issues and pull requests, newest first, bounded
// by created:>=Since, with the token when there is one; a pull request is
// kind pull_request, labels are tags.
func TestGitHubSearchIssues(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		w.Header().Set("X-Ratelimit-Limit", "30")
		w.Header().Set("X-Ratelimit-Remaining", "29")
		w.Header().Set("X-Ratelimit-Resource", "search")
		if r.URL.Path == "/graphql" {
			w.Write(readFixture(t, "github/graphql_empty.json"))
			return
		}
		if strings.HasSuffix(r.URL.Path, "/comments") {
			w.Write([]byte("[]"))
			return
		}
		w.Write(readFixture(t, "github/search_issues.json"))
	}))
	defer srv.Close()
	g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Token: "ghp_test", Client: srv.Client(), Now: fixedNow(devNow)})
	since := devNow.Add(-24 * time.Hour)
	b, err := g.Fetch(context.Background(), Query{Keywords: []string{"Acme"}, WatchAccounts: []string{"@jdoe"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	var reqs []*http.Request
	for _, r := range log.all() {
		if r.URL.Path == "/search/issues" {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want one per keyword and one per account", len(reqs))
	}
	q := reqs[0].URL.Query()
	if reqs[0].URL.Path != "/search/issues" || q.Get("q") != "Acme in:title,body,comments created:>=2024-04-30T16:00:00Z" ||
		q.Get("sort") != "created" || q.Get("order") != "desc" || q.Get("per_page") != "100" ||
		reqs[0].Header.Get("Authorization") != "Bearer ghp_test" || reqs[0].Header.Get("X-Github-Api-Version") != "2022-11-28" {
		t.Errorf("request %s %v %v", reqs[0].URL, q, reqs[0].Header)
	}
	if got := reqs[1].URL.Query().Get("q"); got != "author:jdoe created:>=2024-04-30T16:00:00Z" {
		t.Errorf("account query %q", got)
	}
	if len(b.Posts) != 3 {
		t.Fatalf("%d posts, want 3 (deduped across queries)", len(b.Posts))
	}
	p := b.Posts[0]
	if p.ExternalID != "2273000001" || p.URL != "https://github.com/acme-inc/acme-cli/issues/412" || p.AuthorHandle != "jdoe" ||
		!strings.HasPrefix(p.Text, "Crash when syncing a project with more than 10k tasks\n\nRunning `acme sync`") ||
		!p.PublishedAt.Equal(time.Date(2024, 5, 1, 14, 2, 11, 0, time.UTC)) || p.Kind != "issue" || !slices.Equal(p.Tags, []string{"bug"}) ||
		p.Engagement["comments"] != 3 || p.Engagement["reactions"] != 4 {
		t.Errorf("issue %+v", p)
	}
	if b.Posts[2].Kind != "pull_request" || b.Posts[2].URL != "https://github.com/someone/dotfiles/pull/88" {
		t.Errorf("pull request %+v", b.Posts[2])
	}
	// Categories make sense: an issue labelled bug is a bug report, an
	// enhancement a product idea.
	cls := classify.NewBuiltin()
	for i, want := range []string{"bug_report", "product_idea"} {
		res, err := cls.Classify(context.Background(), classify.Input{Text: b.Posts[i].Text, Source: "github", Kind: b.Posts[i].Kind, Tags: b.Posts[i].Tags, Keywords: []string{"Acme"}})
		if err != nil || res.Category != want {
			t.Errorf("%s: category %q (%v), want %s", b.Posts[i].URL, res.Category, err, want)
		}
	}
}

// GitHub's rate limit: a 403 with x-ratelimit-remaining 0 (the body is
// GitHub's) waits for x-ratelimit-reset (epoch seconds), not a minute;
// a 422 is an error that names its status.
func TestGitHubErrors(t *testing.T) {
	reset := devNow.Add(42 * time.Second).Unix()
	srv := cannedServer(t, http.StatusForbidden, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": itoa(reset)}, "github/rate_limited_403.json")
	g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	_, err := g.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-time.Hour)})
	rl, ok := IsRateLimited(err)
	if !ok || rl.Until.Unix() != reset {
		t.Fatalf("err %v, want rate limited until %d", err, reset)
	}
	srv = cannedServer(t, http.StatusUnprocessableEntity, nil, "github/validation_422.json")
	g = NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	_, err = g.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-time.Hour)})
	// The error names the status, never the body: a platform's answer is
	// foreign content that would reach the source's status (issue 25 M1).
	if _, ok := IsRateLimited(err); ok || err == nil || !strings.Contains(err.Error(), "422") || strings.Contains(err.Error(), "Validation Failed") {
		t.Errorf("422: %v", err)
	}
}

// GitHub discussions: with a token, a GraphQL search(type: DISCUSSION)
// per query at {base}/graphql (same qualifiers as the issue search); each
// discussion is a post of kind discussion. Without a token no GraphQL call
// is made and the source status says discussions are skipped.
func TestGitHubDiscussions(t *testing.T) {
	for _, c := range []struct {
		name, token     string
		graphqlRequests int
		discussions     int
		note            string
	}{
		{"token", "ghp_test", 1, 1, ""},
		{"no token", "", 0, 0, GitHubNoDiscussions},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log requestLog
			var mu sync.Mutex // the handler runs on the server's goroutines
			var bodies []map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				log.add(r)
				switch {
				case r.Method == http.MethodPost && r.URL.Path == "/graphql":
					var body map[string]any
					if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
						t.Error(err)
					}
					mu.Lock()
					bodies = append(bodies, body)
					mu.Unlock()
					w.Write(readFixture(t, "github/graphql_discussions.json"))
				case r.URL.Path == "/search/issues":
					w.Write(readFixture(t, "github/empty.json"))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Token: c.token, Client: srv.Client(), Now: fixedNow(devNow)})
			if got := g.StatusNote(); got != c.note {
				t.Errorf("status note %q, want %q", got, c.note)
			}
			b, err := g.Fetch(context.Background(), Query{Keywords: []string{"Acme"}, Since: devNow.Add(-24 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) != c.graphqlRequests {
				t.Fatalf("%d GraphQL requests, want %d", len(bodies), c.graphqlRequests)
			}
			var kinds []string
			for _, p := range b.Posts {
				kinds = append(kinds, p.Kind)
			}
			if len(b.Posts) != c.discussions {
				t.Fatalf("posts of kinds %q, want %d discussions", kinds, c.discussions)
			}
			if c.discussions == 0 {
				return
			}
			req := log.all()[1]
			vars, _ := bodies[0]["variables"].(map[string]any)
			query, _ := bodies[0]["query"].(string)
			if req.Header.Get("Authorization") != "Bearer ghp_test" || req.Header.Get("Content-Type") != "application/json" ||
				!strings.Contains(query, "search(type: DISCUSSION") || vars["q"] != "Acme in:title,body,comments created:>=2024-04-30T16:00:00Z" {
				t.Errorf("GraphQL request %v %v", req.Header, bodies[0])
			}
			p := b.Posts[0]
			if p.ExternalID != "D_kwDOJx7h3M4AWz1P" || p.URL != "https://github.com/acme-inc/acme-cli/discussions/77" || p.Kind != "discussion" ||
				p.AuthorHandle != "ci-wrangler" || !strings.HasPrefix(p.Text, "How do you run Acme sync in CI?\n\nWe call `acme sync`") ||
				!p.PublishedAt.Equal(time.Date(2024, 5, 1, 11, 20, 45, 0, time.UTC)) || !slices.Equal(p.Tags, []string{"Q&A"}) ||
				p.Engagement["upvotes"] != 6 || p.Engagement["comments"] != 2 {
				t.Errorf("discussion %+v", p)
			}
			// The old discussion is before Since; the empty node is counted.
			if b.Skipped.Total() != 1 {
				t.Errorf("skipped %v", b.Skipped)
			}
		})
	}
}

// The discussions search is a unit of its own: when GraphQL refuses, the
// issues found are kept (a PartialError); its budget, spent (a 200 with a
// RATE_LIMITED error, or a 403 with x-ratelimit-remaining 0), waits for
// x-ratelimit-reset; any other GraphQL error names its type, never the
// platform's message.
func TestGitHubDiscussionErrors(t *testing.T) {
	reset := devNow.Add(10 * time.Minute).Unix()
	for _, c := range []struct {
		name, fixture string
		status        int
		header        map[string]string
		rateLimited   bool
		errHas        string
	}{
		{"RATE_LIMITED", "github/graphql_rate_limited.json", http.StatusOK, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": itoa(reset)}, true, ""},
		{"403 remaining 0", "github/rate_limited_403.json", http.StatusForbidden, map[string]string{"X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": itoa(reset)}, true, ""},
		{"INSUFFICIENT_SCOPES", "github/graphql_insufficient_scopes.json", http.StatusOK, nil, false, "insufficient_scopes"},
		{"401", "github/validation_422.json", http.StatusUnauthorized, nil, false, "401"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/search/issues" {
					w.Write(readFixture(t, "github/search_issues.json"))
					return
				}
				if strings.HasSuffix(r.URL.Path, "/comments") {
					w.Write([]byte("[]"))
					return
				}
				for k, v := range c.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(c.status)
				w.Write(readFixture(t, c.fixture))
			}))
			defer srv.Close()
			g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Token: "ghp_test", Client: srv.Client(), Now: fixedNow(devNow)})
			b, err := g.Fetch(context.Background(), Query{Keywords: []string{"Acme"}, Since: devNow.Add(-24 * time.Hour)})
			var pe *PartialError
			if !errors.As(err, &pe) || len(b.Posts) != 3 {
				t.Fatalf("err %v with %d posts, want a partial error keeping the 3 issues", err, len(b.Posts))
			}
			rl, ok := IsRateLimited(err)
			if ok != c.rateLimited || (ok && rl.Until.Unix() != reset) {
				t.Errorf("rate limited %v (%v), want %v until %d", ok, err, c.rateLimited, reset)
			}
			if !strings.Contains(err.Error(), c.errHas) || strings.Contains(err.Error(), "scopes to execute") || strings.Contains(err.Error(), "user ID") {
				t.Errorf("error %q: want it to name %q and quote nothing", err, c.errHas)
			}
		})
	}
}

// The GraphQL endpoint follows the REST base, GitHub Enterprise included.
func TestGitHubGraphQLURL(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.github.com":         "https://api.github.com/graphql",
		"https://api.github.com/":        "https://api.github.com/graphql",
		"https://ghe.example.com/api/v3": "https://ghe.example.com/api/graphql",
		"http://127.0.0.1:8080/github":   "http://127.0.0.1:8080/github/graphql",
	} {
		if got := GitHubGraphQLURL(base); got != want {
			t.Errorf("%s: %s, want %s", base, got, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Stack Exchange: /search/advanced (questions) and /search/excerpts
// (answers) on every configured site, fromdate = Since, the key when set;
// HTML titles and bodies become plain text; each answer is its own post.
func TestStackOverflowSearch(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		switch r.URL.Path {
		case "/search/advanced":
			w.Write(readFixture(t, "stackoverflow/search_advanced.json"))
		case "/search/excerpts":
			w.Write(readFixture(t, "stackoverflow/search_excerpts.json"))
		default:
			if strings.HasPrefix(r.URL.Path, "/posts/") { // comments: TestStackOverflowComments
				w.Write([]byte(`{"items":[],"has_more":false,"quota_max":300,"quota_remaining":285}`))
				return
			}
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s := NewStackOverflow(StackOverflowConfig{BaseURL: srv.URL, Key: "k((", Sites: "stackoverflow, serverfault", Client: srv.Client(), Now: fixedNow(devNow)})
	b, err := s.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var reqs []*http.Request
	for _, r := range log.all() {
		if strings.HasPrefix(r.URL.Path, "/search/") {
			reqs = append(reqs, r)
		}
	}
	var paths []string
	for _, r := range reqs {
		paths = append(paths, r.URL.Path+"?site="+r.URL.Query().Get("site"))
	}
	if !slices.Equal(paths, []string{"/search/advanced?site=stackoverflow", "/search/excerpts?site=stackoverflow", "/search/advanced?site=serverfault", "/search/excerpts?site=serverfault"}) {
		t.Fatalf("requests %q, want questions and answers per site", paths)
	}
	for _, r := range reqs {
		q := r.URL.Query()
		if q.Get("q") != "acme" || q.Get("fromdate") != itoa(devNow.Add(-24*time.Hour).Unix()) || q.Get("sort") != "creation" ||
			q.Get("filter") != "withbody" || q.Get("key") != "k((" {
			t.Errorf("request %s", r.URL)
		}
	}
	// Per site: two questions, one answer (the excerpts' question is the
	// advanced search's, the old answer is before Since, one has no id).
	if len(b.Posts) != 6 {
		t.Fatalf("%d posts", len(b.Posts))
	}
	if got := b.Skipped.Total(); got != 2 {
		t.Errorf("skipped %d, want the answer without id on each site", got)
	}
	p := b.Posts[0]
	if p.ExternalID != "stackoverflow:q78412001" || p.URL != "https://stackoverflow.com/questions/78412001/slug" || p.AuthorHandle != "Ana Böhm" ||
		!strings.HasPrefix(p.Text, `Acme SDK throws "invalid token" after upgrading to 4.2`) || strings.Contains(p.Text, "<code>") ||
		p.Kind != "question" || p.Engagement["answers"] != 1 || !p.PublishedAt.Equal(time.Unix(1714572000, 0).UTC()) {
		t.Errorf("question %+v", p)
	}
	a := b.Posts[2]
	if a.ExternalID != "stackoverflow:a78412077" || a.URL != "https://stackoverflow.com/a/78412077" || a.Kind != "answer" ||
		a.Text != "Acme SDK throws \"invalid token\" after upgrading to 4.2\n\nTokens changed format in 4.2. Create a new token under Settings > API and pass it to acme.NewClient; old tokens only work in the web app." ||
		!a.PublishedAt.Equal(time.Unix(1714575000, 0).UTC()) || a.Engagement["score"] != 3 || a.Engagement["accepted"] != 1 {
		t.Errorf("answer %+v", a)
	}
	if b.Posts[5].URL != "https://serverfault.com/a/78412077" || b.Posts[5].ExternalID != "serverfault:a78412077" {
		t.Errorf("serverfault answer %+v", b.Posts[5])
	}
}

// An answer's URL is on its site's host: the few with a domain of their
// own, the rest under stackexchange.com, a domain given as the site kept.
func TestStackExchangeSiteHost(t *testing.T) {
	for site, want := range map[string]string{
		"stackoverflow":          "stackoverflow.com",
		"serverfault":            "serverfault.com",
		"superuser":              "superuser.com",
		"askubuntu":              "askubuntu.com",
		"mathoverflow":           "mathoverflow.net",
		"unix":                   "unix.stackexchange.com",
		"dba":                    "dba.stackexchange.com",
		"meta.stackoverflow.com": "meta.stackoverflow.com",
	} {
		if got := StackExchangeSiteHost(site); got != want {
			t.Errorf("%s: %s, want %s", site, got, want)
		}
	}
}

// Stack Exchange's limits: a throttle_violation (HTTP 400, its real body)
// waits the seconds it names; a backoff longer than we sleep, or a spent
// daily quota, stops the scan until then.
func TestStackOverflowLimits(t *testing.T) {
	for _, c := range []struct {
		name, fixture string
		status        int
		until         time.Time
	}{
		{"throttle_violation", "stackoverflow/throttle_violation.json", http.StatusBadRequest, devNow.Add(82855 * time.Second)},
		{"backoff", "stackoverflow/backoff.json", http.StatusOK, devNow.Add(30 * time.Second)},
	} {
		srv := cannedServer(t, c.status, nil, c.fixture)
		s := NewStackOverflow(StackOverflowConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
		_, err := s.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-time.Hour)})
		rl, ok := IsRateLimited(err)
		if !ok || !rl.Until.Equal(c.until) {
			t.Errorf("%s: %v, want rate limited until %s", c.name, err, c.until)
		}
	}
}

// The answers' call has the same limits as the questions' one: a
// throttle_violation on /search/excerpts stops the scan until it passes.
func TestStackOverflowExcerptsThrottled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/search/excerpts" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write(readFixture(t, "stackoverflow/throttle_violation.json"))
			return
		}
		w.Write(readFixture(t, "stackoverflow/search_advanced.json"))
	}))
	defer srv.Close()
	s := NewStackOverflow(StackOverflowConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	_, err := s.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-time.Hour)})
	if rl, ok := IsRateLimited(err); !ok || !rl.Until.Equal(devNow.Add(82855*time.Second)) {
		t.Errorf("%v, want rate limited for the seconds the throttle names", err)
	}
}

// Discourse: each forum's /search.json with after: and order:latest; a
// post's URL is its place in the topic; the first post is the topic.
func TestDiscourseSearch(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if strings.HasPrefix(r.URL.Path, "/down/") {
			w.Header().Set("Retry-After", "600")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(readFixture(t, "discourse/rate_limit.json"))
			return
		}
		w.Write(readFixture(t, "discourse/search.json"))
	}))
	defer srv.Close()
	d := NewDiscourse(DiscourseConfig{Forums: srv.URL + "/forum/, " + srv.URL + "/down", Client: srv.Client(), Now: fixedNow(devNow)})
	if ok, _ := NewDiscourse(DiscourseConfig{}).Configured(); ok {
		t.Error("configured without forums")
	}
	b, err := d.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-24 * time.Hour)})
	var pe *PartialError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "/down") {
		t.Fatalf("err %v, want the rate-limited forum named in a partial error", err)
	}
	q := log.all()[0].URL
	if q.Path != "/forum/search.json" || q.Query().Get("q") != "acme after:2024-04-29 order:latest" {
		t.Errorf("request %s", q)
	}
	if len(b.Posts) != 2 {
		t.Fatalf("%d posts", len(b.Posts))
	}
	topic, reply := b.Posts[0], b.Posts[1]
	if topic.URL != srv.URL+"/forum/t/runbooks-in-acme/90211/1" || topic.AuthorHandle != "rita_ops" || topic.Kind != "topic" ||
		!strings.HasPrefix(topic.Text, "Runbooks in Acme?\n\nWe moved our on-call runbooks to Acme") || !strings.HasSuffix(topic.Text, "…") {
		t.Errorf("topic %+v", topic)
	}
	if reply.Kind != "reply" || reply.URL != srv.URL+"/forum/t/runbooks-in-acme/90211/4" || !slices.Equal(reply.Tags, []string{"ops", "tools"}) {
		t.Errorf("reply %+v", reply)
	}
}

// DEV has no search: the latest articles (and configured tags, watched
// authors) are read back to Since, and the pipeline's matcher keeps those
// that mention the keywords. A cross-post's canonical URL is a link.
func TestDevtoLatestArticles(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		w.Write(readFixture(t, "devto/articles_latest.json"))
	}))
	defer srv.Close()
	d := NewDevto(DevtoConfig{BaseURL: srv.URL, Tags: "#DevOps", Client: srv.Client(), Now: fixedNow(devNow)})
	q := Query{Keywords: []string{"acme"}, WatchAccounts: []string{"mariacodes"}, Since: devNow.Add(-24 * time.Hour)}
	b, err := d.Fetch(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, r := range log.all() {
		urls = append(urls, r.URL.String())
	}
	if len(urls) != 3 || !strings.HasPrefix(urls[0], "/articles/latest?") || !strings.Contains(urls[1], "tag=devops") || !strings.Contains(urls[2], "username=mariacodes") {
		t.Errorf("requests %q", urls)
	}
	if len(b.Posts) != 3 {
		t.Fatalf("%d posts, want the 3 in the window", len(b.Posts))
	}
	m := Compile(RuleFromQuery(Query{Keywords: q.Keywords}))
	var matched []string
	for _, p := range b.Posts {
		if m.Match(p) {
			matched = append(matched, p.ExternalID)
		}
	}
	if !slices.Equal(matched, []string{"1846001", "1846003"}) {
		t.Errorf("matched %q", matched)
	}
	p := b.Posts[0]
	if p.URL != "https://dev.to/mariacodes/why-we-moved-our-sprint-planning-to-acme-2ad1" && !strings.HasPrefix(p.URL, "https://dev.to/mariacodes/") ||
		!slices.Equal(p.Links, []string{"https://blog.example.com/acme-sprint-planning"}) || p.Kind != "article" || p.Engagement["reactions"] != 23 {
		t.Errorf("article %+v", p)
	}
}
