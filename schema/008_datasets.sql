-- 008_datasets.sql — observed shot gathers uploaded with PUT /v1/data/{name} (issue 27: the
-- rtm and gradient kinds' "data": {"name": N}); the file is data/datasets/<name>. What one
-- read of it established at upload (fdw_data_inspect) is kept beside it, so GET
-- /v1/data/{name} answers without reading the file. bytes count against the owner's disk
-- quota, as the outputs of their jobs and their models do.

CREATE TABLE datasets (
    name            TEXT    PRIMARY KEY,
    owner           TEXT    NOT NULL,
    format          TEXT    NOT NULL,              -- raw-f32, segy
    bytes           INTEGER NOT NULL,
    sha256          TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    traces          INTEGER NOT NULL,              -- SEG-Y traces; 0 for raw-f32
    samples         INTEGER NOT NULL,              -- per trace (SEG-Y); 0 for raw-f32
    sample_interval REAL    NOT NULL,              -- seconds (SEG-Y); 0 for raw-f32
    ffids           TEXT    NOT NULL DEFAULT '[]'  -- JSON list of the FFIDs (shots), ascending
);
CREATE INDEX datasets_by_owner ON datasets (owner);
