-- What fires an alert: a new relevant mention (mention, as before) or a
-- detected spike (spike, package spike).
ALTER TABLE alerts ADD COLUMN trigger_type TEXT NOT NULL DEFAULT 'mention';
