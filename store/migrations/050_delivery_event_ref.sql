-- Fan-out without copying the body: a delivery made by Dispatch stores
-- payload '' and event_seq, and its body is the event's (events.payload,
-- which Dispatch completes with the mention record once per event). Ten
-- webhooks used to mean ten copies of a ~1.2 KB body written, and rewritten
-- on every lease and attempt; rows now stay a few hundred bytes.
-- Rows from before keep their own copy (event_seq NULL).
ALTER TABLE deliveries ADD COLUMN event_seq INTEGER;
-- Appended in order (event seqs only grow), so it costs little per insert;
-- the purge trigger below finds an event's deliveries with it.
CREATE INDEX deliveries_event ON deliveries(event_seq) WHERE event_seq IS NOT NULL;

-- A replay (store.ReplayDelivery) copies the payload column of the delivery
-- it replays: a reference becomes the replay's own copy of the body, as
-- replays always had.
CREATE TRIGGER deliveries_replay_copy AFTER INSERT ON deliveries
WHEN new.payload = '' AND new.event_seq IS NULL
BEGIN
  UPDATE deliveries SET payload = COALESCE((SELECT payload FROM events WHERE id = new.event_id), '')
  WHERE seq = new.seq;
END;

-- Events are purged after 30 days (PurgeExpired); their delivery log goes
-- with them. A delivery still pending then (its webhook paused for a month)
-- takes its own copy of the body, so it can still be sent.
CREATE TRIGGER events_purge_deliveries AFTER DELETE ON events
BEGIN
  UPDATE deliveries SET payload = old.payload, event_seq = NULL
  WHERE event_seq = old.seq AND status = 'pending';
  DELETE FROM deliveries WHERE event_seq = old.seq;
END;
