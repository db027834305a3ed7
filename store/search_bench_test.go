package store_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"earshot/internal/benchgen"
	"earshot/store"
)

// BenchmarkSearch measures the first page (50) of a search over a project
// of EARSHOT_SEARCH_BENCH_N generated mentions (default 20,000; 1% hold
// "zebracorn outages", 0.05% "quokka"), the search index caught up. With
// EARSHOT_SEARCH_BENCH_DIR the SQLite store is kept there and reused by
// the next run (build 1M once: several minutes). Each query is one
// sub-benchmark; ns/op is one page.
//
//	EARSHOT_SEARCH_BENCH_N=1000000 EARSHOT_SEARCH_BENCH_DIR=/tmp/sb go test ./store -run X -bench Search -benchtime 20x
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("EARSHOT_SEARCH_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	var st *store.Store
	if dir := os.Getenv("EARSHOT_SEARCH_BENCH_DIR"); dir != "" {
		var err error
		if st, err = store.Open(ctx, dir); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
	} else {
		st = openTest(b)
	}
	p := searchBenchProject(b, st, n)
	for _, q := range []string{"quokka", "zebracorn", "outages", "export", `"error 502"`, "quokka OR zebracorn", "export -kanban", "kanban author:user42", "ab"} {
		f := store.Filter{Search: q}.Resolve(p, time.Now()) // as the API resolves it (author: becomes the indexed filter)
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, err := st.ListMentions(ctx, f, nil, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// searchBenchProject is the bench's project, generated unless the store
// already holds it.
func searchBenchProject(b *testing.B, st *store.Store, n int) string {
	ctx := context.Background()
	if u, err := st.UserByEmail(ctx, "search-bench@example.com"); err == nil {
		ps, err := st.ProjectsForUser(ctx, u.ID)
		if err == nil && len(ps) > 0 {
			return ps[0].ID
		}
	}
	u, err := st.CreateUser(ctx, "search-bench@example.com", "x", "")
	if err != nil {
		b.Fatal(err)
	}
	p, err := st.CreateProject(ctx, u.ID, "P", nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	end := time.Now()
	for i := 0; i < n; i += 5000 {
		batch := make([]store.NewMention, 0, 5000)
		for j := i; j < min(n, i+5000); j++ {
			m := benchgen.Mention(r, j, n, end, 365*24*time.Hour)
			switch {
			case j%2000 == 7:
				m.Text += " quokka"
			case j%100 == 3:
				m.Text += " zebracorn outages"
			}
			batch = append(batch, m)
		}
		if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
			b.Fatal(err)
		}
	}
	for {
		k, err := st.IndexSearch(ctx, 50000)
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			break
		}
	}
	return p.ID
}
