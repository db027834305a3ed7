-- Status, source and category filters are served by indexes keyed by
-- (project, value) and, implicitly, rowid, instead of (project, value,
-- published_at, id). Posts arrive out of publication order, so a
-- date-ordered index takes each new mention at an unpredictable page,
-- which the commit writes to the WAL and the checkpoint again; these take
-- it at the end of its value's range, like the table itself. Measured into
-- a store of 1M mentions (collect/PERF.md): 3,880-4,390 posts/s before,
-- 5,182-5,332 after. A filter value held by few mentions is answered from
-- its index (fetch them, sort by date); a common one by walking the date
-- index and testing the value (see rareFacetCap in mentions.go).
DROP INDEX mentions_status;
DROP INDEX mentions_source;
DROP INDEX mentions_category;
CREATE INDEX mentions_by_status ON mentions(project_id, status);
CREATE INDEX mentions_by_source ON mentions(project_id, source);
CREATE INDEX mentions_by_category ON mentions(project_id, category);
