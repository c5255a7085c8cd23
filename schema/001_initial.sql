-- 001_initial.sql — fdwaved's first schema: jobs, their events, their output files,
-- uploaded velocity models and API tokens. Applied by fdwaved at start when
-- PRAGMA user_version < 1. Times are milliseconds since the Unix epoch (UTC).

CREATE TABLE jobs (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    owner             TEXT    NOT NULL,
    name              TEXT    NOT NULL DEFAULT '',
    kind              TEXT    NOT NULL,
    state             TEXT    NOT NULL
                      CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    reason            TEXT,                        -- set on every terminal state
    priority          INTEGER NOT NULL DEFAULT 0 CHECK (priority BETWEEN -10 AND 10),
    attempts          INTEGER NOT NULL DEFAULT 0,  -- runs started (a shutdown re-queue gives one back)
    devices_requested INTEGER NOT NULL,
    devices_wanted    TEXT,                        -- JSON list of device ids the spec names, or NULL
    devices           TEXT    NOT NULL DEFAULT '[]', -- JSON list of device ids of the current/last run
    idempotency_key   TEXT,
    spec_body         TEXT    NOT NULL,            -- the spec as submitted
    spec_json         TEXT    NOT NULL,            -- the engine's normalised spec
    warnings          TEXT    NOT NULL DEFAULT '[]', -- JSON list of strings
    progress          TEXT,                        -- JSON of the latest progress event
    cancel_requested  INTEGER NOT NULL DEFAULT 0,
    created_at        INTEGER NOT NULL,
    started_at        INTEGER,
    finished_at       INTEGER
);
CREATE UNIQUE INDEX jobs_idempotency ON jobs (owner, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_by_state ON jobs (state, priority, id);
CREATE INDEX jobs_by_owner ON jobs (owner, id);

-- Everything a watcher of a job can see, in order: state, progress, snapshot, warning,
-- log and end events. Ids increase strictly (AUTOINCREMENT never reuses one).
CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id     INTEGER NOT NULL REFERENCES jobs (id),
    type       TEXT    NOT NULL
               CHECK (type IN ('state', 'progress', 'snapshot', 'warning', 'log', 'end')),
    data       TEXT    NOT NULL,                   -- JSON object
    created_at INTEGER NOT NULL
);
CREATE INDEX events_by_job ON events (job_id, id);

-- Files a job wrote into data/jobs/<id>/out, as its snapshots and its manifest announce them.
CREATE TABLE outputs (
    job_id     INTEGER NOT NULL REFERENCES jobs (id),
    name       TEXT    NOT NULL,
    format     TEXT    NOT NULL,                   -- png, raw-f32, segy, json
    bytes      INTEGER,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, name)
);

-- Velocity models uploaded with PUT /v1/models/{name}; the file is data/models/<name>.
CREATE TABLE models (
    name       TEXT    PRIMARY KEY,
    owner      TEXT    NOT NULL,
    format     TEXT    NOT NULL,                   -- raw-f32, segy
    bytes      INTEGER NOT NULL,
    sha256     TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);

-- API users. Only the SHA-256 of each bearer token is kept.
CREATE TABLE tokens (
    name       TEXT    PRIMARY KEY,
    hash       TEXT    NOT NULL UNIQUE,
    admin      INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);

-- Queued jobs per priority, kept by triggers, so a job's queue position costs a few
-- index look-ups instead of counting the whole queue.
CREATE TABLE queue_counts (
    priority INTEGER PRIMARY KEY,
    n        INTEGER NOT NULL DEFAULT 0
);
WITH RECURSIVE p(v) AS (SELECT -10 UNION ALL SELECT v + 1 FROM p WHERE v < 10)
INSERT INTO queue_counts (priority, n) SELECT v, 0 FROM p;

CREATE TRIGGER queue_count_insert AFTER INSERT ON jobs WHEN new.state = 'queued'
BEGIN
    UPDATE queue_counts SET n = n + 1 WHERE priority = new.priority;
END;
CREATE TRIGGER queue_count_leave AFTER UPDATE OF state ON jobs
    WHEN old.state = 'queued' AND new.state <> 'queued'
BEGIN
    UPDATE queue_counts SET n = n - 1 WHERE priority = old.priority;
END;
CREATE TRIGGER queue_count_enter AFTER UPDATE OF state ON jobs
    WHEN old.state <> 'queued' AND new.state = 'queued'
BEGIN
    UPDATE queue_counts SET n = n + 1 WHERE priority = new.priority;
END;
