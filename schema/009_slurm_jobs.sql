-- 009_slurm_jobs.sql — issue 28: the Slurm job each fdwave job runs as under
-- job-backend = slurm (server/sched/slurm_run.c), so that a restarted daemon follows its
-- Slurm jobs again (or settles those that ended) instead of losing or submitting them
-- twice. A row lives from the sbatch that made the Slurm job until the fdwave job's run
-- ends (its end recorded, or re-queued for a new Slurm job); a row whose job has ended
-- otherwise (cancelled while queued after a restart) is scancelled and dropped by the
-- scheduler's pass. (008 is taken by the data-uploads migration of issue 27.)

CREATE TABLE slurm_jobs (
    job_id       INTEGER PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    slurm_id     INTEGER NOT NULL,
    submitted_at INTEGER NOT NULL
);
