-- Corrections that teach (issue 28): as SQLite's migration 270; see there.
ALTER TABLE mentions ADD COLUMN human_category TEXT COLLATE "C";
ALTER TABLE mentions ADD COLUMN human_sentiment TEXT COLLATE "C";
ALTER TABLE mentions ADD COLUMN corrected_at TEXT COLLATE "C";
CREATE INDEX mentions_corrected ON mentions(project_id, corrected_at) WHERE corrected_at IS NOT NULL;
