package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"earshot/capability"
	"earshot/internal/benchgen"
	"earshot/metrics"
	"earshot/server"
	"earshot/store"
)

// cmdBench generates a large history and measures the inbox over HTTP on
// loopback: list pages for 20 filter shapes, search, a cursor walk, status
// updates and a CSV export. It prints a report; it asserts nothing. With
// --backends sqlite,postgres it measures both stores in one run and prints
// them side by side; on PostgreSQL it works in a fresh schema (dropped at
// the end) and also measures collection throughput with one and with two
// processes.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	var cfg Config
	fs := flag.NewFlagSet("earshot bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DataDir, "data", "", "data directory for the generated database (default: a temp dir)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", getenv("EARSHOT_DATABASE_URL"), "PostgreSQL `URL` to measure in (a new schema, dropped at the end) (EARSHOT_DATABASE_URL)")
	backends := fs.String("backends", "", "`list` of stores to measure, sqlite and/or postgres (default: postgres with --database-url, else sqlite)")
	main := fs.Int("mentions", 1000000, "mentions in the measured project")
	other := fs.Int("other", 1000000, "mentions spread over 50 other projects")
	reqs := fs.Int("requests", 200, "requests per measured shape")
	exportRows := fs.Int("export", 100000, "rows to export")
	reuse := fs.Bool("reuse", false, "measure the project an earlier run left in --data instead of generating mentions")
	ingest := fs.Int("ingest", 100000, "posts each collecting process handles in the one- and two-process throughput runs on PostgreSQL (0 skips them)")
	var child benchChild
	fs.BoolVar(&child.on, "ingest-child", false, "internal: one collecting process of the throughput run")
	fs.StringVar(&child.project, "ingest-project", "", "internal")
	fs.StringVar(&child.monitors, "ingest-monitors", "", "internal")
	fs.StringVar(&child.prefix, "ingest-prefix", "", "internal")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if err := checkDatabaseURL(cfg.DatabaseURL, "--database-url / EARSHOT_DATABASE_URL"); err != nil {
		return err
	}
	if child.on {
		return benchIngestChild(ctx, cfg.DatabaseURL, child, *ingest, stdout)
	}
	list := strings.Split(*backends, ",")
	if *backends == "" {
		list = []string{"sqlite"}
		if cfg.DatabaseURL != "" {
			list = []string{"postgres"}
		}
	}
	var results []*benchReport
	for _, b := range list {
		b = strings.TrimSpace(b)
		if b != "sqlite" && b != "postgres" {
			return usagef("--backends: unknown store %q (sqlite, postgres)", b)
		}
		if b == "postgres" && cfg.DatabaseURL == "" {
			return usagef("--backends postgres needs --database-url postgres://… (or EARSHOT_DATABASE_URL)")
		}
	}
	for _, b := range list {
		b = strings.TrimSpace(b)
		rep := &benchReport{backend: b, w: stdout, prefix: len(list) > 1}
		c := cfg
		if b == "sqlite" {
			c.DatabaseURL = ""
		}
		if err := benchBackend(ctx, c, getenv, *main, *other, *reqs, *exportRows, *reuse, rep); err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
		if b == "postgres" && *ingest > 0 {
			if err := benchIngestScaling(ctx, cfg.DatabaseURL, *ingest, rep); err != nil {
				return fmt.Errorf("%s: ingest throughput: %w", b, err)
			}
		}
		results = append(results, rep)
	}
	if len(results) > 1 {
		printSideBySide(stdout, results)
	}
	return nil
}

