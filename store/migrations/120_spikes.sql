-- Spikes: bursts of a monitor's or a keyword group's hourly mention count
-- against its own history (package spike). The detector keeps its hourly
-- counts here instead of re-reading two weeks of mentions on every run:
-- only hours that received newly collected mentions are counted again.
CREATE TABLE spike_counts (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  scope      TEXT NOT NULL CHECK (scope IN ('monitor','keyword_group')),
  scope_id   TEXT NOT NULL,
  hour       TEXT NOT NULL, -- UTC hour start, store.TimeFormat
  total      INTEGER NOT NULL,
  negative   INTEGER NOT NULL,
  PRIMARY KEY (project_id, scope, scope_id, hour)
) WITHOUT ROWID;

-- Per project: counted since (the oldest hour counted) and the collected_at
-- up to which new mentions have been counted.
CREATE TABLE spike_state (
  project_id   TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  counted_from TEXT NOT NULL,
  watermark    TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);

-- One record per (scope, kind, hour): detection is idempotent.
CREATE TABLE spikes (
  id               TEXT PRIMARY KEY,
  project_id       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  scope            TEXT NOT NULL,
  scope_id         TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('volume','negative')),
  bucket_start     TEXT NOT NULL,
  bucket_end       TEXT NOT NULL,
  count            INTEGER NOT NULL,
  baseline         REAL NOT NULL,
  score            REAL NOT NULL,
  detected_at      TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (project_id, scope, scope_id, kind, bucket_start)
);
CREATE INDEX spikes_feed ON spikes(project_id, bucket_start DESC, id DESC);
