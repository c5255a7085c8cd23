/* runner.h — one job's run in a process of its own: fdwave-runner started with the
 * configured command line (runner-command: directly, or under mpirun or srun), with its
 * memory limit (memlimit.h), and supervised to its end. Its protocol lines
 * (runner_proto.h) become the engine's callbacks on the calling thread, so the worker
 * handles a runner's progress, snapshots, logs and checkpoints as it would an in-process
 * fdw_run's; cancellation and suspension go the other way. Whatever the runner does —
 * crash, abort, be killed, write garbage, hang after being told to stop — only its job
 * is affected. */
#ifndef FDWD_RUNNER_H
#define FDWD_RUNNER_H

#include "core/app.h"
#include "sched/runlines.h"
#include "fdwave/fdwave.h"

#include <stddef.h>
#include <stdint.h>

typedef struct runner_job {
    int64_t job_id;
    const char *job_dir;       /* data/jobs/<id>: runner.log goes here */
    const char *run_file;      /* what fdwave-runner reads (written by the worker) */
    int ndevices;
    const int *device_ids;
    int cpu;                   /* the CPU backend (an rlimit can apply) */
    uint64_t memory_limit;     /* bytes the runner may hold; 0: no limit */
    int attempt;               /* the job's run number (Slurm job names) */
    int shots;                 /* a survey's shots (0: one): the Slurm back end's parts */
} runner_job;


/* The runner program into path: --runner when set, else fdwave-runner next to fdwaved's
 * own executable, else the installed one. */
void runner_program(const fdwd_app *app, char *path, size_t len);

/* In a child after fork: close every descriptor above 2 and exec argv (on PATH). Returns
 * only when the exec failed. */
void runner_exec(char *const argv[]);

/* Start the runner and supervise it to its end. cb's progress, snapshot, log and
 * checkpoint are called on this thread as the runner's lines arrive; cb->cancelled and
 * cb->suspend are polled about ten times a second and passed on once. Returns 0 when the
 * runner ran (out says how it ended), -1 when it could not be started (out->why). */
int runner_run(fdwd_app *app, const runner_job *job, const fdw_callbacks *cb, runner_outcome *out);

#endif
