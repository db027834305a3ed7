-- Delivery worker: alert notifications are stored before they are sent, with
-- the same lease and retry columns as webhook deliveries, and digests queue
-- their mentions until the period ends.

-- The head of each webhook's pending queue, found without walking the
-- delivered history (deliveries_webhook covers every status).
CREATE INDEX deliveries_pending ON deliveries(webhook_id, seq) WHERE status = 'pending';
-- The worker never looks deliveries up by (status, next_attempt_at) across
-- webhooks (it walks the heads above), and this index cost a write on every
-- insert and every attempt.
DROP INDEX deliveries_due;

CREATE TABLE alert_deliveries (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  id               TEXT NOT NULL UNIQUE,
  -- Deleting the alert drops its notifications (delete_alert stops them).
  alert_id         TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  project_id       TEXT NOT NULL,
  kind             TEXT NOT NULL,               -- instant or digest
  event_ids        TEXT NOT NULL DEFAULT '[]',  -- the mention.created events behind it
  payload          TEXT NOT NULL,               -- JSON array of mention records
  first_event_at   TEXT NOT NULL,               -- created_at of the oldest event (lag)
  status           TEXT NOT NULL DEFAULT 'pending',
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  last_status_code INTEGER,
  last_response    TEXT NOT NULL DEFAULT '',
  last_error       TEXT NOT NULL DEFAULT '',
  lease_owner      TEXT,
  lease_until      TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX alert_deliveries_alert ON alert_deliveries(alert_id, seq);
CREATE INDEX alert_deliveries_pending ON alert_deliveries(alert_id, seq) WHERE status = 'pending';

-- Mentions waiting for an hourly or daily digest.
CREATE TABLE alert_digest_items (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  alert_id   TEXT NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  event_id   TEXT NOT NULL,
  mention    TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX alert_digest_items_alert ON alert_digest_items(alert_id, seq);
