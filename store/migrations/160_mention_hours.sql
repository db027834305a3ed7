-- get_mention_stats' counts per project, UTC hour of publication, status
-- and sentiment (mention_hours), and the same per monitor that matched
-- the mention (mention_monitor_hours, for group_by=monitor), kept by
-- triggers on every write to mentions and their monitor links (ingest, a
-- status or sentiment change, a delete, a purge, a project's deletion), so
-- a series costs a read of at most 12 rows per hour (and monitor) of its
-- window instead of a count of every mention in it (0.1-1.5 s at 1M
-- mentions, issue 24). Filters on other columns still count the mentions
-- (stats.go).
CREATE TABLE mention_hours (
  project_id TEXT NOT NULL,
  hour       TEXT NOT NULL, -- the first 13 characters of published_at: 2026-11-27T05
  status     TEXT NOT NULL,
  sentiment  TEXT NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (project_id, hour, status, sentiment)
) WITHOUT ROWID;

CREATE TABLE mention_monitor_hours (
  project_id TEXT NOT NULL,
  hour       TEXT NOT NULL,
  monitor_id TEXT NOT NULL,
  status     TEXT NOT NULL,
  sentiment  TEXT NOT NULL,
  n          INTEGER NOT NULL,
  PRIMARY KEY (project_id, hour, monitor_id, status, sentiment)
) WITHOUT ROWID;

-- No foreign key to projects (as on PostgreSQL, where a key checked on
-- each of a deleted project's mentions' updates would find the project
-- gone): a project's rows go after it.
CREATE TRIGGER mention_hours_project_gone AFTER DELETE ON projects BEGIN
  DELETE FROM mention_hours WHERE project_id = old.id;
  DELETE FROM mention_monitor_hours WHERE project_id = old.id;
END;

CREATE TRIGGER mention_hours_ai AFTER INSERT ON mentions BEGIN
  INSERT INTO mention_hours(project_id, hour, status, sentiment, n)
  VALUES (new.project_id, substr(new.published_at, 1, 13), new.status, new.sentiment, 1)
  ON CONFLICT(project_id, hour, status, sentiment) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER mention_hours_ad AFTER DELETE ON mentions BEGIN
  UPDATE mention_hours SET n = n - 1
  WHERE project_id = old.project_id AND hour = substr(old.published_at, 1, 13) AND status = old.status AND sentiment = old.sentiment;
END;

-- A deleted mention's links go by cascade, after the mention: its monitors'
-- counts are taken down before, while the links are there (the links'
-- delete trigger then finds no mention and changes nothing).
CREATE TRIGGER mention_monitor_hours_bd BEFORE DELETE ON mentions BEGIN
  UPDATE mention_monitor_hours SET n = n - 1
  WHERE project_id = old.project_id AND hour = substr(old.published_at, 1, 13) AND status = old.status AND sentiment = old.sentiment
    AND monitor_id IN (SELECT monitor_id FROM mention_monitors WHERE mention_id = old.id);
END;

CREATE TRIGGER mention_monitor_hours_link_ai AFTER INSERT ON mention_monitors BEGIN
  INSERT INTO mention_monitor_hours(project_id, hour, monitor_id, status, sentiment, n)
  SELECT m.project_id, substr(m.published_at, 1, 13), new.monitor_id, m.status, m.sentiment, 1 FROM mentions m WHERE m.id = new.mention_id
  ON CONFLICT(project_id, hour, monitor_id, status, sentiment) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER mention_monitor_hours_link_ad AFTER DELETE ON mention_monitors BEGIN
  UPDATE mention_monitor_hours SET n = n - 1
  WHERE (project_id, hour, monitor_id, status, sentiment) IN
    (SELECT m.project_id, substr(m.published_at, 1, 13), old.monitor_id, m.status, m.sentiment FROM mentions m WHERE m.id = old.mention_id);
END;

CREATE TRIGGER mention_hours_au AFTER UPDATE OF project_id, published_at, status, sentiment ON mentions
WHEN old.project_id IS NOT new.project_id OR substr(old.published_at, 1, 13) IS NOT substr(new.published_at, 1, 13)
  OR old.status IS NOT new.status OR old.sentiment IS NOT new.sentiment
BEGIN
  UPDATE mention_hours SET n = n - 1
  WHERE project_id = old.project_id AND hour = substr(old.published_at, 1, 13) AND status = old.status AND sentiment = old.sentiment;
  INSERT INTO mention_hours(project_id, hour, status, sentiment, n)
  VALUES (new.project_id, substr(new.published_at, 1, 13), new.status, new.sentiment, 1)
  ON CONFLICT(project_id, hour, status, sentiment) DO UPDATE SET n = n + 1;
  UPDATE mention_monitor_hours SET n = n - 1
  WHERE project_id = old.project_id AND hour = substr(old.published_at, 1, 13) AND status = old.status AND sentiment = old.sentiment
    AND monitor_id IN (SELECT monitor_id FROM mention_monitors WHERE mention_id = old.id);
  INSERT INTO mention_monitor_hours(project_id, hour, monitor_id, status, sentiment, n)
  SELECT new.project_id, substr(new.published_at, 1, 13), l.monitor_id, new.status, new.sentiment, 1 FROM mention_monitors l WHERE l.mention_id = new.id
  ON CONFLICT(project_id, hour, monitor_id, status, sentiment) DO UPDATE SET n = n + 1;
END;

INSERT INTO mention_hours(project_id, hour, status, sentiment, n)
SELECT project_id, substr(published_at, 1, 13), status, sentiment, COUNT(*) FROM mentions
GROUP BY project_id, substr(published_at, 1, 13), status, sentiment;

INSERT INTO mention_monitor_hours(project_id, hour, monitor_id, status, sentiment, n)
SELECT m.project_id, substr(m.published_at, 1, 13), l.monitor_id, m.status, m.sentiment, COUNT(*)
FROM mention_monitors l JOIN mentions m ON m.id = l.mention_id
GROUP BY m.project_id, substr(m.published_at, 1, 13), l.monitor_id, m.status, m.sentiment;
