-- 004_idempotency_and_provenance.sql — issue 14: what a job keeps so that a re-used
-- Idempotency-Key with another body can be told from a retry (request_hash: SHA-256 of
-- the submitted spec in canonical form, keys sorted, no whitespace; answered 422 when it
-- differs), and which uploaded model it was checked and run on (model_name and the
-- model's SHA-256 as recorded at submission), so a later re-upload of that name never
-- changes an old job's provenance. NULL: a job stored before this migration, or one that
-- names no uploaded model.

ALTER TABLE jobs ADD COLUMN request_hash TEXT;
ALTER TABLE jobs ADD COLUMN model_name TEXT;
ALTER TABLE jobs ADD COLUMN model_sha256 TEXT;
