-- Search: an external-content FTS5 trigram index over mention text, kept in
-- sync by triggers (text never changes after insert; delete removes it).
CREATE VIRTUAL TABLE mentions_fts USING fts5(text, content='mentions', content_rowid='rowid', tokenize='trigram case_sensitive 0');
CREATE TRIGGER mentions_fts_ai AFTER INSERT ON mentions BEGIN
  INSERT INTO mentions_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER mentions_fts_ad AFTER DELETE ON mentions BEGIN
  INSERT INTO mentions_fts(mentions_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER mentions_fts_au AFTER UPDATE OF text ON mentions BEGIN
  INSERT INTO mentions_fts(mentions_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO mentions_fts(rowid, text) VALUES (new.rowid, new.text);
END;
-- Selective filters that would otherwise walk the whole project.
CREATE INDEX mentions_source ON mentions(project_id, source, published_at DESC, id DESC);
CREATE INDEX mentions_category ON mentions(project_id, category, published_at DESC, id DESC);
