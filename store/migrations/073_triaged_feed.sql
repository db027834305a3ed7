-- Mentions a team has triaged (reviewed, done, ignored) in date order. New
-- mentions are not in it, so ingest never writes it; triage does, a row at
-- a time. Filtering by a triaged status walks it instead of the whole date
-- index: triaged mentions are often old, and a walk from the newest would
-- pass every newer mention first.
CREATE INDEX mentions_triaged_feed ON mentions(project_id, status, published_at DESC, id DESC) WHERE status <> 'new';
