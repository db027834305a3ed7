-- Corrections that teach (issue 28): the category and sentiment a person
-- gave a mention. mentions.category/sentiment hold what the product shows
-- (the correction once there is one); this table keeps the human label
-- apart, so nothing that classifies again can take it for its own output,
-- and the project's classifier learns from it (store.CorrectionExamples,
-- newest first through the index). A table of its own rather than columns
-- on mentions: it can be created again without harm (IF NOT EXISTS), and
-- the mentions table, read by every list, stays as it was.
CREATE TABLE IF NOT EXISTS mention_corrections (
  mention_id   TEXT PRIMARY KEY REFERENCES mentions(id) ON DELETE CASCADE,
  project_id   TEXT NOT NULL,
  category     TEXT NOT NULL DEFAULT '', -- '' where only the sentiment was corrected
  sentiment    TEXT NOT NULL DEFAULT '',
  corrected_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mention_corrections_project ON mention_corrections(project_id, corrected_at);
