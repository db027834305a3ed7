package collect

import (
	"context"
	"testing"
	"time"
)

// Issue 25 M7, on both backends: a scan whose posts include one with NUL
// characters (in its id, text and author) stores every post, that one
// without its NULs; a javascript: post url is not stored. Before, on
// PostgreSQL the lookup of known posts failed the whole batch, and the
// source fetched the same window again forever.
func TestPipelineStoresAPostWithNUL(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newTestPipeline(f, PipelineConfig{})
	now := time.Now().Add(-time.Hour)
	m := f.monitor(t, f.project.ID, nil)
	bad := hnPost("2\x00", "Acme\x00 is great", now)
	bad.AuthorHandle, bad.URL = "mal\x00lory", "javascript:alert(1)"
	c, err := p.Process(ctx, m, "hn", []Post{hnPost("1", "Acme one", now), bad, hnPost("3", "Acme three", now)})
	if err != nil || c.New != 3 {
		t.Fatalf("counts %+v, err %v: want the three posts stored", c, err)
	}
	got := mentionByExternalID(t, f.st, f.project.ID, "hn", "2")
	if got == nil || got.Text != "Acme is great" || got.AuthorHandle != "mallory" || got.URL != "" {
		t.Errorf("the post with NULs was stored as %+v", got)
	}
}
