-- 003_runs_and_shares.sql — what issue 16 keeps: a job's memory estimates (admission and
-- the scheduler's fit), its wall-time limit, its last checkpoint, how often a daemon crash
-- interrupted it, when its outputs were removed (DELETE /v1/jobs/{id}, retention); and
-- the accounting of every run of every job (device-seconds, wall time, peak memory) that
-- GET /v1/usage, the quotas and the fair share read. Times in ms since the epoch.

ALTER TABLE jobs ADD COLUMN host_bytes INTEGER;        -- host memory estimate at submission
ALTER TABLE jobs ADD COLUMN device_bytes INTEGER;      -- device memory on its largest device
ALTER TABLE jobs ADD COLUMN wall_time REAL;            -- seconds it may run in all; NULL none
ALTER TABLE jobs ADD COLUMN checkpoint_step INTEGER;   -- steps its last checkpoint holds
ALTER TABLE jobs ADD COLUMN checkpoint_at INTEGER;     -- when that checkpoint was written
ALTER TABLE jobs ADD COLUMN interruptions INTEGER NOT NULL DEFAULT 0; -- daemon crashes in a run
ALTER TABLE jobs ADD COLUMN outputs_removed_at INTEGER; -- outputs deleted, record kept
ALTER TABLE jobs ADD COLUMN outputs_removed_by TEXT;   -- a user, or 'retention'

-- One row per run of a job (an attempt that started a runner), written when it ends.
CREATE TABLE usage (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id            INTEGER NOT NULL REFERENCES jobs (id),
    owner             TEXT    NOT NULL,
    devices           INTEGER NOT NULL,
    started_at        INTEGER NOT NULL,
    ended_at          INTEGER NOT NULL,
    wall_seconds      REAL    NOT NULL,
    device_seconds    REAL    NOT NULL,            -- devices x wall seconds
    peak_host_bytes   INTEGER NOT NULL DEFAULT 0,  -- the runner and its descendants
    peak_device_bytes INTEGER NOT NULL DEFAULT 0,  -- all its devices, as progress showed
    outcome           TEXT    NOT NULL             -- succeeded, failed, cancelled, requeued
);
CREATE INDEX usage_by_owner ON usage (owner, ended_at);
CREATE INDEX usage_by_job ON usage (job_id);
