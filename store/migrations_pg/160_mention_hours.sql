-- get_mention_stats' counts per project, UTC hour of publication, status
-- and sentiment, and per monitor, kept by triggers on every write to
-- mentions and their monitor links (as SQLite's migration 160; see there).
CREATE TABLE mention_hours (
  project_id TEXT COLLATE "C" NOT NULL,
  hour       TEXT COLLATE "C" NOT NULL,
  status     TEXT COLLATE "C" NOT NULL,
  sentiment  TEXT COLLATE "C" NOT NULL,
  n          BIGINT NOT NULL,
  PRIMARY KEY (project_id, hour, status, sentiment)
);

CREATE TABLE mention_monitor_hours (
  project_id TEXT COLLATE "C" NOT NULL,
  hour       TEXT COLLATE "C" NOT NULL,
  monitor_id TEXT COLLATE "C" NOT NULL,
  status     TEXT COLLATE "C" NOT NULL,
  sentiment  TEXT COLLATE "C" NOT NULL,
  n          BIGINT NOT NULL,
  PRIMARY KEY (project_id, hour, monitor_id, status, sentiment)
);

CREATE FUNCTION mention_hours_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE mention_hours SET n = n - 1
    WHERE project_id = OLD.project_id AND hour = substr(OLD.published_at, 1, 13) AND status = OLD.status AND sentiment = OLD.sentiment;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO mention_hours(project_id, hour, status, sentiment, n)
    VALUES (NEW.project_id, substr(NEW.published_at, 1, 13), NEW.status, NEW.sentiment, 1)
    ON CONFLICT (project_id, hour, status, sentiment) DO UPDATE SET n = mention_hours.n + 1;
  END IF;
  -- A new mention has no links yet (they come after it); a changed one
  -- moves its monitors' counts. A deleted one: mention_monitor_hours_bd.
  IF TG_OP = 'UPDATE' THEN
    UPDATE mention_monitor_hours SET n = n - 1
    WHERE project_id = OLD.project_id AND hour = substr(OLD.published_at, 1, 13) AND status = OLD.status AND sentiment = OLD.sentiment
      AND monitor_id IN (SELECT monitor_id FROM mention_monitors WHERE mention_id = OLD.id);
    INSERT INTO mention_monitor_hours(project_id, hour, monitor_id, status, sentiment, n)
    SELECT NEW.project_id, substr(NEW.published_at, 1, 13), l.monitor_id, NEW.status, NEW.sentiment, 1 FROM mention_monitors l WHERE l.mention_id = NEW.id
    ON CONFLICT (project_id, hour, monitor_id, status, sentiment) DO UPDATE SET n = mention_monitor_hours.n + 1;
  END IF;
  RETURN NULL;
END $$;

-- A deleted mention's links go by cascade after it: its monitors' counts
-- are taken down before, while the links are there.
CREATE FUNCTION mention_monitor_hours_before_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE mention_monitor_hours SET n = n - 1
  WHERE project_id = OLD.project_id AND hour = substr(OLD.published_at, 1, 13) AND status = OLD.status AND sentiment = OLD.sentiment
    AND monitor_id IN (SELECT monitor_id FROM mention_monitors WHERE mention_id = OLD.id);
  RETURN OLD;
END $$;

-- A link counts its mention for its monitor; a removed link whose
-- mention is still there uncounts it (with the mention gone, the
-- mention's own trigger did).
CREATE FUNCTION mention_monitor_hours_link() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO mention_monitor_hours(project_id, hour, monitor_id, status, sentiment, n)
    SELECT m.project_id, substr(m.published_at, 1, 13), NEW.monitor_id, m.status, m.sentiment, 1 FROM mentions m WHERE m.id = NEW.mention_id
    ON CONFLICT (project_id, hour, monitor_id, status, sentiment) DO UPDATE SET n = mention_monitor_hours.n + 1;
  ELSE
    UPDATE mention_monitor_hours h SET n = h.n - 1 FROM mentions m
    WHERE m.id = OLD.mention_id AND h.project_id = m.project_id AND h.hour = substr(m.published_at, 1, 13)
      AND h.monitor_id = OLD.monitor_id AND h.status = m.status AND h.sentiment = m.sentiment;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER mention_monitor_hours_bd BEFORE DELETE ON mentions
  FOR EACH ROW EXECUTE FUNCTION mention_monitor_hours_before_delete();
CREATE TRIGGER mention_monitor_hours_link AFTER INSERT OR DELETE ON mention_monitors
  FOR EACH ROW EXECUTE FUNCTION mention_monitor_hours_link();
-- No foreign key to projects: a project's deletion takes its mentions
-- down through the triggers above, and a key checked on each of those
-- updates would find the project already gone. Its rows go after it.
CREATE FUNCTION mention_hours_project_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM mention_hours WHERE project_id = OLD.id;
  DELETE FROM mention_monitor_hours WHERE project_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER mention_hours_project_gone AFTER DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION mention_hours_project_gone();

CREATE TRIGGER mention_hours_ins_del AFTER INSERT OR DELETE ON mentions
  FOR EACH ROW EXECUTE FUNCTION mention_hours_track();
CREATE TRIGGER mention_hours_upd AFTER UPDATE OF project_id, published_at, status, sentiment ON mentions
  FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id OR substr(OLD.published_at, 1, 13) IS DISTINCT FROM substr(NEW.published_at, 1, 13)
    OR OLD.status IS DISTINCT FROM NEW.status OR OLD.sentiment IS DISTINCT FROM NEW.sentiment)
  EXECUTE FUNCTION mention_hours_track();

INSERT INTO mention_hours(project_id, hour, status, sentiment, n)
SELECT project_id, substr(published_at, 1, 13), status, sentiment, COUNT(*) FROM mentions
GROUP BY project_id, substr(published_at, 1, 13), status, sentiment;

INSERT INTO mention_monitor_hours(project_id, hour, monitor_id, status, sentiment, n)
SELECT m.project_id, substr(m.published_at, 1, 13), l.monitor_id, m.status, m.sentiment, COUNT(*)
FROM mention_monitors l JOIN mentions m ON m.id = l.mention_id
GROUP BY m.project_id, substr(m.published_at, 1, 13), l.monitor_id, m.status, m.sentiment;
