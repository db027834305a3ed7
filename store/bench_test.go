package store_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"earshot/internal/benchgen"
	"earshot/store"
)

// BenchmarkIngest measures IngestMentions in batches of 1,000 (FTS on).
func BenchmarkIngest(b *testing.B) {
	st := openTest(b)
	ctx := context.Background()
	u, _ := st.CreateUser(ctx, "b@example.com", "x", "")
	p, _ := st.CreateProject(ctx, u.ID, "P", nil)
	r := rand.New(rand.NewPCG(1, 2))
	end := time.Now()
	batch := make([]store.NewMention, 5000)
	b.ResetTimer()
	for i := 0; i < b.N; i += len(batch) {
		for j := range batch {
			batch[j] = benchgen.Mention(r, i+j, b.N, end, 90*24*time.Hour)
		}
		if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "mentions/s")
}
