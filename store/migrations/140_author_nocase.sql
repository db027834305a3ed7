-- The author_handle filter ignores letter case (handles on X, Reddit,
-- Bluesky and the rest are case-insensitive; alerts always matched them
-- so). The author index takes NOCASE, the collation of the filter's
-- comparison, so the filter stays an index lookup; same name, so the
-- queries that name it keep working.
DROP INDEX mentions_author;
CREATE INDEX mentions_author ON mentions(project_id, author_handle COLLATE NOCASE, published_at DESC, id DESC);
