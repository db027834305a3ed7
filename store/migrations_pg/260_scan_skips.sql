-- No silent zero (issue 27): every scan records how many posts it read
-- and why the ones it did not store were skipped (a JSON object reason ->
-- count), and each source keeps its latest scan's summary, so a source that
-- reads 50 posts and stores none says why. Tables of their own (not new
-- columns) so the migration can run again without harm.
CREATE TABLE IF NOT EXISTS scan_counts (
  scan_id    TEXT PRIMARY KEY REFERENCES scans(id) ON DELETE CASCADE,
  posts_read INTEGER NOT NULL DEFAULT 0,
  skipped    TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS source_last_scan (
  monitor_id TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  source     TEXT NOT NULL,
  summary    TEXT NOT NULL,
  PRIMARY KEY (monitor_id, source)
);
