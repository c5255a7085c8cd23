-- 010_slurm_surveys.sql — issue 28: a survey's shots as a Slurm job array.
-- jobs.shots: the survey's shot count from the submission's one parse (fdw_spec_shots; 0
-- for one shot), which the Slurm back end splits into array tasks by the engine's rule
-- (fdw_survey_part_shots). slurm_jobs.name: the Slurm job's name, recorded before its sbatch
-- (slurm_id 0 until sbatch answers), so that a daemon that died in between finds the job
-- by that name instead of submitting it twice. slurm_jobs.role: what the Slurm job runs:
-- 'job' the whole fdwave job, 'shots' a survey's array of parts, 'combine' its combining
-- run. A job that predates this file has shots 0 and runs as one Slurm job, as before.

ALTER TABLE jobs ADD COLUMN shots INTEGER NOT NULL DEFAULT 0;
ALTER TABLE slurm_jobs ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE slurm_jobs ADD COLUMN role TEXT NOT NULL DEFAULT 'job';
