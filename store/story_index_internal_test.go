package store

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"earshot/story"
)

// TestStoryIndexWindow: the index forgets the oldest mentions beyond its
// capacity and those collected more than a week before the newest, keeps
// finding the others, and its key map shrinks with it.
func TestStoryIndexWindow(t *testing.T) {
	defer func(c int) { storyWindowCap = c }(storyWindowCap)
	storyWindowCap = 1500
	var ix storyIndex
	ix.reset()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keys := func(i int) storyKeys {
		k := keysOf("p", "news", fmt.Sprintf("https://example.com/article-%d", i),
			fmt.Sprintf("post %d: a long enough text for a fingerprint, with its own words number %d and %d", i, i*31, i*17), nil)
		return k
	}
	add := func(i int, at time.Time) {
		k := keys(i)
		ix.add(testSlot(&k, int64(i), at.Unix()))
	}
	found := func(i int) bool {
		k := keys(i)
		sl, _ := ix.match(&k)
		return sl != nil && sl.rowid == int64(i)
	}
	for i := range 4000 {
		add(i, t0.Add(time.Duration(i)*time.Second))
	}
	if ix.n != 1500 || len(ix.buf) != 1500 {
		t.Fatalf("index holds %d slots in %d, want 1500", ix.n, len(ix.buf))
	}
	if found(2499) || !found(2500) || !found(3999) {
		t.Errorf("capacity: found(2499)=%v found(2500)=%v found(3999)=%v", found(2499), found(2500), found(3999))
	}
	if len(ix.keys) > 1500*(story.Bands+1) {
		t.Errorf("%d keys for 1500 slots", len(ix.keys))
	}
	// A mention collected 8 days later evicts everything older than a week.
	add(5000, t0.Add(8*24*time.Hour))
	if ix.n != 1 || !found(5000) || found(3999) {
		t.Errorf("time window: %d slots, found(5000)=%v found(3999)=%v", ix.n, found(5000), found(3999))
	}
	if len(ix.keys) != story.Bands+1 {
		t.Errorf("%d keys left, want %d", len(ix.keys), story.Bands+1)
	}
}

// BenchmarkStoryKeys is the per-post cost of a post's story keys, paid in
// the caller's goroutine (SubmitIngest), not by the single writer.
func BenchmarkStoryKeys(b *testing.B) {
	texts := []string{
		"Our team moved to Acme last month and honestly the board view is great but sync with the calendar is slow again today https://example.com/review?utm_source=x",
		"Acmeのサービスが今朝から全く繋がらない。サポートに問い合わせても返事がなく、仕事が止まっている。",
		"Tried Acme: export crash again, support ticket open since yesterday, pricing for the team plan is fine though",
	}
	for i := 0; b.Loop(); i++ {
		keysOf("p", "x", fmt.Sprintf("https://x.com/i/status/%d", i), texts[i%len(texts)], nil)
	}
}

// BenchmarkStoryIndex is the writer's in-memory part per post that joins
// no story: look its keys up, file it, evict the oldest of a full window.
func BenchmarkStoryIndex(b *testing.B) {
	var ix storyIndex
	ix.reset()
	ks := make([]storyKeys, 4096)
	for i := range ks {
		ks[i] = keysOf(fmt.Sprint(i), "x", fmt.Sprintf("https://x.com/i/status/%d", i), fmt.Sprintf("post %d with enough words to be fingerprinted, number %d, %d", i, i*7, i*13), nil)
	}
	t0 := time.Now().Unix()
	for i := 0; b.Loop(); i++ {
		k := &ks[i%len(ks)]
		ix.match(k)
		ix.add(testSlot(k, int64(i), t0))
	}
}

// TestStoryIndexMemory holds the README's figure: a full window of
// fingerprinted mentions, each with a link, stays under 25 MB of heap.
func TestStoryIndexMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var ix storyIndex
	ix.reset()
	t0 := time.Now().Unix()
	for i := range storyWindowCap {
		k := keysOf(fmt.Sprint(i%7), "news", fmt.Sprintf("https://example.com/a/%d", i), fmt.Sprintf("post %d: a long enough text for a fingerprint, words %d and %d", i, i*31, i*17), nil)
		ix.add(testSlot(&k, int64(i), t0))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	mb := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
	t.Logf("%d mentions: %.1f MB", ix.n, mb)
	if ix.n != storyWindowCap || mb > 25 {
		t.Errorf("%d mentions take %.1f MB", ix.n, mb)
	}
	runtime.KeepAlive(&ix)
}

func testSlot(k *storyKeys, rowid, collected int64) storySlot {
	sl := storySlot{rowid: rowid, scope: k.scope, collected: collected, hasSig: k.hasSig, sig: k.sig, bands: k.bands}
	sl.nLinks = copy(sl.linkKeys[:], k.linkKeys)
	return sl
}
