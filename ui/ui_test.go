package ui_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/server"
	"earshot/store"
	"earshot/store/storetest"
)

// env is a real server on a temp data dir with one owner, one project and
// some mentions.
type env struct {
	t     *testing.T
	st    *store.Store
	svc   *capability.Service
	http  *httptest.Server
	owner *store.User
	proj  *store.Project
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st := storetest.Open(t)
	e := &env{t: t, st: st}
	e.http = httptest.NewUnstartedServer(nil)
	base := "http://" + e.http.Listener.Addr().String()
	e.svc = capability.New(st, capability.Config{BaseURL: base, PlanQuotas: map[string]int{"trial": 1000}, AllowPrivateWebhooks: true}, slog.New(slog.DiscardHandler))
	e.http.Config.Handler = server.New(e.svc, nil, server.Options{RateLimit: 10000, RateBurst: 10000})
	e.http.Start()
	t.Cleanup(e.http.Close)
	return e
}

// ownerClient is a fresh env seeded with n mentions and a client logged in
// as its owner: the start of most dashboard tests.
func ownerClient(t *testing.T, n int) (*env, *client) {
	t.Helper()
	e := newEnv(t)
	e.seed(n)
	c := e.client()
	c.login("owner@example.com")
	return e, c
}

// seed creates the owner, a project and n mentions.
func (e *env) seed(n int) {
	ctx := context.Background()
	u, err := e.svc.CreateUser(ctx, "owner@example.com", "correct-horse-42", "Olive Owner")
	if err != nil {
		e.t.Fatal(err)
	}
	e.owner = u
	p, err := e.st.CreateProject(ctx, u.ID, "Acme", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.proj = p
	e.ingest(n, "seed")
}

func (e *env) ingest(n int, prefix string) []*store.Mention {
	cats := []string{"testimonial", "bug_report", "complaint", "product_idea", "other"}
	var batch []store.NewMention
	for i := 0; i < n; i++ {
		batch = append(batch, store.NewMention{Source: "reddit", ExternalID: fmt.Sprintf("%s-%d", prefix, i), URL: fmt.Sprintf("https://reddit.example/%s/%d", prefix, i),
			AuthorHandle: fmt.Sprintf("user%d", i), Text: fmt.Sprintf("Acme post %s number %d", prefix, i), PublishedAt: time.Now().Add(-time.Duration(i) * time.Minute),
			IsRelevant: true, Category: cats[i%len(cats)], Sentiment: "positive", Urgency: i % 100, AISummary: "Summary " + prefix, Classifier: "builtin"})
	}
	res, err := e.st.IngestMentions(context.Background(), e.proj.ID, 0, batch)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Created
}

// client is a browser: cookie jar, no redirect following.
type client struct {
	e    *env
	c    *http.Client
	csrf string
	// lastRedirect is where the last followed PRG redirect led.
	lastRedirect string
}

func (e *env) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func (c *client) get(path string) (int, string, http.Header) {
	c.e.t.Helper()
	resp, err := c.c.Get(c.e.http.URL + path)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if m := csrfRe.FindSubmatch(b); m != nil {
		c.csrf = string(m[1])
	}
	return resp.StatusCode, string(b), resp.Header
}

func (c *client) post(path string, form url.Values, withToken bool) (int, string, http.Header) {
	c.e.t.Helper()
	if withToken {
		form.Set("_csrf", c.csrf)
	}
	resp, err := c.c.PostForm(c.e.http.URL+path, form)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// A failed form, or one whose result is shown once, redirects (PRG) with
	// the state in a form cookie: follow it as a browser does, so a test
	// reads the page that shows the outcome.
	if resp.StatusCode == http.StatusSeeOther {
		for _, ck := range resp.Cookies() {
			if ck.Name == "earshot_form" && ck.Value != "" {
				st, body, h := c.get(resp.Header.Get("Location"))
				c.lastRedirect = resp.Header.Get("Location")
				return st, body, h
			}
		}
	}
	return resp.StatusCode, string(b), resp.Header
}

// formFailed is the status of the page a failed form redirects to: the
// page itself loads fine (200) and shows the errors; the redirect is what
// tells the form failed (c.lastRedirect).
const formFailed = http.StatusOK

func (c *client) login(email string) {
	c.e.t.Helper()
	c.get("/login")
	st, body, h := c.post("/login", url.Values{"email": {email}, "password": {"correct-horse-42"}}, true)
	if st != http.StatusSeeOther {
		c.e.t.Fatalf("login: %d %s", st, body)
	}
	if h.Get("Location") != "/" {
		c.e.t.Fatalf("login redirect to %q", h.Get("Location"))
	}
	c.get("/") // picks up the session CSRF token
}

func must(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("body lacks %q", w)
		}
	}
}

func regexpMust(s string) *regexp.Regexp { return regexp.MustCompile(s) }
