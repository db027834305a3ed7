-- list_mentions sort=urgency: the most urgent first, then newest. Like the
-- date index (072) it carries the filterable columns, so a walk tests a
-- filter on the index entry without reading the row. New mentions land
-- near the newest end of their urgency's range (101 ranges per project),
-- not at a random page of one long range.
CREATE INDEX mentions_urgency ON mentions(project_id, urgency DESC, published_at DESC, id DESC, status, source, category, sentiment, is_relevant);
