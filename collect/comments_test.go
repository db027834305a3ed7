package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"earshot/internal/replay"
	"earshot/store"
)

// githubCommentsServer answers the issue search with fixture and every
// issue's comments with github/issue_comments.json (or with refuse, when
// set, the comments calls only).
func githubCommentsServer(t *testing.T, log *requestLog, fixture string, refuse http.HandlerFunc) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		switch {
		case r.URL.Path == "/search/issues":
			w.Write(readFixture(t, fixture))
		case strings.HasPrefix(r.URL.Path, "/repos/") && strings.HasSuffix(r.URL.Path, "/comments"):
			if refuse != nil {
				refuse(w, r)
				return
			}
			w.Write(readFixture(t, "github/issue_comments.json"))
		default:
			http.NotFound(w, r)
		}
	}))
}

func commentRequests(log *requestLog) []*http.Request {
	var out []*http.Request
	for _, r := range log.all() {
		if strings.HasSuffix(r.URL.Path, "/comments") {
			out = append(out, r)
		}
	}
	return out
}

// GitHub's issue search matches comments too: an issue found through one
// of its comments has its comments read (GET …/issues/{n}/comments with
// since = the window's start) and each comment is a post of its own, with
// the comment's id, link, author and date; a comment written before the
// window (edited in it) is not new.
func TestGitHubIssueComments(t *testing.T) {
	var log requestLog
	srv := githubCommentsServer(t, &log, "github/search_issues_in_comments.json", nil)
	defer srv.Close()
	g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	b, err := g.Fetch(context.Background(), Query{Keywords: []string{"Acme"}, Since: devNow.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	reqs := commentRequests(&log)
	if len(reqs) != 1 || reqs[0].URL.Path != "/repos/someone/homelab/issues/7/comments" ||
		reqs[0].URL.Query().Get("since") != "2024-04-30T16:00:00Z" || reqs[0].URL.Query().Get("per_page") != "100" {
		t.Fatalf("comment requests %v", reqs)
	}
	var ids []string
	for _, p := range b.Posts {
		ids = append(ids, p.ExternalID)
	}
	if !slices.Equal(ids, []string{"2273000007", "comment-2089000102", "comment-2089000103"}) {
		t.Fatalf("posts %q, want the issue and its two comments of the window", ids)
	}
	c := b.Posts[1]
	if c.URL != "https://github.com/someone/homelab/issues/7#issuecomment-2089000102" || c.AuthorHandle != "mira-ops" || c.Kind != "comment" ||
		!strings.HasPrefix(c.Text, "We moved our chores board to Acme") || !c.PublishedAt.Equal(time.Date(2024, 5, 1, 13, 5, 42, 0, time.UTC)) ||
		c.Engagement["reactions"] != 2 || len(c.Tags) != 0 {
		t.Errorf("comment %+v", c)
	}
}

// Through the pipeline: the issue does not name the brand, one of its
// comments does; only that comment is stored.
func TestSchedulerStoresGitHubCommentOnly(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	var log requestLog
	srv := githubCommentsServer(t, &log, "github/search_issues_in_comments.json", nil)
	defer srv.Close()
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Sources = []string{"github"}
		m.BackfillHours = 24 * 365 * 20
	})
	g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client()})
	s, _ := newTestScheduler(f, registryOf(g), SchedulerConfig{})
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := f.st.ListMentions(ctx, store.MentionFilter{ProjectID: f.project.ID}, nil, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].URL != "https://github.com/someone/homelab/issues/7#issuecomment-2089000102" {
		var urls []string
		for _, x := range ms {
			urls = append(urls, x.URL)
		}
		t.Fatalf("stored %q, want only the comment naming Acme", urls)
	}
	if st := sourceStatus(t, f, m, "github"); st.Status != "ok" || st.LastScan == nil || st.LastScan.Stored != 1 || st.LastScan.Read != 4 {
		t.Errorf("status %+v %+v", st, st.LastScan)
	}
}

