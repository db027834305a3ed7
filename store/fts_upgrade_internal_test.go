package store

import (
	"context"
	"testing"
	"time"
)

// TestFoldedSearchIndexUpgrade: a database whose search index held the
// unfolded text (before migration 141) is re-queued on the next start; once
// the indexer has caught up, a rare search finds what folding makes equal,
// and deleting a mention still works (the triggers were replaced too).
func TestFoldedSearchIndexUpgrade(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := st.CreateUser(ctx, "o@example.com", "x", "")
	p, err := st.CreateProject(ctx, u.ID, "P", nil)
	if err != nil {
		t.Fatal(err)
	}
	// The index as 060 and 030 left it, holding unfolded text.
	for _, q := range []string{`DROP TRIGGER mentions_fts_ad`, `DROP TRIGGER mentions_fts_au`, `DROP TABLE mentions_fts`,
		`CREATE VIRTUAL TABLE mentions_fts USING fts5(text, content='mentions', content_rowid='rowid', detail=none, tokenize='trigram case_sensitive 0')`,
		`CREATE TRIGGER mentions_fts_ad AFTER DELETE ON mentions BEGIN
		  INSERT INTO mentions_fts(mentions_fts, rowid, text)
		    SELECT 'delete', old.rowid, old.text WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE rowid = old.rowid);
		  DELETE FROM fts_pending WHERE rowid = old.rowid;
		END`,
		`DELETE FROM schema_version WHERE version = 141`} {
		if _, err := st.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.IngestMentions(ctx, p.ID, 0, []NewMention{
		{Source: "x", ExternalID: "1", Text: "Die STRASSE ist gesperrt", PublishedAt: time.Now(), IsRelevant: true},
		{Source: "x", ExternalID: "2", Text: "Other words entirely", PublishedAt: time.Now(), IsRelevant: true},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.w.ExecContext(ctx, `INSERT INTO mentions_fts(rowid, text) SELECT m.rowid, m.text FROM fts_pending f JOIN mentions m ON m.rowid = f.rowid`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.w.ExecContext(ctx, `DELETE FROM fts_pending`); err != nil {
		t.Fatal(err)
	}
	st.Close()

	if st, err = Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.IndexSearch(ctx, 100); err != nil || n != 2 {
		t.Fatalf("reindexed %d, %v; want both mentions", n, err)
	}
	if st.rareSearch(ctx, MentionFilter{ProjectID: p.ID, Search: "straße"}) == "" {
		t.Fatal("the search is not asked of the index")
	}
	got, err := st.ListMentions(ctx, MentionFilter{ProjectID: p.ID, Search: "straße"}, nil, 10)
	if err != nil || len(got) != 1 || got[0].ExternalID != "1" {
		t.Fatalf("straße found %d mentions, %v; want the STRASSE one", len(got), err)
	}
	if _, err := st.w.ExecContext(ctx, `DELETE FROM mentions WHERE id = ?`, got[0].ID); err != nil {
		t.Fatal(err)
	}
	if got, err = st.ListMentions(ctx, MentionFilter{ProjectID: p.ID, Search: "strasse"}, nil, 10); err != nil || len(got) != 0 {
		t.Fatalf("after delete: %d, %v", len(got), err)
	}
}
