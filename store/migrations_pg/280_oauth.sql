-- OAuth 2.1 for remote MCP hosts (issue 29). A grant is an API key
-- (api_keys, named after the client): revoking it on the keys page, or
-- deleting it, ends every token issued for it. Clients register
-- themselves (RFC 7591); codes live ten minutes and are used once; only
-- the SHA-256 of a code or token is kept. IF NOT EXISTS: re-runnable (the
-- upgrade tests run the latest migration again).
CREATE TABLE IF NOT EXISTS oauth_clients (
  id            TEXT COLLATE "C" PRIMARY KEY,
  name          TEXT NOT NULL,
  redirect_uris TEXT NOT NULL, -- one per line
  created_at    TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS oauth_codes (
  code_hash    BYTEA PRIMARY KEY,
  client_id    TEXT COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  user_id      TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  project_id   TEXT COLLATE "C" NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  scopes       TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  challenge    TEXT NOT NULL,
  expires_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS oauth_tokens (
  token_hash BYTEA PRIMARY KEY,
  kind       TEXT NOT NULL, -- access or refresh
  key_id     TEXT COLLATE "C" NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  client_id  TEXT COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_tokens_key ON oauth_tokens(key_id);
