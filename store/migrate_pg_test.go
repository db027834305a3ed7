package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// CopyToPostgres keeps rowids and sequence numbers, fills text_folded,
// moves identity sequences past the copied values, does not let the
// usage trigger count the copied usage twice, and refuses a database that
// holds data.
func TestCopyToPostgres(t *testing.T) {
	base := os.Getenv("EARSHOT_TEST_DATABASE_URL")
	if base == "" {
		t.Skip("needs PostgreSQL: set EARSHOT_TEST_DATABASE_URL")
	}
	ctx := context.Background()
	src, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	u, err := src.CreateUser(ctx, "copy@example.com", "x", "Copy")
	if err != nil {
		t.Fatal(err)
	}
	p, err := src.CreateProject(ctx, u.ID, "Copy", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &Monitor{ProjectID: p.ID, Name: "m", Keywords: []string{"Acme"}, QueryMode: "any", Sources: []string{"x"}, Active: true,
		ScanIntervalMinutes: 15, BackfillHours: 24, GroupName: "my_brand"}
	if err := src.CreateMonitor(ctx, m); err != nil {
		t.Fatal(err)
	}
	var batch []NewMention
	for i := range 50 {
		batch = append(batch, NewMention{Source: "x", ExternalID: fmt.Sprint(i), URL: fmt.Sprintf("https://x.com/i/%d", i),
			Text: fmt.Sprintf("Acme STRASSE Straße number %d", i), PublishedAt: time.Now().Add(-time.Duration(i) * time.Minute), MonitorIDs: []string{m.ID}})
	}
	if _, err := src.IngestMentions(ctx, p.ID, 0, batch); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		ev, err := NewEvent(p.ID, "mention.created", map[string]any{"n": i})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.RecordEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	var srcTop, srcEvents, srcUsage int64
	src.r.QueryRowContext(ctx, `SELECT MAX(rowid) FROM mentions`).Scan(&srcTop)
	src.r.QueryRowContext(ctx, `SELECT MAX(seq) FROM events`).Scan(&srcEvents)
	src.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(mentions), 0) FROM usage_days`).Scan(&srcUsage)

	url, drop, err := NewSchema(ctx, base, "t_")
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	dst, err := OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	var tables []string
	rep, err := CopyToPostgres(ctx, src, dst, func(c CopiedTable) { tables = append(tables, c.Name) })
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for _, c := range rep.Tables {
		rows[c.Name] = c.Rows
	}
	if rows["mentions"] != 50 || rows["users"] != 1 || rows["mention_monitors"] != 50 || rows["events"] != 3 {
		t.Errorf("copied %v", rows)
	}
	pos := map[string]int{}
	for i, n := range tables {
		pos[n] = i
	}
	if !(pos["users"] < pos["projects"] && pos["projects"] < pos["monitors"] && pos["mentions"] < pos["mention_monitors"]) {
		t.Errorf("not parents first: %v", tables)
	}
	var top, events, usage, unfolded int64
	dst.r.QueryRowContext(ctx, `SELECT MAX(rowid) FROM mentions`).Scan(&top)
	dst.r.QueryRowContext(ctx, `SELECT MAX(seq) FROM events`).Scan(&events)
	dst.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(mentions), 0)::bigint FROM usage_days`).Scan(&usage)
	dst.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM mentions WHERE text_folded IS NULL OR text_folded <> lower(text_folded) OR text_folded NOT LIKE '%strasse%'`).Scan(&unfolded)
	if top != srcTop || events != srcEvents || usage != srcUsage || unfolded != 0 {
		t.Errorf("rowid %d (SQLite %d), event seq %d (%d), usage %d (%d), %d mentions not folded", top, srcTop, events, srcEvents, usage, srcUsage, unfolded)
	}
	// New rows continue after the copied ones.
	if _, err := dst.IngestMentions(ctx, p.ID, 0, []NewMention{{Source: "x", ExternalID: "new", URL: "https://x.com/i/new", Text: "Acme again",
		PublishedAt: time.Now(), MonitorIDs: []string{m.ID}}}); err != nil {
		t.Fatal(err)
	}
	var newRowid int64
	dst.r.QueryRowContext(ctx, `SELECT rowid FROM mentions WHERE external_id = 'new'`).Scan(&newRowid)
	if newRowid <= srcTop {
		t.Errorf("a new mention got rowid %d, not after %d", newRowid, srcTop)
	}
	if _, err := CopyToPostgres(ctx, src, dst, nil); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("a second copy: %v", err)
	}
}
