-- A search's LIKE over text_folded is estimated from a sample of texts
-- (the column's histogram). At the default of 100 entries, a needle in
-- 1-5% of mentions often matches none of them and is taken for a rare one:
-- the planner then fetches and sorts tens of thousands of matches instead
-- of walking the date order for a page. A thousand entries estimate down
-- to about 0.1%; rarer searches are asked of the trigram index first
-- (mentions.go, searchIsRare). The price is a longer ANALYZE of mentions.
ALTER TABLE mentions ALTER COLUMN text_folded SET STATISTICS 1000;
