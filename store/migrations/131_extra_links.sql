-- The pages a post links to that its URL and text do not show (an HN or
-- Reddit link submission's target), canonical, as a JSON array: stories
-- group by them, and the in-memory story index is rebuilt from them after
-- a restart. NULL for every other post (no row is rewritten).
ALTER TABLE mentions ADD COLUMN extra_links TEXT;
