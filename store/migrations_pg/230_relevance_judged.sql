-- A person's word on relevance: pulling a filtered mention (judged not
-- relevant by the classifier, or an own post) back into the New queue sets
-- is_relevant and marks it judged, so the relevance model learns from it
-- before anyone triages it (TriageExamples reads judged rows through this
-- partial index, as it reads triaged ones through mentions_triaged).
ALTER TABLE mentions ADD COLUMN relevance_judged BIGINT NOT NULL DEFAULT 0;
CREATE INDEX mentions_judged ON mentions(project_id, updated_at) WHERE relevance_judged = 1;