// benchBackend generates (or reuses) the history in one store and measures it.
func benchBackend(ctx context.Context, cfg Config, getenv func(string) string, mainN, otherN, reqsN, exportN int, reuse bool, rep *benchReport) error {
	main, other, reqs, exportRows := &mainN, &otherN, &reqsN, &exportN
	if cfg.DatabaseURL != "" {
		if reuse {
			return usagef("--reuse measures a data dir; on PostgreSQL every run generates its own schema")
		}
		u, drop, err := store.NewSchema(ctx, cfg.DatabaseURL, "earshot_bench_")
		if err != nil {
			return err
		}
		defer drop()
		cfg.DatabaseURL = u
	} else if cfg.DataDir == "" {
		d, err := os.MkdirTemp("", "earshot-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		cfg.DataDir = d
	}
	cfg.Getenv = getenv
	cfg.LogLevel = "error"
	cfg.BaseURL = "http://127.0.0.1"
	svc, closeFn, err := createOrOpenService(ctx, &cfg, io.Discard)
	if err != nil {
		return err
	}
	defer closeFn()
	out := rep.line
	out("store: %s (%s)", svc.Store.Backend(), svc.Store.Path())

	var mon *store.Monitor
	var key *capability.IssuedKey
	if reuse {
		if mon, key, err = benchReuse(ctx, svc); err != nil {
			return err
		}
		out("reusing project Bench of %s (no mentions generated)", cfg.DataDir)
	} else if mon, key, err = benchGenerate(ctx, svc, *main, *other, rep); err != nil {
		return err
	}
	size, err := svc.Store.Size(ctx)
	if err != nil {
		return err
	}
	out("database size on disk: %.1f MB", float64(size)/1e6)
	rep.metric("database size (MB)", "%.0f", float64(size)/1e6)

	// 2. serve on loopback and measure
	reg := metrics.New()
	srv := server.New(svc, reg, server.Options{RateLimit: 1e9, RateBurst: 1 << 30})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	call := func(method, path string, body string) (time.Duration, []byte, error) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key.Key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json") // a body without it is a 415
		}
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		el := time.Since(t0)
		if resp.StatusCode != 200 {
			return el, b, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return el, b, err
	}
	shapes := []string{"", "status=new", "source=reddit", "category=bug_report", "sentiment=negative", "min_urgency=70",
		"max_urgency=10", "author_handle=user123", "monitor_id=" + mon.ID, "date_preset=last_7_days", "date_preset=today",
		"is_relevant=true", "status=new&source=x", "category=complaint&sentiment=negative", "source=hn&min_urgency=80",
		"status=new&min_urgency=70&date_preset=last_30_days", "monitor_id=" + mon.ID + "&status=new", "source=news&category=testimonial",
		"sentiment=positive&date_preset=last_90_days", "limit=100&status=reviewed"}
	var all []time.Duration
	worst := ""
	var worstP99 time.Duration
	for _, q := range shapes {
		var ds []time.Duration
		for i := 0; i < *reqs; i++ {
			el, _, err := call("GET", "/api/v1/mentions?"+q, "")
			if err != nil {
				return err
			}
			ds = append(ds, el)
		}
		p99 := pct(ds, 99)
		if p99 > worstP99 {
			worstP99, worst = p99, q
		}
		all = append(all, ds...)
	}
	out("list_mentions, 20 filter shapes × %d requests: p50 %s p99 %s (slowest shape %q p99 %s)", *reqs, ms(pct(all, 50)), ms(pct(all, 99)), worst, ms(worstP99))
	rep.metric("list_mentions p50 / p99", "%s / %s", ms(pct(all, 50)), ms(pct(all, 99)))

	// Triage: urgency order, stats, counts and the public wall (issue 15).
	for _, set := range []struct {
		name   string
		n      int
		shapes []string
	}{
		{"list_mentions sort=urgency, 5 shapes", *reqs, []string{"/api/v1/mentions?sort=urgency", "/api/v1/mentions?sort=urgency&status=new",
			"/api/v1/mentions?sort=urgency&min_urgency=70&date_preset=last_7_days", "/api/v1/mentions?sort=urgency&source=hn", "/api/v1/mentions?sort=urgency&date_preset=today"}},
		{"get_mention_stats (30 days by day, negative new, 24 h by hour, 7 days by monitor)", max(*reqs/10, 3), []string{"/api/v1/mention-stats",
			"/api/v1/mention-stats?sentiment=negative&status=new", "/api/v1/mention-stats?date_preset=last_24_hours",
			"/api/v1/mention-stats?date_preset=last_7_days&group_by=monitor"}},
		{"count_mentions ≤1000, 3 shapes", max(*reqs/4, 3), []string{"/api/v1/mention-count", "/api/v1/mention-count?status=new&min_urgency=70",
			"/api/v1/mention-count?source=news&category=misinformation"}},
		{"preview_public_page (the wall, 200)", max(*reqs/4, 3), []string{"/api/v1/public-page"}},
	} {
		var ds []time.Duration
		for _, path := range set.shapes {
			var one []time.Duration
			for i := 0; i < set.n; i++ {
				el, _, err := call("GET", path, "")
				if err != nil {
					return err
				}
				one = append(one, el)
			}
			ds = append(ds, one...)
			if len(set.shapes) > 1 {
				out("  %s: p50 %s p99 %s", path, ms(pct(one, 50)), ms(pct(one, 99)))
			}
		}
		out("%s: p50 %s p99 %s", set.name, ms(pct(ds, 50)), ms(pct(ds, 99)))
		key, _, _ := strings.Cut(set.name, ",")
		key, _, _ = strings.Cut(key, " (")
		rep.metric(key+" p50 / p99", "%s / %s", ms(pct(ds, 50)), ms(pct(ds, 99)))
	}

	var sd []time.Duration
	for _, q := range []string{"crash", "dark mode", "Gantt export", "refund", "user42", "ab", "refund OR crash", "error 502", "acme.io", "zzqqxx"} {
		for i := 0; i < *reqs/4; i++ {
			el, _, err := call("GET", "/api/v1/mentions?search="+url.QueryEscape(q), "")
			if err != nil {
				return err
			}
			sd = append(sd, el)
		}
	}
	out("search pages (10 terms, common to absent): p50 %s p99 %s", ms(pct(sd, 50)), ms(pct(sd, 99)))
	rep.metric("search p50 / p99", "%s / %s", ms(pct(sd, 50)), ms(pct(sd, 99)))

	var wd []time.Duration
	for w := 0; w < 20; w++ {
		cursor := ""
		t0 := time.Now()
		for page := 0; page < 10; page++ {
			path := "/api/v1/mentions?limit=50&status=new"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			_, b, err := call("GET", path, "")
			if err != nil {
				return err
			}
			var env struct {
				Data struct {
					NextCursor *string `json:"nextCursor"`
				} `json:"data"`
			}
			json.Unmarshal(b, &env)
			if env.Data.NextCursor == nil {
				break
			}
			cursor = *env.Data.NextCursor
		}
		wd = append(wd, time.Since(t0))
	}
	out("10-page cursor walk (50/page): p50 %s p99 %s per walk", ms(pct(wd, 50)), ms(pct(wd, 99)))
	rep.metric("10-page walk p50 / p99", "%s / %s", ms(pct(wd, 50)), ms(pct(wd, 99)))

	_, b, err := call("GET", "/api/v1/mentions?limit=100", "")
	if err != nil {
		return err
	}
	var page struct {
		Data struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		} `json:"data"`
	}
	json.Unmarshal(b, &page)
	var ud []time.Duration
	statuses := []string{"reviewed", "done", "ignored", "new"}
	for i := 0; i < *reqs; i++ {
		id := page.Data.Items[i%len(page.Data.Items)].ID
		el, _, err := call("PATCH", "/api/v1/mentions/"+id, `{"status":"`+statuses[i%4]+`"}`)
		if err != nil {
			return err
		}
		ud = append(ud, el)
	}
	out("update_mention_status: p50 %s p99 %s", ms(pct(ud, 50)), ms(pct(ud, 99)))
	rep.metric("update_mention_status p50 / p99", "%s / %s", ms(pct(ud, 50)), ms(pct(ud, 99)))

	t0 := time.Now()
	_, eb, err := call("GET", fmt.Sprintf("/api/v1/exports/mentions?limit=%d", *exportRows), "")
	if err != nil {
		return err
	}
	ed := time.Since(t0)
	// The rows the export held, not the limit asked for: a project smaller
	// than --export would otherwise report a rate it never reached.
	exported, err := csvRows(eb)
	if err != nil {
		return fmt.Errorf("export_mentions: %w", err)
	}
	out("export_mentions: %d rows (%.1f MB CSV) in %s = %.0f rows/s", exported, float64(len(eb))/1e6, ed.Round(time.Millisecond), float64(exported)/ed.Seconds())
	rep.metric("export (rows/s)", "%.0f", float64(exported)/ed.Seconds())
	var msts runtime.MemStats
	runtime.ReadMemStats(&msts)
	out("memory: Go heap in use %.1f MB, process RSS %s", float64(msts.HeapInuse)/1e6, rss())
	return nil
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	if i >= len(s) {
		i = len(s) - 1
	}
	if i > 0 {
		i--
	}
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// rss reads the resident set size of this process (Linux).
func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
		}
	}
	return "unknown"
}

