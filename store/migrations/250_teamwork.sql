-- Teamwork (issue 26): an assignee, free tags and internal notes on
-- mentions. Columns added with a NULL or constant default rewrite no row.
-- A deleted user's assignments are cleared (ON DELETE SET NULL); a member
-- who leaves the project keeps theirs until someone reassigns.
ALTER TABLE mentions ADD COLUMN assignee_id TEXT REFERENCES users(id) ON DELETE SET NULL;
-- The tags as shown (sorted, space-separated), so a listed mention needs no
-- extra read; mention_tags below is the index the tag filter reads.
ALTER TABLE mentions ADD COLUMN tags TEXT NOT NULL DEFAULT '';
-- "Assigned to me" walks this partial index in date order: assignments
-- are a small share of a project's mentions.
CREATE INDEX mentions_assigned ON mentions(project_id, assignee_id, published_at DESC, id DESC) WHERE assignee_id IS NOT NULL;

CREATE TABLE mention_tags (
  project_id TEXT NOT NULL,
  tag        TEXT NOT NULL,
  mention_id TEXT NOT NULL REFERENCES mentions(id) ON DELETE CASCADE,
  PRIMARY KEY (project_id, tag, mention_id)
) WITHOUT ROWID;
CREATE INDEX mention_tags_mention ON mention_tags(mention_id);

CREATE TABLE mention_notes (
  id         TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  mention_id TEXT NOT NULL REFERENCES mentions(id) ON DELETE CASCADE,
  author_id  TEXT REFERENCES users(id) ON DELETE SET NULL,
  text       TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX mention_notes_mention ON mention_notes(mention_id, created_at);

-- Password reset by email: only the SHA-256 of the token is kept; a token
-- is single-use (used_at) and short-lived (expires_at).
CREATE TABLE password_resets (
  token_hash BLOB PRIMARY KEY,
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at    TEXT
);
CREATE INDEX password_resets_user ON password_resets(user_id);

-- The IANA time zone the dashboard shows times in for this user; '' is UTC.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
