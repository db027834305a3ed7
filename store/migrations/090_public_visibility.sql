-- The public page is curated (docs/decisions.md#public-page): each mention is shown by the
-- wall's rule (auto), always (featured) or never (hidden). Adding a column
-- with a constant default rewrites no row. The capability validates the
-- three values (a CHECK added here would be tested against every existing
-- row at start-up).
ALTER TABLE mentions ADD COLUMN public_visibility TEXT NOT NULL DEFAULT 'auto';
-- Only curated mentions (featured or hidden) are in this index: ingest
-- never writes it (new mentions are auto), and the wall's featured part
-- and the public_visibility=featured|hidden filter walk it in date order.
CREATE INDEX mentions_curated ON mentions(project_id, public_visibility, published_at DESC, id DESC) WHERE public_visibility <> 'auto';
