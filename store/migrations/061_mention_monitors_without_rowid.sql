-- Which monitors matched a mention, as a WITHOUT ROWID table keyed by
-- (mention_id, monitor_id): the key is the table, so storing a mention
-- writes two B-trees here (the table and the monitor's date-ordered feed)
-- instead of four (rowid table, primary-key index, mention index, feed).
CREATE TABLE mention_monitors_new (
  mention_id   TEXT NOT NULL REFERENCES mentions(id) ON DELETE CASCADE,
  monitor_id   TEXT NOT NULL,
  project_id   TEXT NOT NULL,
  published_at TEXT NOT NULL,
  PRIMARY KEY (mention_id, monitor_id)
) WITHOUT ROWID;
INSERT INTO mention_monitors_new(mention_id, monitor_id, project_id, published_at)
  SELECT mention_id, monitor_id, project_id, published_at FROM mention_monitors ORDER BY mention_id, monitor_id;
DROP TABLE mention_monitors;
ALTER TABLE mention_monitors_new RENAME TO mention_monitors;
CREATE INDEX mention_monitors_feed ON mention_monitors(monitor_id, published_at DESC, mention_id DESC);
