-- The fewest mentions that made the hour a spike (spike.Result.Threshold),
-- for the record and the chart's line; 0 for spikes recorded before it.
ALTER TABLE spikes ADD COLUMN threshold INTEGER NOT NULL DEFAULT 0;
