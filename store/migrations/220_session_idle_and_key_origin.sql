-- Idle session timeout: a session unused for longer than the idle limit
-- (EARSHOT_SESSION_IDLE) ends. Older versions did not record use, so an
-- existing session counts as last seen when it was created.
ALTER TABLE sessions ADD COLUMN last_seen_at TEXT;
UPDATE sessions SET last_seen_at = created_at;

-- Keys minted by a session (create_api_key) are revoked by a password
-- change or reset of their creator; keys made on the box (earshot key
-- create, the demo) are not. Where an existing key came from is unknown,
-- so existing keys count as minted by a session: the safer side (a
-- password change lists the keys it revoked).
ALTER TABLE api_keys ADD COLUMN minted_by_session INTEGER NOT NULL DEFAULT 0;
UPDATE api_keys SET minted_by_session = 1;
