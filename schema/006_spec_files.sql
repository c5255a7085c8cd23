-- 006_spec_files.sql — issue 29: the files a job's spec names, as the one parse at
-- submission found them: a JSON list of {"path" (canonical), "use" (model, wavelet,
-- model_data, kind_data), "format"}. The worker checks each again with the submitter's
-- rights when the job runs, instead of parsing the spec again. NULL: a job stored before
-- this migration (the checks made at its submission stand).

ALTER TABLE jobs ADD COLUMN spec_files TEXT;