// benchGenerate creates project Bench (unlimited plan, one own monitor
// returned with a key), main mentions in it and other spread over 50 more projects, through
// the real ingest path, and indexes them for search.
func benchGenerate(ctx context.Context, svc *capability.Service, main, other int, rep *benchReport) (*store.Monitor, *capability.IssuedKey, error) {
	st := svc.Store
	out := rep.line
	owner, err := svc.CreateUser(ctx, fmt.Sprintf("bench-%d@example.com", time.Now().UnixNano()), "lantern-river-orbit-42", "") // passes the password rules ("bench" is a context word of the email)
	if err != nil {
		return nil, nil, err
	}
	proj, err := st.CreateProject(ctx, owner.ID, "Bench", nil)
	if err != nil {
		return nil, nil, err
	}
	if err := st.SetPlan(ctx, proj.ID, "unlimited"); err != nil {
		return nil, nil, err
	}
	key, err := svc.IssueKey(ctx, proj.ID, owner.ID, "bench", nil)
	if err != nil {
		return nil, nil, err
	}
	mon := &store.Monitor{ProjectID: proj.ID, Name: "Acme", Keywords: []string{"acme"}, QueryMode: "any", Sources: []string{"x"}, GroupName: "my_brand",
		ScanIntervalMinutes: 15, BackfillHours: 24}
	if err := st.CreateMonitor(ctx, mon); err != nil {
		return nil, nil, err
	}
	var others []*store.Project
	for i := range 50 {
		p, err := st.CreateProject(ctx, owner.ID, fmt.Sprintf("Other %d", i), nil)
		if err != nil {
			return nil, nil, err
		}
		others = append(others, p)
	}

	// 1. bulk insert through the real ingest path
	r := rand.New(rand.NewPCG(42, 7))
	end := time.Now().UTC()
	const batchSize = 5000
	insert := func(p *store.Project, n int, monitorIDs []string, offset int) (time.Duration, error) {
		start := time.Now()
		batch := make([]store.NewMention, 0, batchSize)
		for i := 0; i < n; i++ {
			m := benchgen.Mention(r, i, n, end, 180*24*time.Hour)
			m.ExternalID = fmt.Sprintf("%s-%d", m.ExternalID, offset+i)
			m.MonitorIDs = monitorIDs
			batch = append(batch, m)
			if len(batch) == batchSize || i == n-1 {
				if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
					return 0, err
				}
				batch = batch[:0]
			}
		}
		return time.Since(start), nil
	}
	d, err := insert(proj, main, []string{mon.ID}, 0)
	if err != nil {
		return nil, nil, err
	}
	out("insert: %d mentions into one project in %s = %.0f mentions/s (batches of %d, outbox events included; search indexing measured below)", main, d.Round(time.Millisecond), float64(main)/d.Seconds(), batchSize)
	rep.metric("insert, one project (mentions/s)", "%.0f", float64(main)/d.Seconds())
	per := other / 50
	d2 := time.Duration(0)
	for i, p := range others {
		dd, err := insert(p, per, nil, main+i*per)
		if err != nil {
			return nil, nil, err
		}
		d2 += dd
	}
	out("insert: %d mentions over 50 other projects in %s = %.0f mentions/s", per*50, d2.Round(time.Millisecond), float64(per*50)/d2.Seconds())
	rep.metric("insert, 50 projects (mentions/s)", "%.0f", float64(per*50)/d2.Seconds())
	t0 := time.Now()
	indexed := 0
	for {
		n, err := st.IndexSearch(ctx, 20000)
		if err != nil {
			return nil, nil, err
		}
		indexed += n
		if n == 0 {
			break
		}
	}
	di := time.Since(t0)
	out("search index (background in serve): %d mentions in %s = %.0f mentions/s", indexed, di.Round(time.Millisecond), float64(indexed)/di.Seconds())
	return mon, key, nil
}

// benchReuse finds project Bench (and its monitor) in a data dir an earlier
// bench run generated, and issues a key for this run.
func benchReuse(ctx context.Context, svc *capability.Service) (*store.Monitor, *capability.IssuedKey, error) {
	ps, err := svc.Store.AllProjects(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range ps {
		if p.Name != "Bench" {
			continue
		}
		ms, err := svc.Store.ListMonitors(ctx, p.ID)
		if err != nil || len(ms) == 0 {
			return nil, nil, fmt.Errorf("project Bench has no monitor: %v", err)
		}
		key, err := svc.IssueKey(ctx, p.ID, p.OwnerID, "bench", nil)
		return ms[0], key, err
	}
	return nil, nil, errors.New("no project Bench in this data dir: run earshot bench --data DIR once without --reuse")
}

// csvRows counts the data rows of a CSV export (its records less the header).
func csvRows(b []byte) (int, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	n := 0
	for {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		n++
	}
	return max(n-1, 0), nil
}
