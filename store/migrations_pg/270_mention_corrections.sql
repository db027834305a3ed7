-- Corrections that teach (issue 28): as SQLite's migration 270; see there.
CREATE TABLE IF NOT EXISTS mention_corrections (
  mention_id   TEXT COLLATE "C" PRIMARY KEY REFERENCES mentions(id) ON DELETE CASCADE,
  project_id   TEXT COLLATE "C" NOT NULL,
  category     TEXT COLLATE "C" NOT NULL DEFAULT '',
  sentiment    TEXT COLLATE "C" NOT NULL DEFAULT '',
  corrected_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX IF NOT EXISTS mention_corrections_project ON mention_corrections(project_id, corrected_at);
