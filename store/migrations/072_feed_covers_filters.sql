-- A filter value too common for its own index (migrations 070, 071) is
-- found by walking the date index. Carrying the filterable columns in that
-- index lets the walk test them without reading the mention row: SQLite
-- defers the row seek until a column the index lacks is needed, so rows
-- that fail the filter cost one index entry each.
DROP INDEX mentions_feed;
CREATE INDEX mentions_feed ON mentions(project_id, published_at DESC, id DESC, status, source, category, sentiment, urgency, is_relevant);
