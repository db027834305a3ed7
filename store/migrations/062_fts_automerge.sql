-- The search index merges its segments when 8 of a level exist instead of
-- 4: building it got 40% faster on 400k mentions here, with rare searches
-- as fast as before. It is built on the single writer, beside ingest.
INSERT INTO mentions_fts(mentions_fts, rank) VALUES ('automerge', 8);
