-- get_usage's trend: mentions stored (and dropped over quota) per project
-- and UTC day. The period counters are what ingest already updates, once
-- per batch; these triggers add the same deltas to the day's row, so the
-- days sum to the period's mentions_used and a trend costs a 30-row read
-- instead of counting every mention stored in 30 days (0.1-0.7 s for a
-- million here).
CREATE TABLE usage_days (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  day        TEXT NOT NULL,
  mentions   INTEGER NOT NULL DEFAULT 0,
  dropped    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, day)
) WITHOUT ROWID;

CREATE TRIGGER usage_days_on_insert AFTER INSERT ON usage_periods
WHEN new.mentions_used <> 0 OR new.dropped <> 0
BEGIN
  INSERT INTO usage_days(project_id, day, mentions, dropped) VALUES (new.project_id, date('now'), new.mentions_used, new.dropped)
  ON CONFLICT(project_id, day) DO UPDATE SET mentions = mentions + excluded.mentions, dropped = dropped + excluded.dropped;
END;

CREATE TRIGGER usage_days_on_update AFTER UPDATE OF mentions_used, dropped ON usage_periods
WHEN new.mentions_used <> old.mentions_used OR new.dropped <> old.dropped
BEGIN
  INSERT INTO usage_days(project_id, day, mentions, dropped)
  VALUES (new.project_id, date('now'), new.mentions_used - old.mentions_used, new.dropped - old.dropped)
  ON CONFLICT(project_id, day) DO UPDATE SET mentions = mentions + excluded.mentions, dropped = dropped + excluded.dropped;
END;

-- The last month from the mentions already stored (their collection day).
INSERT INTO usage_days(project_id, day, mentions)
SELECT project_id, substr(collected_at, 1, 10), COUNT(*) FROM mentions INDEXED BY mentions_collected
WHERE collected_at >= strftime('%Y-%m-%dT00:00:00.000Z', 'now', '-31 days')
GROUP BY project_id, substr(collected_at, 1, 10);
