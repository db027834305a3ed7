-- Random secrets of this installation, created on first use (the cursor
-- signing key): each installation signs with its own key, none is in the
-- source.
CREATE TABLE installation_secrets (
  name       TEXT PRIMARY KEY,
  value      BLOB NOT NULL,
  created_at TEXT NOT NULL
);