// A scan makes at most MaxCommentFetches comment calls, for the issues
// updated most recently; the issues left unread are noted, so the summary
// says comments were not read.
func TestGitHubCommentFetchCap(t *testing.T) {
	var items []map[string]any
	for i := range 12 {
		items = append(items, map[string]any{
			"id": 3000 + i, "number": 100 + i, "html_url": fmt.Sprintf("https://github.com/acme-inc/acme-cli/issues/%d", 100+i),
			"repository_url": "https://api.github.com/repos/acme-inc/acme-cli", "title": "Acme issue", "body": "", "comments": 1,
			"created_at": "2024-05-01T08:00:00Z", "updated_at": devNow.Add(-time.Duration(i+1) * time.Minute).Format(time.RFC3339),
		})
	}
	page, _ := json.Marshal(map[string]any{"total_count": len(items), "incomplete_results": false, "items": items})
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.URL.Path == "/search/issues" {
			w.Write(page)
			return
		}
		w.Write([]byte("[]"))
	}))
	defer srv.Close()
	g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	b, err := g.Fetch(context.Background(), Query{Keywords: []string{"Acme"}, Since: devNow.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	reqs := commentRequests(&log)
	if len(reqs) != githubCommentFetches || reqs[0].URL.Path != "/repos/acme-inc/acme-cli/issues/100/comments" ||
		reqs[9].URL.Path != "/repos/acme-inc/acme-cli/issues/109/comments" {
		t.Fatalf("%d comment calls (first %v), want %d, most recently updated first", len(reqs), reqs[0].URL, githubCommentFetches)
	}
	var noted []string
	for _, p := range b.Posts {
		if p.Note == NoteGitHubCommentsCapped {
			noted = append(noted, p.URL)
		}
	}
	if !slices.Equal(noted, []string{"https://github.com/acme-inc/acme-cli/issues/110", "https://github.com/acme-inc/acme-cli/issues/111"}) {
		t.Errorf("noted %q", noted)
	}
}

// The comment calls stop when GitHub's REST budget falls to its reserve,
// before it is refused (a refusal would pause the whole source): the
// scan succeeds, and the issues whose comments were left are noted.
func TestGitHubCommentsKeepBudgetReserve(t *testing.T) {
	for _, tc := range []struct {
		token     string
		remaining string
		calls     int
	}{
		{"", "11", 2},     // above the anonymous reserve: both issues with comments
		{"", "10", 1},     // at it: the first call only
		{"tok", "150", 2}, // a token's reserve is 100
		{"tok", "100", 1},
	} {
		var log requestLog
		srv := githubCommentsServer(t, &log, "github/search_issues.json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Ratelimit-Remaining", tc.remaining)
			w.Write(readFixture(t, "github/issue_comments.json"))
		})
		g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow), Token: tc.token})
		q := Query{Keywords: []string{"Acme"}, Since: devNow.Add(-24 * time.Hour)}
		var b Batch
		var err error
		if tc.token == "" {
			b, err = g.Fetch(context.Background(), q)
		} else {
			// Fetch would go on to the discussions' GraphQL call, which
			// this server does not answer; the comments part alone.
			var items []githubItem
			b, items, err = g.fetchIssues(context.Background(), q)
			if err == nil {
				err = g.fetchComments(context.Background(), q, items, &b)
			}
		}
		srv.Close()
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if n := len(commentRequests(&log)); n != tc.calls {
			t.Errorf("%+v: %d comment calls, want %d", tc, n, tc.calls)
		}
		budget := 0
		for _, p := range b.Posts {
			if p.Note == NoteGitHubCommentsBudget {
				budget++
			}
		}
		if want := 2 - tc.calls; budget != want {
			t.Errorf("%+v: %d issues noted for the budget, want %d", tc, budget, want)
		}
	}
}

