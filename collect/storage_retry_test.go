package collect

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"earshot/store/storetest"
)

// A scan whose posts cannot be stored because the disk is full (the
// SQLite database capped at its size: SQLite answers exactly as on a full
// disk) is retried 30 s later, then after 60 s while it keeps failing, and
// once space is back the retry stores the posts: they do not wait for the
// monitor's 15-minute interval.
func TestScanRetriedSoonAfterFullDisk(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("the full disk is simulated with SQLite's max_page_count")
	}
	ctx := context.Background()
	f := newFixture(t)
	hn := &fakeCollector{source: "hn"}
	pad := strings.Repeat("lorem ipsum ", 300)
	hn.fetch = func(_ context.Context, q Query) (Batch, error) {
		var posts []Post
		for i := range 200 {
			posts = append(posts, hnPost(fmt.Sprint(i+1), fmt.Sprintf("Acme post %d %s", i, pad), time.Now().Add(-time.Hour)))
		}
		return Batch{Posts: posts, State: "cursor"}, nil
	}
	m := f.monitor(t, f.project.ID, nil)
	s, clk := newTestScheduler(f, registryOf(hn), SchedulerConfig{})
	lift, err := f.st.CapSQLiteSize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if lift != nil {
			lift()
		}
	}()

	scan := func(when string, want int) {
		t.Helper()
		if n, err := s.ScanDue(ctx); err != nil || n != want {
			t.Fatalf("%s: scanned %d monitors (%v), want %d", when, n, err, want)
		}
	}
	scan("first scan", 1)
	if st, err := f.st.SourceState(ctx, m.ID, "hn"); err != nil || st.State != "" || f.st.StorageFailures() == 0 {
		t.Fatalf("the posts were stored although the database is full: %+v %v", st, err)
	}
	clk.add(31 * time.Second)
	scan("31 s after a scan failed for lack of space", 1)
	clk.add(31 * time.Second)
	scan("31 s after the second failure (backoff: 60 s)", 0)

	if err := lift(); err != nil { // space is back
		t.Fatal(err)
	}
	lift = nil
	clk.add(30 * time.Second)
	scan("60 s after the second failure", 1)
	st, err := f.st.SourceState(ctx, m.ID, "hn")
	if err != nil || st.State != "cursor" {
		t.Fatalf("source after the retry: %+v %v", st, err)
	}
	if _, full := f.st.StorageFull(); full {
		t.Fatal("still full after the retry stored its posts")
	}
	failures := f.st.StorageFailures()
	clk.add(2 * time.Minute)
	scan("2 minutes after a good scan (back to the 15-minute interval)", 0)
	if f.st.StorageFailures() != failures {
		t.Fatal("a write failed after space returned")
	}
	if got := len(hn.got()); got != 3 {
		t.Fatalf("%d fetches, want 3", got)
	}
}
