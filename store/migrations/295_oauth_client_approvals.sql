-- Registered OAuth clients that nobody approved are deleted after a day
-- (store.PurgeOAuth): registration is open (RFC 7591), so without this
-- anyone could fill oauth_clients. An approval (a person granting the
-- client on the consent page) is recorded here and outlives the grant's
-- key and tokens: a client whose grants were all revoked still belongs to
-- the person who approved it, and stays. When that person's account is
-- deleted their approvals go with it. A table of its own (not a column on
-- oauth_clients) so the migration can run again without harm.
CREATE TABLE IF NOT EXISTS oauth_client_approvals (
  client_id   TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  approved_at TEXT NOT NULL,
  PRIMARY KEY (client_id, user_id)
);
CREATE INDEX IF NOT EXISTS oauth_clients_created ON oauth_clients(created_at);

-- Approvals made before this migration: a pending code, or a grant's tokens.
INSERT OR IGNORE INTO oauth_client_approvals(client_id, user_id, approved_at)
  SELECT client_id, user_id, expires_at FROM oauth_codes;
INSERT OR IGNORE INTO oauth_client_approvals(client_id, user_id, approved_at)
  SELECT t.client_id, k.created_by, k.created_at FROM oauth_tokens t JOIN api_keys k ON k.id = t.key_id
  WHERE k.created_by IS NOT NULL;
