-- Invitations: a pending membership that the invited person accepts with a
-- one-time link (only the SHA-256 of its token is kept). Inviting never
-- creates or touches an account.
CREATE TABLE invitations (
  id          TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  email       TEXT NOT NULL COLLATE NOCASE,
  role        TEXT NOT NULL CHECK (role IN ('editor','viewer')),
  token_hash  BLOB NOT NULL UNIQUE,
  invited_by  TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  accepted_at TEXT,
  accepted_by TEXT REFERENCES users(id) ON DELETE SET NULL,
  revoked_at  TEXT
);
-- One pending invitation per (project, email): inviting again replaces it.
CREATE INDEX invitations_project ON invitations(project_id, created_at);
