/* slurmjobs.h — which Slurm job an fdwave job runs as (job-backend = slurm): the
 * slurm_jobs table of schema/009_slurm_jobs.sql and 010_slurm_surveys.sql. One row a job:
 * the Slurm job it runs as now (the whole job, a survey's array of parts, or its combining
 * run), put with its name before sbatch and with its id after. SQL only; sched/slurm_*.c
 * decide. */
#ifndef FDWD_SLURMJOBS_H
#define FDWD_SLURMJOBS_H

#include "core/app.h"

#include <stdint.h>

typedef struct slurm_row {
    int64_t slurm_id;          /* 0: named, sbatch not known to have answered */
    char name[96];             /* its Slurm job name (fdwave-<job>-<attempt>[-<role>]) */
    char role[16];             /* "job", "shots" or "combine" */
} slurm_row;

/* Record that job runs as r (replacing what was recorded). 0 or -1. */
int slurmjobs_put(fdwd_app *app, int64_t job, const slurm_row *r);
/* What job runs as into *r: 1, or 0 when nothing is recorded, -1 on error. */
int slurmjobs_get(fdwd_app *app, int64_t job, slurm_row *r);
/* Forget job's Slurm job. 0 or -1. */
int slurmjobs_drop(fdwd_app *app, int64_t job);
/* Up to max rows whose fdwave job has ended (neither queued nor running) into jobs[] and
 * rows[]: Slurm jobs nobody follows any more. Returns how many, or -1. */
int slurmjobs_orphans(fdwd_app *app, int64_t *jobs, slurm_row *rows, int max);

#endif
