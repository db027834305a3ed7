-- Stories: mentions that share a link or carry near-duplicate text, across
-- sources and monitors (store/stories.go). A story exists once two
-- mentions belong to it; a mention alone has story_id NULL, so ingest
-- writes nothing more for the common, unrelated post. Counts are kept on
-- the story row so that a list shows them without counting members.
CREATE TABLE stories (
  id                TEXT PRIMARY KEY,
  project_id        TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  title             TEXT NOT NULL,
  link              TEXT NOT NULL DEFAULT '',
  first_mention_id  TEXT NOT NULL,
  latest_mention_id TEXT NOT NULL,
  mention_count     INTEGER NOT NULL,
  sources           TEXT NOT NULL DEFAULT '{}',
  first_seen        TEXT NOT NULL,
  last_seen         TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL
);
CREATE INDEX stories_recent ON stories(project_id, last_seen DESC, id DESC);
-- Adding a column without a default value rewrites no row; the partial
-- index holds only grouped mentions, so ingest writes it only for them.
ALTER TABLE mentions ADD COLUMN story_id TEXT;
CREATE INDEX mentions_story ON mentions(story_id, published_at DESC, id DESC) WHERE story_id IS NOT NULL;
