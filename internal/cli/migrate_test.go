package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"earshot/capability"
	"earshot/collect"
	"earshot/metrics"
	"earshot/server"
	"earshot/store"
	"earshot/store/storetest"
)

// restClient calls an in-process REST handler with one credential.
type restClient struct {
	t    *testing.T
	base string
	auth string
}

func (c restClient) call(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+c.auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(raw, &out)
	if out == nil {
		out = map[string]any{"raw": string(raw)}
	}
	return resp.StatusCode, out
}

func (c restClient) ok(method, path string, body any) map[string]any {
	c.t.Helper()
	code, out := c.call(method, path, body)
	if code/100 != 2 {
		c.t.Fatalf("%s %s: %d %v", method, path, code, out)
	}
	return out
}

// serveStore is the REST API of a store, in process, without the
// background workers (nothing changes the data behind the test's back).
func serveStore(t *testing.T, st *store.Store) string {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := capability.New(st, capability.Config{BaseURL: "http://127.0.0.1:8080",
		PlanQuotas: map[string]int{"trial": 1000, "starter": 10000, "growth": 50000, "unlimited": 0}, AllowPrivateWebhooks: true}, log)
	hs := httptest.NewServer(server.New(svc, metrics.New(), server.Options{RateLimit: 1e6, RateBurst: 1e6}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// Issue 17: `earshot migrate` copies a SQLite installation made through the
// real surface (the demo's collectors, REST) into an empty PostgreSQL
// database while the SQLite store stays open, refuses a database that
// holds data, and the copy answers the same lists, pages and searches.
func TestMigrateToPostgres(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("needs PostgreSQL: set " + storetest.EnvURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyBound)
	defer cancel()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, replaySrv, info := startDemo(t, ctx, st)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sched := collect.NewScheduler(st, collect.NewRegistry(demoCollectors(replaySrv.URL), replaySrv.Client()), nil,
		collect.SchedulerConfig{Ledger: st.QuotaLedger(), Pipeline: collect.PipelineConfig{QuotaFunc: svc.Quota}}, log, nil)
	if n, err := sched.ScanDue(ctx); err != nil || n == 0 {
		t.Fatalf("scan: %d %v", n, err)
	}

	// More of the surface: a webhook with a backlog, a view, a keyword
	// group, an alert, triage.
	sqlite := restClient{t, serveStore(t, st), info.APIKey}
	hook := sqlite.ok("POST", "/api/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"mention.created"}})
	hookID := hook["data"].(map[string]any)["id"].(string)
	sqlite.ok("POST", "/api/v1/views", map[string]any{"name": "Negative", "filters": map[string]any{"sentiment": "negative"}})
	sqlite.ok("POST", "/api/v1/keyword-groups", map[string]any{"name": "rivals"})
	sqlite.call("POST", "/api/v1/alerts", map[string]any{"name": "Spikes", "channel": "webhook", "target": "http://127.0.0.1:9/alert"})
	page := sqlite.ok("GET", "/api/v1/mentions?limit=5", nil)["data"].(map[string]any)["items"].([]any)
	for i, m := range page {
		sqlite.ok("PATCH", "/api/v1/mentions/"+m.(map[string]any)["id"].(string), map[string]any{"status": []string{"reviewed", "done", "ignored"}[i%3]})
	}
	// Mentions collected after the webhook make its backlog.
	if _, err := st.IngestMentions(ctx, info.ProjectID, 0, []store.NewMention{{Source: "hn", ExternalID: "late-1",
		URL: "https://news.ycombinator.com/item?id=1", Text: "Acme's late mention, about Gantt charts", PublishedAt: time.Now().UTC()}}); err != nil {
		t.Fatal(err)
	}

	// The copy, while the SQLite store stays open (as under serve).
	dbURL := storetest.URL(t)
	env := map[string]string{"EARSHOT_DATA": dir, "EARSHOT_LOG_LEVEL": "error"}
	code, out, errs := runCLI(t, env, "migrate", "--to", dbURL)
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("migrate:\n%s", out)
	for _, want := range []string{"users ", "mentions ", "mention_monitors ", "webhooks ", "events ", "deliveries ", "not copied", "mentions_fts"} {
		if !strings.Contains(out, want) {
			t.Errorf("migrate's report lacks %q", want)
		}
	}
	// A second copy into the same database is refused, and changes nothing.
	if code, _, errs := runCLI(t, env, "migrate", "--to", dbURL); code != 1 || !strings.Contains(errs, "empty database") {
		t.Errorf("migrate into a database with data: exit %d %s", code, errs)
	}

	pg, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	postgres := restClient{t, serveStore(t, pg), info.APIKey}
	same := func(path string) map[string]any {
		t.Helper()
		_, a := sqlite.call("GET", path, nil)
		_, b := postgres.call("GET", path, nil)
		ja, _ := json.Marshal(a["data"])
		jb, _ := json.Marshal(b["data"])
		if a["data"] == nil || !bytes.Equal(ja, jb) {
			i := 0
			for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
				i++
			}
			from := max(0, i-200)
			t.Errorf("GET %s differs at byte %d:\nSQLite     …%.400s\nPostgreSQL …%.400s (%v)", path, i, ja[min(from, len(ja)):], jb[min(from, len(jb)):], b["error"])
		}
		d, _ := a["data"].(map[string]any)
		return d
	}
	until := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	window := "since=" + url.QueryEscape(store.FormatTime(until.Add(-30*24*time.Hour))) + "&until=" + url.QueryEscape(store.FormatTime(until))
	for _, p := range []string{"/api/v1/monitors", "/api/v1/webhooks", "/api/v1/webhooks/" + hookID + "/deliveries",
		"/api/v1/views", "/api/v1/keyword-groups", "/api/v1/alerts", "/api/v1/stories", "/api/v1/usage",
		"/api/v1/mentions?status=reviewed", "/api/v1/mentions?sort=urgency&limit=20", "/api/v1/mention-count",
		"/api/v1/mentions?search=" + url.QueryEscape("Gantt"), "/api/v1/mentions?search=acme&source=hn",
		// Fixed windows: a default one ends "now", which moves between the two calls.
		"/api/v1/share-of-voice?" + window, "/api/v1/mention-stats?" + window} {
		same(p)
	}
	// Every page of the inbox, by the same cursors.
	total, cursor := 0, ""
	for i := 0; i < 100; i++ {
		p := "/api/v1/mentions?limit=25"
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		d := same(p)
		items, _ := d["items"].([]any)
		total += len(items)
		next, _ := d["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if total < 20 {
		t.Errorf("the inbox walk saw %d mentions", total)
	}
	// The copy keeps working: new rows get fresh sequence values.
	postgres.ok("POST", "/api/v1/views", map[string]any{"name": "After the move", "filters": map[string]any{"status": "new"}})
	if _, err := pg.IngestMentions(ctx, info.ProjectID, 0, []store.NewMention{{Source: "hn", ExternalID: "after-1",
		URL: "https://news.ycombinator.com/item?id=2", Text: "Acme after the move", PublishedAt: time.Now().UTC()}}); err != nil {
		t.Fatal(err)
	}
	// A quoted phrase: the search grammar's words would also find the
	// seeded "after 30 days … We moved" (stemming).
	if d := postgres.ok("GET", "/api/v1/mentions?search=%22after+the+move%22", nil)["data"].(map[string]any); len(d["items"].([]any)) != 1 {
		t.Errorf("a mention ingested after the move: %v", d)
	}
}
