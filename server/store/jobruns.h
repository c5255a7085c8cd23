/* jobruns.h — what the runs of a job leave besides its state (SQL only): the columns of
 * jobs that issue 16 added (memory estimates, wall-time limit, last checkpoint, daemon
 * interruptions, outputs removed) and one row of table usage per run. jobs.c keeps the
 * state machine; this file the facts around it. */
#ifndef FDWD_JOBRUNS_H
#define FDWD_JOBRUNS_H

#include "core/app.h"
#include <jansson.h>
#include <stdint.h>

/* The estimates and limit recorded at submission (0 where none). Returns 0 or -1. */
int jobruns_estimates(fdwd_app *app, int64_t id, uint64_t *host_bytes, uint64_t *device_bytes,
                      double *wall_time);
/* A checkpoint of step was written (0 or -1). */
int jobruns_checkpoint(fdwd_app *app, int64_t id, long step);
/* Forget the checkpoint (the job ended, or it is no longer usable). */
int jobruns_checkpoint_clear(fdwd_app *app, int64_t id);

/* One run's accounting, written when it ends. */
typedef struct run_usage {
    int64_t job_id;
    const char *owner;
    int devices;
    int64_t started_at, ended_at;      /* ms */
    double wall_seconds;
    uint64_t peak_host_bytes, peak_device_bytes;
    const char *outcome;               /* succeeded, failed, cancelled, requeued */
} run_usage;
int jobruns_record_usage(fdwd_app *app, const run_usage *u);
/* Wall seconds of the job's earlier runs (its wall-time limit counts all of them). */
double jobruns_wall_used(fdwd_app *app, int64_t id);

/* The job's outputs were removed by `by` (a user, or "retention"): 0, or -1. */
int jobruns_outputs_removed(fdwd_app *app, int64_t id, const char *by);

/* What the runs of a job leave, as the API shows it (jobruns_render). */
typedef struct job_runs {
    uint64_t host_bytes, device_bytes; /* the estimates at submission */
    double wall_time;                  /* its limit; 0: none */
    long checkpoint_step;              /* -1: no checkpoint */
    int64_t checkpoint_at;             /* ms since the epoch */
    int64_t removed_at;                /* ms; -1: the outputs are kept */
    const char *removed_by;
    long runs;                         /* the usage of its runs that ended, summed */
    double device_seconds, wall_seconds;
    uint64_t peak_host_bytes, peak_device_bytes;
} job_runs;

/* Members for the job's API object: "memory" {host_bytes, device_bytes}, "wall_time",
 * "checkpoint" {step, at} or null, "usage" {runs, device_seconds, wall_seconds,
 * peak_host_bytes, peak_device_bytes}, "outputs_removed" {at, by} or null. Set into j:
 * from r (jobruns_render; a job just stored has nothing but its estimates), or as job id
 * has them now (jobruns_json). */
void jobruns_render(const job_runs *r, json_t *j);
void jobruns_json(fdwd_app *app, int64_t id, json_t *j);

#endif
