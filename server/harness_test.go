package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/server"
	"earshot/store"
	"earshot/store/storetest"
)

// env is a real server on a temp data dir with two tenants, A and B.
type env struct {
	t    *testing.T
	st   *store.Store
	svc  *capability.Service
	srv  *server.Server
	http *httptest.Server

	userA, userB       *store.User
	projA, projB       *store.Project
	keyA, keyB         string // all scopes
	sessionA, sessionB string
}

func newEnv(t *testing.T, opts ...server.Options) *env {
	t.Helper()
	st := storetest.Open(t)
	e := &env{t: t, st: st}
	e.http = httptest.NewUnstartedServer(nil)
	base := "http://" + e.http.Listener.Addr().String()
	e.svc = capability.New(st, capability.Config{BaseURL: base, PlanQuotas: map[string]int{"trial": 1000, "starter": 10000, "unlimited": 0}, AllowPrivateWebhooks: true}, slog.New(slog.DiscardHandler))
	o := server.Options{RateLimit: 10000, RateBurst: 10000}
	if len(opts) > 0 {
		o = opts[0]
	}
	e.srv = server.New(e.svc, nil, o)
	e.http.Config.Handler = e.srv
	e.http.Start()
	t.Cleanup(e.http.Close)

	e.userA = e.mustUser("a@example.com")
	e.userB = e.mustUser("b@example.com")
	e.projA = e.mustProject(e.userA, "Acme")
	e.projB = e.mustProject(e.userB, "Globex")
	e.keyA = e.mustKey(e.projA, nil)
	e.keyB = e.mustKey(e.projB, nil)
	e.sessionA = e.login("a@example.com")
	e.sessionB = e.login("b@example.com")
	return e
}

func (e *env) mustUser(email string) *store.User {
	u, err := e.svc.CreateUser(context.Background(), email, "correct-horse-42", "User "+email)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

func (e *env) mustProject(u *store.User, name string) *store.Project {
	p, err := e.st.CreateProject(context.Background(), u.ID, name, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) mustKey(p *store.Project, scopes []string) string {
	k, err := e.svc.IssueKey(context.Background(), p.ID, p.OwnerID, "test", scopes)
	if err != nil {
		e.t.Fatal(err)
	}
	return k.Key
}

func (e *env) login(email string) string {
	res := e.do("POST", "/api/v1/auth/sessions", "", map[string]any{"email": email, "password": "correct-horse-42"})
	res.ok()
	return res.data()["token"].(string)
}

// result is a decoded response.
type result struct {
	t      *testing.T
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (r result) ok() result {
	r.t.Helper()
	if r.status != 200 {
		r.t.Fatalf("status %d, want 200: %s", r.status, r.raw)
	}
	return r
}

func (r result) data() map[string]any {
	d, _ := r.body["data"].(map[string]any)
	return d
}

func (r result) errCode() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (r result) errParam() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["param"].(string)
	return c
}

func (r result) expect(status int, code string) result {
	r.t.Helper()
	if r.status != status || (code != "" && r.errCode() != code) {
		r.t.Fatalf("got %d %s, want %d %s: %s", r.status, r.errCode(), status, code, r.raw)
	}
	return r
}

// do sends a request; body may be nil, a map, or a raw string.
func (e *env) do(method, path, token string, body any, hdr ...string) result {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, e.http.URL+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := result{t: e.t, status: resp.StatusCode, header: resp.Header, raw: raw}
	json.Unmarshal(raw, &r.body)
	return r
}

// seedMentions stores n mentions in project p, published one minute apart
// ending at end, via the ingest path.
func (e *env) seedMentions(p *store.Project, monitorIDs []string, n int, end time.Time, mod func(i int, m *store.NewMention)) []*store.Mention {
	e.t.Helper()
	batch := make([]store.NewMention, n)
	for i := range batch {
		batch[i] = store.NewMention{Source: "reddit", ExternalID: p.ID[:8] + "-" + itoa(i), URL: "https://reddit.com/r/x/" + itoa(i),
			AuthorHandle: "user" + itoa(i%7), Text: "post number " + itoa(i) + " about Acme", PublishedAt: end.Add(-time.Duration(i) * time.Minute),
			Engagement: map[string]int64{"upvotes": int64(i), "comments": 1}, MonitorIDs: monitorIDs, IsRelevant: true, Category: "other",
			Sentiment: "neutral", Urgency: i % 101, AISummary: "summary " + itoa(i), Classifier: "builtin"}
		if mod != nil {
			mod(i, &batch[i])
		}
	}
	res, err := e.st.IngestMentions(context.Background(), p.ID, 0, batch)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.Created
}

func itoa(i int) string { return strconvItoa(i) }
