-- FTS5 flushes its pending terms at every statement savepoint, so a per-row
-- trigger writes one tiny segment per mention. IngestMentions now indexes a
-- whole batch with one statement at the end of its transaction.
DROP TRIGGER mentions_fts_ai;
