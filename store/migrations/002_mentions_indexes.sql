-- Indexes for the mentions inbox; each one serves a filter shape checked by
-- EXPLAIN QUERY PLAN in store tests.
CREATE INDEX mentions_feed ON mentions(project_id, published_at DESC, id DESC);
CREATE INDEX mentions_status ON mentions(project_id, status, published_at DESC, id DESC);
CREATE INDEX mentions_collected ON mentions(project_id, collected_at, id);
CREATE INDEX mentions_author ON mentions(project_id, author_handle, published_at DESC, id DESC);
CREATE INDEX mention_monitors_feed ON mention_monitors(monitor_id, published_at DESC, mention_id DESC);