// GitHub refuses the comments call with its rate-limit 403
// (x-ratelimit-remaining 0): the issues found are kept and stored, the
// source is rate limited until x-ratelimit-reset, and the scan's summary
// says whose comments were not read.
func TestGitHubCommentsRateLimitedKeepsIssues(t *testing.T) {
	var resetAt atomic.Int64 // epoch seconds, near each part's clock
	reset := devNow.Add(20 * time.Minute).Unix()
	resetAt.Store(reset)
	refuse := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Remaining", "0")
		w.Header().Set("X-Ratelimit-Reset", itoa(resetAt.Load()))
		w.WriteHeader(http.StatusForbidden)
		w.Write(readFixture(t, "github/rate_limited_403.json"))
	}
	var log requestLog
	srv := githubCommentsServer(t, &log, "github/search_issues.json", refuse)
	defer srv.Close()
	g := NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	b, err := g.Fetch(context.Background(), Query{Keywords: []string{"Acme"}, Since: devNow.Add(-24 * time.Hour)})
	var pe *PartialError
	rl, ok := IsRateLimited(err)
	if !errors.As(err, &pe) || !ok || rl.Until.Unix() != reset || len(b.Posts) != 3 {
		t.Fatalf("err %v with %d posts, want a rate-limited partial error keeping the 3 issues", err, len(b.Posts))
	}
	if n := len(commentRequests(&log)); n != 1 {
		t.Errorf("%d comment calls after the refusal, want 1", n)
	}
	notes := map[string]string{}
	for _, p := range b.Posts {
		notes[p.ExternalID] = p.Note
	}
	// 412 and 413 have comments; the pull request has none.
	if notes["2273000001"] != NoteGitHubCommentsRefused || notes["2273000002"] != NoteGitHubCommentsRefused || notes["2273000003"] != "" {
		t.Errorf("notes %q", notes)
	}

	// Through the scheduler: stored, rate limited, the summary says so.
	ctx := context.Background()
	f := newFixture(t)
	m := f.monitor(t, f.project.ID, func(m *store.Monitor) {
		m.Sources = []string{"github"}
		m.BackfillHours = 24 * 365 * 20
	})
	var clk *clock
	g = NewGitHub(GitHubConfig{BaseURL: srv.URL, Client: srv.Client(), Now: func() time.Time { return clk.now() }})
	s, clk := newTestScheduler(f, registryOf(g), SchedulerConfig{})
	resetAt.Store(clk.now().Add(20 * time.Minute).Unix())
	if _, err := s.ScanDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := mentionCount(t, f, "github"); n != 3 {
		t.Errorf("%d mentions stored, want the 3 issues", n)
	}
	st := sourceStatus(t, f, m, "github")
	if st.Status != "rate_limited" || st.LastScan == nil || st.LastScan.Notes[NoteGitHubCommentsRefused] != 2 ||
		!strings.Contains(st.LastScan.Summary, NoteGitHubCommentsRefused) {
		t.Errorf("status %+v last scan %+v, want rate_limited with the unread comments noted", st, st.LastScan)
	}
}

