-- Corrections that teach (issue 28): the category and sentiment a person
-- gave a mention. category/sentiment hold what the product shows (the
-- correction once there is one); these columns keep the human label apart,
-- so nothing that classifies again can take it for its own output, and the
-- project's classifier learns from them (store.CorrectionExamples, newest
-- first through the partial index).
ALTER TABLE mentions ADD COLUMN human_category TEXT;
ALTER TABLE mentions ADD COLUMN human_sentiment TEXT;
ALTER TABLE mentions ADD COLUMN corrected_at TEXT;
CREATE INDEX mentions_corrected ON mentions(project_id, corrected_at) WHERE corrected_at IS NOT NULL;
