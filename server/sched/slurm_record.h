/* slurm_record.h — submitting an fdwave job's Slurm job so that no crash of the daemon
 * loses or doubles it. The Slurm job's name (fdwave-<job>-<attempt>, and -shots or
 * -combine for a survey's array of parts and its combining run) is recorded in the
 * database before sbatch runs, its id once sbatch answers. A daemon that died between the
 * two finds a record with a name and no id: it asks Slurm for the job of that name and
 * follows it (adopts it) if Slurm has it, and submits it only if Slurm does not. */
#ifndef FDWD_SLURM_RECORD_H
#define FDWD_SLURM_RECORD_H

#include "core/app.h"
#include "sched/slurm_submit.h"
#include "store/slurmjobs.h"

#include <stddef.h>
#include <stdint.h>

/* The Slurm job name of job_id's attempt for role ("job": fdwave-<job>-<attempt>; else
 * fdwave-<job>-<attempt>-<role>). */
void slurm_record_name(int64_t job_id, int attempt, const char *role, char *name, size_t len);

/* What job_id is recorded as running as, into *row: 1 (a record whose sbatch may not have
 * answered resolved by its name: *adopted set), 0 when nothing is (a named record whose
 * Slurm job Slurm does not know is dropped), -1 with why when Slurm cannot be asked. */
int slurm_record_find(fdwd_app *app, int64_t job_id, slurm_row *row, int *adopted, char *why,
                      size_t len);

/* Submit b as job_id's Slurm job of role (named b->name), recorded before sbatch and with
 * its id after, into *row. 0, or -1 with why (nothing stays recorded, and a Slurm job
 * whose id could not be recorded is scancelled). */
int slurm_record_submit(fdwd_app *app, int64_t job_id, const char *role, const slurm_batch *b,
                        slurm_row *row, char *why, size_t len);

#endif
