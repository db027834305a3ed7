-- Every mention keeps why it was filed as it was: one short, readable
-- sentence each for its category, its urgency and its relevance (shown by
-- get_mention and the dashboard), and whether it is one of the project's
-- own posts (by its own accounts or on its own website: stored, listed
-- with own=true, but not a mention to triage, so also is_relevant=false).
-- Existing mentions get empty reasons and own=0.
ALTER TABLE mentions ADD COLUMN category_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE mentions ADD COLUMN urgency_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE mentions ADD COLUMN relevance_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE mentions ADD COLUMN own INTEGER NOT NULL DEFAULT 0;
