-- A link is its key: since 071 nothing reads the copies of the mention's
-- project and publication date that each link carried (lists and share of
-- voice take them from the mention), so they are no longer written.
ALTER TABLE mention_monitors DROP COLUMN published_at;
ALTER TABLE mention_monitors DROP COLUMN project_id;
