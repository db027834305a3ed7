-- Search indexing leaves the ingest transaction: ingest records new rowids
-- in fts_pending (one tiny row each) and the search indexer moves them into
-- the trigram index in large batches. Searches treat pending rows as
-- candidates, so results are exact whether or not the indexer has caught up.
CREATE TABLE fts_pending (rowid INTEGER PRIMARY KEY);
DROP TRIGGER mentions_fts_ad;
CREATE TRIGGER mentions_fts_ad AFTER DELETE ON mentions BEGIN
  INSERT INTO mentions_fts(mentions_fts, rowid, text)
    SELECT 'delete', old.rowid, old.text WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE rowid = old.rowid);
  DELETE FROM fts_pending WHERE rowid = old.rowid;
END;
-- The relevance model reads the latest triaged mentions of a project.
CREATE INDEX mentions_triaged ON mentions(project_id, updated_at) WHERE status IN ('ignored','reviewed','done');
