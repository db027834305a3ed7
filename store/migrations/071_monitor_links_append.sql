-- The monitor filter, like status, source and category (migration 070),
-- is served by an index that takes a new link at the end of its monitor's
-- range (mention ids are time-ordered UUIDv7) instead of a date-ordered one
-- that takes it at an unpredictable page. A monitor holding few mentions
-- is answered from it (fetch them, sort by date); a larger one by walking
-- the project's date index and looking the link up. Share of voice walks
-- the date index of the window.
DROP INDEX mention_monitors_feed;
CREATE INDEX mention_monitors_by_monitor ON mention_monitors(monitor_id, mention_id);
