-- Search compares Unicode case-folded text (store.Fold: ß is ss, ﬁ is fi),
-- but the trigram tokenizer folds one letter at a time, so the index missed
-- rows that full folding made equal: a search for straße never found an
-- indexed STRASSE, and the same search gave other answers for rare words
-- (asked of the index) and common ones (a walk). The index now holds the
-- folded text and is asked for the folded search's trigrams, so its
-- candidates always include every row the exact predicate keeps. It is
-- contentless (it no longer mirrors mentions.text) and deletes by rowid.
-- Existing rows are queued for the background indexer, as in 060; until it
-- catches up they count as candidates (exact either way).
DROP TRIGGER IF EXISTS mentions_fts_ad;
DROP TRIGGER IF EXISTS mentions_fts_au;
DROP TABLE mentions_fts;
CREATE VIRTUAL TABLE mentions_fts USING fts5(text, content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0');
CREATE TRIGGER mentions_fts_ad AFTER DELETE ON mentions BEGIN
  DELETE FROM mentions_fts WHERE rowid = old.rowid;
  DELETE FROM fts_pending WHERE rowid = old.rowid;
END;
CREATE TRIGGER mentions_fts_au AFTER UPDATE OF text ON mentions BEGIN
  DELETE FROM mentions_fts WHERE rowid = old.rowid;
  INSERT OR IGNORE INTO fts_pending(rowid) VALUES (new.rowid);
END;
INSERT OR IGNORE INTO fts_pending(rowid) SELECT rowid FROM mentions;
