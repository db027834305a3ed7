-- mention.created events reference their mention instead of carrying a
-- copy of it: the outbox row stays small on the ingest path, and the full
-- record is put into the webhook body when the event is fanned out.
ALTER TABLE events ADD COLUMN mention_id TEXT;
