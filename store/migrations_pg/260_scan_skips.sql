-- No silent zero (issue 27): every scan records how many posts it read
-- and why the ones it did not store were skipped (a JSON object reason ->
-- count), and each source keeps its latest scan's summary, so a source that
-- reads 50 posts and stores none says why.
ALTER TABLE scans ADD COLUMN posts_read INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scans ADD COLUMN skipped TEXT NOT NULL DEFAULT '';
ALTER TABLE monitor_sources ADD COLUMN last_scan TEXT NOT NULL DEFAULT '';
