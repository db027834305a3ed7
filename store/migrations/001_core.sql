-- Core schema. Timestamps are TEXT in store.TimeFormat (UTC, milliseconds,
-- fixed width) so that text order is time order. JSON arrays are TEXT.

CREATE TABLE users (
  id            TEXT PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  full_name     TEXT NOT NULL DEFAULT '',
  created_at    TEXT NOT NULL
);

CREATE TABLE sessions (
  id         TEXT PRIMARY KEY,
  token_hash BLOB NOT NULL UNIQUE,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE projects (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  slug           TEXT NOT NULL UNIQUE,
  plan           TEXT NOT NULL DEFAULT 'trial',
  website        TEXT,
  description    TEXT NOT NULL DEFAULT '',
  public_enabled INTEGER NOT NULL DEFAULT 0,
  owner_id       TEXT NOT NULL REFERENCES users(id),
  archived_at    TEXT,
  created_at     TEXT NOT NULL
);

CREATE TABLE memberships (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role       TEXT NOT NULL CHECK (role IN ('owner','editor','viewer')),
  created_at TEXT NOT NULL,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX memberships_user ON memberships(user_id);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name         TEXT NOT NULL DEFAULT '',
  prefix       TEXT NOT NULL,
  last4        TEXT NOT NULL,
  hash         BLOB NOT NULL UNIQUE,
  scopes       TEXT NOT NULL,
  created_by   TEXT REFERENCES users(id),
  created_at   TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at   TEXT
);
CREATE INDEX api_keys_project ON api_keys(project_id);

CREATE TABLE keyword_groups (
  id         TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  is_own     INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX keyword_groups_project ON keyword_groups(project_id, created_at);

CREATE TABLE monitors (
  id                    TEXT PRIMARY KEY,
  project_id            TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name                  TEXT NOT NULL,
  keywords              TEXT NOT NULL DEFAULT '[]',
  exclude_keywords      TEXT NOT NULL DEFAULT '[]',
  query_mode            TEXT NOT NULL DEFAULT 'any',
  watch_accounts        TEXT NOT NULL DEFAULT '[]',
  feed_urls             TEXT NOT NULL DEFAULT '[]',
  review_urls           TEXT NOT NULL DEFAULT '[]',
  sources               TEXT NOT NULL,
  group_name            TEXT NOT NULL DEFAULT 'custom',
  group_id              TEXT REFERENCES keyword_groups(id) ON DELETE SET NULL,
  active                INTEGER NOT NULL DEFAULT 1,
  scan_interval_minutes INTEGER NOT NULL DEFAULT 15,
  backfill_hours        INTEGER NOT NULL DEFAULT 24,
  last_scanned_at       TEXT,
  next_scan_at          TEXT,
  lease_owner           TEXT,
  lease_until           TEXT,
  deleted_at            TEXT,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL
);
CREATE INDEX monitors_project ON monitors(project_id, created_at);
CREATE INDEX monitors_due ON monitors(next_scan_at) WHERE active = 1 AND deleted_at IS NULL;

-- Per monitor and source: the collector's incremental state and its health.
CREATE TABLE monitor_sources (
  monitor_id           TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  source               TEXT NOT NULL,
  state                TEXT NOT NULL DEFAULT '',
  status               TEXT NOT NULL DEFAULT 'pending',
  detail               TEXT NOT NULL DEFAULT '',
  last_error           TEXT NOT NULL DEFAULT '',
  failing_since        TEXT,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  rate_limited_until   TEXT,
  last_ok_at           TEXT,
  last_post_at         TEXT,
  empty_scans          INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, source)
);

CREATE TABLE scans (
  id            TEXT PRIMARY KEY,
  monitor_id    TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
  source        TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  finished_at   TEXT,
  fetched       INTEGER NOT NULL DEFAULT 0,
  matched       INTEGER NOT NULL DEFAULT 0,
  new           INTEGER NOT NULL DEFAULT 0,
  duplicates    INTEGER NOT NULL DEFAULT 0,
  dropped_quota INTEGER NOT NULL DEFAULT 0,
  error         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX scans_monitor ON scans(monitor_id, started_at);

CREATE TABLE mentions (
  id            TEXT PRIMARY KEY,
  project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  monitor_id    TEXT,
  monitor_ids   TEXT NOT NULL DEFAULT '[]',
  source        TEXT NOT NULL,
  external_id   TEXT NOT NULL,
  url           TEXT NOT NULL DEFAULT '',
  author_handle TEXT NOT NULL DEFAULT '',
  text          TEXT NOT NULL DEFAULT '',
  published_at  TEXT NOT NULL,
  collected_at  TEXT NOT NULL,
  engagement    TEXT NOT NULL DEFAULT '{}',
  is_relevant   INTEGER NOT NULL DEFAULT 1,
  category      TEXT NOT NULL DEFAULT 'other',
  sentiment     TEXT NOT NULL DEFAULT 'neutral',
  urgency       INTEGER NOT NULL DEFAULT 0,
  ai_summary    TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL DEFAULT 'new',
  classifier    TEXT NOT NULL DEFAULT '',
  cost_usd      REAL NOT NULL DEFAULT 0,
  updated_at    TEXT NOT NULL,
  UNIQUE (project_id, source, external_id)
);

-- Which monitors matched a mention (monitor_ids, group membership).
CREATE TABLE mention_monitors (
  mention_id   TEXT NOT NULL REFERENCES mentions(id) ON DELETE CASCADE,
  monitor_id   TEXT NOT NULL,
  project_id   TEXT NOT NULL,
  published_at TEXT NOT NULL,
  PRIMARY KEY (monitor_id, mention_id)
);
CREATE INDEX mention_monitors_mention ON mention_monitors(mention_id);

CREATE TABLE categories (
  project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  category    TEXT NOT NULL,
  label       TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  enabled     INTEGER NOT NULL DEFAULT 1,
  position    INTEGER NOT NULL,
  PRIMARY KEY (project_id, category)
);

CREATE TABLE views (
  id         TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  filters    TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX views_project ON views(project_id, created_at);

CREATE TABLE alerts (
  id             TEXT PRIMARY KEY,
  project_id     TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name           TEXT NOT NULL,
  active         INTEGER NOT NULL DEFAULT 1,
  min_urgency    INTEGER NOT NULL DEFAULT 70,
  channel        TEXT NOT NULL,
  target         TEXT NOT NULL,
  secret         TEXT NOT NULL DEFAULT '',
  filters        TEXT NOT NULL DEFAULT '{}',
  digest         TEXT NOT NULL DEFAULT 'instant',
  last_digest_at TEXT,
  created_at     TEXT NOT NULL
);
CREATE INDEX alerts_project ON alerts(project_id, created_at);

CREATE TABLE webhooks (
  id                    TEXT PRIMARY KEY,
  project_id            TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  url                   TEXT NOT NULL,
  events                TEXT NOT NULL,
  secret                TEXT NOT NULL,
  previous_secret       TEXT NOT NULL DEFAULT '',
  previous_secret_until TEXT,
  active                INTEGER NOT NULL DEFAULT 1,
  disabled_reason       TEXT NOT NULL DEFAULT '',
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL
);
CREATE INDEX webhooks_project ON webhooks(project_id, created_at);

-- Outbox: events are written in the transaction of the change that causes them.
CREATE TABLE events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL,
  type       TEXT NOT NULL,
  payload    TEXT NOT NULL,
  created_at TEXT NOT NULL,
  dispatched INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX events_undispatched ON events(seq) WHERE dispatched = 0;

CREATE TABLE deliveries (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  id               TEXT NOT NULL UNIQUE,
  webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  project_id       TEXT NOT NULL,
  event_id         TEXT NOT NULL,
  event_type       TEXT NOT NULL,
  payload          TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending',
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  last_status_code INTEGER,
  last_response    TEXT NOT NULL DEFAULT '',
  last_error       TEXT NOT NULL DEFAULT '',
  lease_owner      TEXT,
  lease_until      TEXT,
  replay_of        TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX deliveries_webhook ON deliveries(webhook_id, seq);
CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at);

CREATE TABLE idempotency (
  scope        TEXT NOT NULL,
  capability   TEXT NOT NULL,
  key          TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state        TEXT NOT NULL,
  status       INTEGER NOT NULL DEFAULT 0,
  response     BLOB,
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  PRIMARY KEY (scope, capability, key)
);
CREATE INDEX idempotency_expires ON idempotency(expires_at);

CREATE TABLE usage_periods (
  project_id        TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  period_start      TEXT NOT NULL,
  mentions_used     INTEGER NOT NULL DEFAULT 0,
  dropped           INTEGER NOT NULL DEFAULT 0,
  provider_cost_usd REAL NOT NULL DEFAULT 0,
  quota_notified    INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, period_start)
);

-- Generic leases for work shared between instances (scheduler ticks, digests).
CREATE TABLE leases (
  name        TEXT PRIMARY KEY,
  owner       TEXT NOT NULL,
  lease_until TEXT NOT NULL
);

-- Daily budgets of metered platform APIs (YouTube quota units).
CREATE TABLE quota_ledger (
  source TEXT NOT NULL,
  day    TEXT NOT NULL,
  units  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (source, day)
);
