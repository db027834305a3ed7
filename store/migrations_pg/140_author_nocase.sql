-- The author_handle filter ignores ASCII letter case (migrations/140 on
-- SQLite, where the index takes NOCASE). On PostgreSQL the filter compares
-- lower(author_handle), which on the C-collated column folds ASCII letters
-- only, as NOCASE does; the author index is on that expression so the
-- filter stays an index walk in date order. Same name as SQLite's.
DROP INDEX mentions_author;
CREATE INDEX mentions_author ON mentions(project_id, lower(author_handle), published_at DESC, id DESC);
