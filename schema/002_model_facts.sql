-- 002_model_facts.sql — what one read of an uploaded model establishes (fdw_model_inspect
-- at upload: "parse once, carry the facts"), so a job that names the model is checked
-- without reading the file again. Format and sha256 were already kept. NULL nvalues:
-- a model uploaded before this migration; fdwaved inspects it on its first use and
-- fills these in (models.c).

ALTER TABLE models ADD COLUMN nvalues INTEGER;  -- samples in the file
ALTER TABLE models ADD COLUMN nx INTEGER;       -- geometry the file records; 0 where none
ALTER TABLE models ADD COLUMN ny INTEGER;
ALTER TABLE models ADD COLUMN nz INTEGER;
ALTER TABLE models ADD COLUMN dx REAL;          -- spacing the file records, m; 0 where none
ALTER TABLE models ADD COLUMN dy REAL;
ALTER TABLE models ADD COLUMN dz REAL;
ALTER TABLE models ADD COLUMN vmin REAL;        -- velocity range over every sample, m/s
ALTER TABLE models ADD COLUMN vmax REAL;
