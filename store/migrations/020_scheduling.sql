-- Scheduling: what the stale check needs to know about each source of each
-- monitor — how many scans ran and how far apart its posts usually are.
ALTER TABLE monitor_sources ADD COLUMN scans_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE monitor_sources ADD COLUMN post_gap_seconds REAL NOT NULL DEFAULT 0;
