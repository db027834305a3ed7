package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"earshot/collect"
	"earshot/internal/benchgen"
	"earshot/store"
)

// benchReport prints one backend's bench lines and keeps the headline
// numbers for the side-by-side table.
type benchReport struct {
	backend string
	w       io.Writer
	prefix  bool
	keys    []string
	values  map[string]string
}

func (r *benchReport) line(format string, a ...any) {
	if r.prefix {
		format = "[" + r.backend + "] " + format
	}
	fmt.Fprintf(r.w, format+"\n", a...)
}

func (r *benchReport) metric(key, format string, a ...any) {
	if r.values == nil {
		r.values = map[string]string{}
	}
	if _, ok := r.values[key]; !ok {
		r.keys = append(r.keys, key)
	}
	r.values[key] = fmt.Sprintf(format, a...)
}

// printSideBySide prints the headline numbers of every backend in columns.
func printSideBySide(w io.Writer, reps []*benchReport) {
	var keys []string
	seen := map[string]bool{}
	for _, r := range reps {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	fmt.Fprintf(w, "\n%-40s", "side by side")
	for _, r := range reps {
		fmt.Fprintf(w, " %22s", r.backend)
	}
	fmt.Fprintln(w)
	for _, k := range keys {
		fmt.Fprintf(w, "%-40s", k)
		for _, r := range reps {
			v := r.values[k]
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(w, " %22s", v)
		}
		fmt.Fprintln(w)
	}
}

// benchChild is the internal flags of one collecting process.
type benchChild struct {
	on                        bool
	project, monitors, prefix string
}

// benchIngestScaling measures collection on PostgreSQL — fetched posts
// through the real pipeline (keyword match, built-in classifier, known-id
// lookup, ingest with its events) — by one earshot process, then by two
// at once on the same database, each handling posts posts with four
// workers (the scheduler's default).
func benchIngestScaling(ctx context.Context, baseURL string, posts int, rep *benchReport) error {
	u, drop, err := store.NewSchema(ctx, baseURL, "earshot_bench_ingest_")
	if err != nil {
		return err
	}
	defer drop()
	st, err := store.OpenPostgres(ctx, u)
	if err != nil {
		return err
	}
	owner, err := st.CreateUser(ctx, fmt.Sprintf("ingest-%d@example.com", time.Now().UnixNano()), "x", "")
	if err != nil {
		st.Close()
		return err
	}
	site := "https://acme.example"
	p, err := st.CreateProject(ctx, owner.ID, "Ingest", &site)
	if err == nil {
		err = st.SetPlan(ctx, p.ID, "unlimited")
	}
	var monitors []string
	for i := 0; err == nil && i < 4; i++ {
		m := &store.Monitor{ProjectID: p.ID, Name: fmt.Sprintf("Acme %d", i), Keywords: []string{"Acme", "acme.io", "@acme"}, QueryMode: "any",
			Sources: []string{"x"}, Active: true, ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "my_brand"}
		err = st.CreateMonitor(ctx, m)
		monitors = append(monitors, m.ID)
	}
	st.Close()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var rates []float64
	for procs := 1; procs <= 2; procs++ {
		type result struct {
			start, end time.Time
			n          int
			err        error
		}
		res := make([]result, procs)
		var wg sync.WaitGroup
		for i := range procs {
			wg.Go(func() {
				cmd := exec.CommandContext(ctx, exe, "bench", "--ingest-child", "--database-url", u, "--ingest", strconv.Itoa(posts),
					"--ingest-project", p.ID, "--ingest-monitors", strings.Join(monitors, ","), "--ingest-prefix", fmt.Sprintf("p%d-%d-", procs, i))
				cmd.Stderr = os.Stderr
				out, err := cmd.StdoutPipe()
				if err != nil {
					res[i].err = err
					return
				}
				if err := cmd.Start(); err != nil {
					res[i].err = err
					return
				}
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					var s, e int64
					var n int
					if k, _ := fmt.Sscanf(sc.Text(), "ingested %d %d %d", &n, &s, &e); k == 3 {
						res[i] = result{start: time.Unix(0, s), end: time.Unix(0, e), n: n}
					}
				}
				if err := cmd.Wait(); err != nil {
					res[i].err = err
				}
			})
		}
		wg.Wait()
		var first, last time.Time
		total := 0
		for _, r := range res {
			if r.err != nil {
				return r.err
			}
			if r.n == 0 {
				return fmt.Errorf("a collecting process reported nothing")
			}
			if first.IsZero() || r.start.Before(first) {
				first = r.start
			}
			if r.end.After(last) {
				last = r.end
			}
			total += r.n
		}
		rate := float64(total) / last.Sub(first).Seconds()
		rates = append(rates, rate)
		rep.line("collection (pipeline: match, classify, ingest, events) by %d process(es) at once: %d posts in %s = %.0f posts/s",
			procs, total, last.Sub(first).Round(time.Millisecond), rate)
		rep.metric(fmt.Sprintf("collection, %d process(es) (posts/s)", procs), "%.0f", rate)
	}
	rep.line("two processes collect %.2f× what one does", rates[1]/rates[0])
	rep.metric("two processes / one", "%.2f×", rates[1]/rates[0])
	return nil
}

// benchIngestChild is one collecting process: posts generated posts
// through the pipeline, four workers, fetches of 250; it prints
// "ingested N START END" (Unix nanoseconds) for its parent.
func benchIngestChild(ctx context.Context, dbURL string, c benchChild, posts int, stdout io.Writer) error {
	if dbURL == "" || c.project == "" || c.monitors == "" {
		return usagef("--ingest-child is internal to earshot bench")
	}
	st, err := store.OpenPostgres(ctx, dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	var mons []*store.Monitor
	for _, id := range strings.Split(c.monitors, ",") {
		m, err := st.Monitor(ctx, c.project, id)
		if err != nil {
			return err
		}
		mons = append(mons, m)
	}
	if err := st.WarmStories(ctx); err != nil {
		return err
	}
	pipe := collect.NewPipeline(st, nil, collect.PipelineConfig{}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	const fetch = 250
	var mu sync.Mutex
	next := 0
	var firstErr error
	start := time.Now()
	var wg sync.WaitGroup
	for w := range mons {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for {
				mu.Lock()
				first := next
				next += fetch
				mu.Unlock()
				if first >= posts || ctx.Err() != nil {
					return
				}
				n := min(fetch, posts-first)
				batch := make([]collect.Post, n)
				for i := range batch {
					m := benchgen.Mention(r, first+i, posts, time.Now().UTC(), time.Hour)
					id := c.prefix + strconv.Itoa(first+i)
					batch[i] = collect.Post{Source: "x", ExternalID: id, URL: "https://x.com/i/status/" + id, AuthorHandle: m.AuthorHandle,
						Text: m.Text, PublishedAt: m.PublishedAt, Engagement: m.Engagement}
				}
				if _, err := pipe.Process(ctx, mons[w], "x", batch); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Fprintf(stdout, "ingested %d %d %d\n", posts, start.UnixNano(), time.Now().UnixNano())
	return nil
}