// Stack Exchange: the comments of the questions and answers found are read
// in one call per site for up to 100 posts (GET /posts/{ids}/comments, ids
// joined by ';', newest first), with the same key, site, fromdate and
// body filter; each comment is a post at its parent's link with the
// site's #comment{id}_{post} anchor, its HTML made plain text.
func TestStackOverflowComments(t *testing.T) {
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		switch {
		case r.URL.Path == "/search/advanced":
			w.Write(readFixture(t, "stackoverflow/search_advanced.json"))
		case r.URL.Path == "/search/excerpts":
			w.Write(readFixture(t, "stackoverflow/search_excerpts.json"))
		case strings.HasPrefix(r.URL.Path, "/posts/"):
			w.Write(readFixture(t, "stackoverflow/post_comments.json"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	since := devNow.Add(-24 * time.Hour)
	s := NewStackOverflow(StackOverflowConfig{BaseURL: srv.URL, Key: "k((", Client: srv.Client(), Now: fixedNow(devNow)})
	b, err := s.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	reqs := log.all()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want questions, answers and one comments call", len(reqs))
	}
	c := reqs[2]
	q := c.URL.Query()
	if c.URL.Path != "/posts/78412077;78412001;78411870/comments" || q.Get("site") != "stackoverflow" || q.Get("filter") != "withbody" ||
		q.Get("sort") != "creation" || q.Get("fromdate") != itoa(since.Unix()) || q.Get("key") != "k((" {
		t.Errorf("comments request %s", c.URL)
	}
	byID := map[string]Post{}
	for _, p := range b.Posts {
		byID[p.ExternalID] = p
	}
	if len(b.Posts) != 6 {
		t.Fatalf("%d posts, want 3 questions and answers and 3 comments", len(b.Posts))
	}
	qc := byID["stackoverflow:c138200001"]
	if qc.URL != "https://stackoverflow.com/questions/78412001/slug#comment138200001_78412001" || qc.AuthorHandle != "tokenwrangler" ||
		qc.Kind != "comment" || qc.Text != "Are you on acme-sdk 4.2.1? The token fix shipped there." || qc.Engagement["score"] != 3 ||
		!qc.PublishedAt.Equal(time.Unix(1714573000, 0).UTC()) {
		t.Errorf("question comment %+v", qc)
	}
	if ac := byID["stackoverflow:c138200002"]; ac.URL != "https://stackoverflow.com/a/78412077#comment138200002_78412077" || ac.AuthorHandle != "Ana Böhm" {
		t.Errorf("answer comment %+v", ac)
	}
	if hc := byID["stackoverflow:c138200003"]; strings.Contains(hc.Text, "<") || !strings.HasPrefix(hc.Text, "Acme's docs have a pagination guide") {
		t.Errorf("HTML comment %+v", hc)
	}
	// The matcher keeps the comments that name the keyword.
	m := Compile(RuleFromQuery(Query{Keywords: []string{"acme"}}))
	var matched []string
	for _, p := range b.Posts {
		if p.Kind == "comment" && m.Match(p) {
			matched = append(matched, p.ExternalID)
		}
	}
	slices.Sort(matched)
	if !slices.Equal(matched, []string{"stackoverflow:c138200001", "stackoverflow:c138200003"}) {
		t.Errorf("matched comments %q", matched)
	}
}

// More than 100 posts take one comments call per 100; a throttled
// comments call keeps the questions and answers (a rate-limited partial
// error) and notes the posts whose comments were not read.
func TestStackOverflowCommentsBatchesAndThrottle(t *testing.T) {
	var qs []map[string]any
	for i := range 150 {
		qs = append(qs, map[string]any{"question_id": 1000 + i, "title": "acme", "body": "<p>acme</p>", "link": fmt.Sprintf("https://stackoverflow.com/questions/%d/x", 1000+i),
			"creation_date": devNow.Add(-time.Hour).Unix()})
	}
	page, _ := json.Marshal(map[string]any{"items": qs, "has_more": false, "quota_max": 300, "quota_remaining": 200})
	var log requestLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		switch {
		case r.URL.Path == "/search/advanced":
			w.Write(page)
		case r.URL.Path == "/search/excerpts":
			w.Write([]byte(`{"items":[],"has_more":false,"quota_max":300,"quota_remaining":199}`))
		case strings.HasPrefix(r.URL.Path, "/posts/1049;"): // the second batch
			w.WriteHeader(http.StatusBadRequest)
			w.Write(readFixture(t, "stackoverflow/throttle_violation.json"))
		default:
			w.Write([]byte(`{"items":[],"has_more":false,"quota_max":300,"quota_remaining":198}`))
		}
	}))
	defer srv.Close()
	s := NewStackOverflow(StackOverflowConfig{BaseURL: srv.URL, Client: srv.Client(), Now: fixedNow(devNow)})
	b, err := s.Fetch(context.Background(), Query{Keywords: []string{"acme"}, Since: devNow.Add(-24 * time.Hour)})
	var pe *PartialError
	if rl, ok := IsRateLimited(err); !errors.As(err, &pe) || !ok || !rl.Until.Equal(devNow.Add(82855*time.Second)) || len(b.Posts) != 150 {
		t.Fatalf("err %v with %d posts, want a rate-limited partial error keeping the 150 questions", err, len(b.Posts))
	}
	var calls []string
	for _, r := range log.all() {
		if strings.HasPrefix(r.URL.Path, "/posts/") {
			calls = append(calls, r.URL.Path)
		}
	}
	if len(calls) != 2 || strings.Count(calls[0], ";") != 99 || !strings.HasPrefix(calls[0], "/posts/1149;1148;") || !strings.HasSuffix(calls[1], ";1000/comments") {
		t.Fatalf("comment calls %q, want 100 ids then 50", calls)
	}
	noted := 0
	for _, p := range b.Posts {
		if p.Note == NoteStackExchangeCommentsRefused {
			noted++
		}
	}
	if noted != 50 {
		t.Errorf("%d posts noted, want the 50 of the refused call", noted)
	}
}

// The demo's replay server serves the comments endpoints from its
// recordings: the demo's GitHub and Stack Overflow scans read comments,
// and those that name the brand pass the matcher.
func TestReplayServesComments(t *testing.T) {
	srv := httptest.NewServer(replay.NewHandler())
	defer srv.Close()
	reg := NewRegistry(DemoConfig(srv.URL, replay.BlueskyHandle), srv.Client())
	m := Compile(RuleFromQuery(Query{Keywords: []string{"Acme"}}))
	for source, want := range map[string]string{
		"github":        "https://github.com/acme-inc/acme-cli/issues/412#issuecomment-2089000013",
		"stackoverflow": "https://stackoverflow.com/a/78412077#comment138200011_78412077",
	} {
		c, _ := reg.Get(source)
		b, err := c.Fetch(context.Background(), demoQuery(srv.URL, time.Now().Add(-5*24*time.Hour)))
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		var comments, matched []string
		for _, p := range b.Posts {
			if p.Kind == "comment" {
				comments = append(comments, p.URL)
				if m.Match(p) {
					matched = append(matched, p.URL)
				}
			}
		}
		if !slices.Equal(matched, []string{want}) || len(comments) < 2 {
			t.Errorf("%s: comments %q, matched %q, want %s among others", source, comments, matched, want)
		}
	}
}
