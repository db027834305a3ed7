package collect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"earshot/store"
	"earshot/store/storetest"
)

// BenchmarkPipelineThroughput measures posts/s from fetched posts to stored
// mentions (matching, known-id lookup, built-in classification, ingest with
// its events) into a store that already holds many mentions, and the p99
// time from a post handed to the pipeline to its mention.created event
// committed.
//
//	EARSHOT_BENCH_PREFILL  mentions stored before measuring (default 20000)
//	EARSHOT_BENCH_DIR      keep the database here and reuse its prefill
//	EARSHOT_BENCH_SCAN     posts per fetch (default 250)
//	EARSHOT_BENCH_WORKERS  fetches processed at once (default 4, the scheduler's default)
//	EARSHOT_BENCH_RATE     offered posts/s in all (default 0: as fast as possible);
//	                       latency is only meaningful below saturation
//	EARSHOT_BENCH_REFETCH  percent of each fetch that repeats posts the monitor
//	                       already has, as overlapping scans do (default 0)
//
// go test ./collect -run '^$' -bench PipelineThroughput -benchtime 50000x
func BenchmarkPipelineThroughput(b *testing.B) {
	ctx := context.Background()
	prefill := benchEnvInt("EARSHOT_BENCH_PREFILL", 20000)
	scanSize := benchEnvInt("EARSHOT_BENCH_SCAN", 250)
	workers := benchEnvInt("EARSHOT_BENCH_WORKERS", 4)
	rate := benchEnvInt("EARSHOT_BENCH_RATE", 0)
	refetch := min(benchEnvInt("EARSHOT_BENCH_REFETCH", 0), 95)
	dir := os.Getenv("EARSHOT_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	st, err := storetest.OpenAt(b, dir) // PostgreSQL when EARSHOT_TEST_DATABASE_URL is set
	if err != nil {
		b.Fatal(err)
	}
	// As in serve: WAL checkpoints and search indexing run beside ingestion.
	bg, stopBG := context.WithCancel(ctx)
	defer stopBG()
	go st.RunCheckpointer(bg, time.Second)
	go st.RunSearchIndexer(bg, 500*time.Millisecond, nil, nil)
	project, monitors := benchProject(b, st, workers)
	if err := benchPrefill(ctx, st, project.ID, monitors[0], prefill); err != nil {
		b.Fatal(err)
	}
	for { // the prefill is history: index it before measuring
		n, err := st.IndexSearch(ctx, 20000)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if err := st.WarmStories(ctx); err != nil { // as serve does at start
		b.Fatal(err)
	}

	p := NewPipeline(st, nil, PipelineConfig{}, quietLog(), nil)
	var mu sync.Mutex
	var latencies []time.Duration
	p.onIngest = func(fetchedAt time.Time, res store.IngestResult) {
		d := res.Committed.Sub(fetchedAt)
		mu.Lock()
		for _, m := range res.Created {
			if m.IsRelevant {
				latencies = append(latencies, d)
			}
		}
		mu.Unlock()
	}
	var next atomic.Int64
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var stored, irrelevant atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			var prev []Post
			done := 0
			for {
				first := next.Add(int64(scanSize)) - int64(scanSize)
				if first >= int64(b.N) {
					return
				}
				n := min(int64(scanSize), int64(b.N)-first)
				if rate > 0 {
					// Pace this worker at its share of the offered rate.
					due := start.Add(time.Duration(float64(done) / (float64(rate) / float64(workers)) * float64(time.Second)))
					time.Sleep(time.Until(due))
				}
				done += int(n)
				posts := make([]Post, n)
				repeat := min(int(n)*refetch/100, len(prev))
				copy(posts, prev[:repeat])
				for i := repeat; i < len(posts); i++ {
					posts[i] = benchPost(rng, fmt.Sprintf("%s-%d", run, first+int64(i)))
				}
				prev = posts
				c, err := p.Process(ctx, monitors[w], "x", posts)
				if err != nil {
					b.Error(err)
					return
				}
				stored.Add(int64(c.New))
				irrelevant.Add(int64(c.Irrelevant))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(latencies)
	p99 := time.Duration(0)
	if len(latencies) > 0 {
		p99 = latencies[len(latencies)*99/100]
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "posts/s")
	b.ReportMetric(float64(p99.Milliseconds()), "p99_ms_to_event")
	b.ReportMetric(float64(stored.Load()), "stored")
	b.ReportMetric(float64(irrelevant.Load()), "irrelevant")
	p50 := time.Duration(0)
	if len(latencies) > 0 {
		p50 = latencies[len(latencies)/2]
	}
	b.Logf("prefill %d, %d posts (%d%% re-fetched, offered %d/s) in %v: %.0f posts/s, %d stored; post→mention.created p50 %v p99 %v (%d events)",
		prefill, b.N, refetch, rate, elapsed.Round(time.Millisecond), float64(b.N)/elapsed.Seconds(), stored.Load(),
		p50.Round(time.Millisecond), p99.Round(time.Millisecond), len(latencies))
}

func benchEnvInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchProject returns the benchmark's project and one monitor per worker,
// creating them on first use of a database.
func benchProject(b *testing.B, st *store.Store, n int) (*store.Project, []*store.Monitor) {
	ctx := context.Background()
	ps, err := st.AllProjects(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var p *store.Project
	if len(ps) > 0 {
		p = ps[0]
	} else {
		u, err := st.CreateUser(ctx, "bench@example.com", "x", "")
		if err != nil {
			b.Fatal(err)
		}
		site := "https://acme.example"
		if p, err = st.CreateProject(ctx, u.ID, "Acme", &site); err != nil {
			b.Fatal(err)
		}
	}
	ms, err := st.ListMonitors(ctx, p.ID)
	if err != nil {
		b.Fatal(err)
	}
	for len(ms) < n {
		m := &store.Monitor{ProjectID: p.ID, Name: "bench", Keywords: []string{"Acme", "acme.example", "@acme"}, QueryMode: "any",
			Sources: []string{"x"}, Active: true, ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "my_brand"}
		if err := st.CreateMonitor(ctx, m); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	return p, ms
}

// benchPrefill stores mentions directly (already classified) in large
// batches until the project holds want of them. Like a store that collected
// them over time, their publication times spread over the 90 days before
// the hour the measured posts come from, oldest first.
func benchPrefill(ctx context.Context, st *store.Store, projectID string, m *store.Monitor, want int) error {
	u, err := st.Usage(ctx, projectID, store.PeriodStart(time.Now()))
	if err != nil {
		return err
	}
	have := u.MentionsUsed
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	history := start.Add(-90*24*time.Hour - time.Hour).UTC()
	for have < want {
		n := min(5000, want-have)
		batch := make([]store.NewMention, n)
		for i := range batch {
			p := benchPost(rng, fmt.Sprintf("prefill-%d", have+i))
			p.PublishedAt = history.Add(time.Duration(float64(have+i) / float64(want) * float64(90*24*time.Hour)))
			batch[i] = store.NewMention{Source: "x", ExternalID: p.ExternalID, URL: p.URL, AuthorHandle: p.AuthorHandle, Text: p.Text,
				PublishedAt: p.PublishedAt, Engagement: p.Engagement, MonitorIDs: []string{m.ID}, IsRelevant: true, Category: "other",
				Sentiment: "neutral", Urgency: 10, AISummary: p.Text, Classifier: "prefill"}
		}
		res, err := st.IngestMentions(ctx, projectID, 0, batch)
		if err != nil {
			return err
		}
		have += res.New
		if res.New == 0 {
			return fmt.Errorf("prefill stored nothing")
		}
		if have%100000 < 5000 {
			fmt.Fprintf(os.Stderr, "prefill: %d mentions (%.0f/s)\n", have, float64(have-u.MentionsUsed)/time.Since(start).Seconds())
		}
	}
	return nil
}

var benchWords = strings.Fields(`the app board team release sprint deadline timeline roadmap feature bug crash login sync export
	pricing support ticket customer feedback update mobile desktop calendar task project manager workflow integration slack
	github invoice plan trial onboarding dashboard report chart comment mention notification email weekend coffee meeting
	love hate great terrible slow fast finally again really honestly today yesterday tomorrow week month`)

var benchOpeners = []string{"Acme", "Tried Acme", "Our team moved to Acme", "@acme", "acme.example", "Anyone else using Acme"}

func benchPost(rng *rand.Rand, id string) Post {
	var sb strings.Builder
	sb.WriteString(benchOpeners[rng.IntN(len(benchOpeners))])
	for range 12 + rng.IntN(30) {
		sb.WriteByte(' ')
		sb.WriteString(benchWords[rng.IntN(len(benchWords))])
	}
	return Post{Source: "x", ExternalID: id, URL: "https://x.com/i/status/" + id, AuthorHandle: "user" + strconv.Itoa(rng.IntN(50000)),
		AuthorFollowers: int64(rng.IntN(10000)), Text: sb.String(), PublishedAt: time.Now().Add(-time.Duration(rng.IntN(3600)) * time.Second).UTC(),
		Engagement: map[string]int64{"likes": int64(rng.IntN(100)), "replies": int64(rng.IntN(10))}}
}
