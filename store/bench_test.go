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

// BenchmarkSyncModes measures what EARSHOT_SQLITE_SYNC costs a commit:
// a single status change (one transaction, as update_mention_status) and
// an ingest of a batch of 50 (one transaction, as a collector's page), with
// synchronous=NORMAL and FULL. Run on a real disk (not tmpfs), e.g.
// go test ./store -run X -bench SyncModes -benchtime 300x.
func BenchmarkSyncModes(b *testing.B) {
	for _, mode := range []string{store.SyncNormal, store.SyncFull} {
		st, err := store.OpenSQLite(context.Background(), b.TempDir(), store.SQLiteOptions{Sync: mode})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		u, _ := st.CreateUser(ctx, "b@example.com", "x", "")
		p, _ := st.CreateProject(ctx, u.ID, "P", nil)
		r := rand.New(rand.NewPCG(1, 2))
		end := time.Now()
		seed := make([]store.NewMention, 100)
		for j := range seed {
			seed[j] = benchgen.Mention(r, j, len(seed), end, 24*time.Hour)
		}
		if _, err := st.IngestMentions(ctx, p.ID, 0, seed); err != nil {
			b.Fatal(err)
		}
		ms, err := st.ListMentions(ctx, store.MentionFilter{ProjectID: p.ID}, nil, 100)
		if err != nil {
			b.Fatal(err)
		}
		statuses := []string{"reviewed", "done", "ignored", "new"}
		b.Run("status/"+mode, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := st.UpdateMentionStatus(ctx, p.ID, ms[i%len(ms)].ID, statuses[i%4]); err != nil {
					b.Fatal(err)
				}
			}
		})
		n := len(seed)
		b.Run("ingest50/"+mode, func(b *testing.B) {
			batch := make([]store.NewMention, 50)
			for b.Loop() {
				for j := range batch {
					batch[j] = benchgen.Mention(r, n, 1<<30, end, 24*time.Hour)
					n++
				}
				if _, err := st.IngestMentions(ctx, p.ID, 0, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
		st.Close()
	}
}
