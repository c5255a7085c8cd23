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
} runner_job;

typedef struct runner_outcome {
    int started;               /* the runner process was started */
    int have_result;           /* it wrote its result line: st, err, res hold it */
    fdw_status st;
    fdw_error err;
    fdw_result res;
    int signal;                /* it died of this signal (0: it exited) */
    int exit_code;             /* its exit status when it exited */
    int oom_killed;            /* the memory limit's OOM killer killed it */
    int stop_timed_out;        /* told to stop, it did not within runner-stop-timeout: killed */
    long last_step;            /* the last step it reported */
    uint64_t peak_rss;         /* host memory at its peak (bytes; its descendants too) */
    uint64_t peak_device_bytes; /* the most its progress reports showed on all devices */
    double wall_s;             /* from start to end */
    char tail[600];            /* the end of what it wrote on stderr (runner.log) */
    char why[600];             /* why it could not be started */
} runner_outcome;

/* Start the runner and supervise it to its end. cb's progress, snapshot, log and
 * checkpoint are called on this thread as the runner's lines arrive; cb->cancelled and
 * cb->suspend are polled about ten times a second and passed on once. Returns 0 when the
 * runner ran (out says how it ended), -1 when it could not be started (out->why). */
int runner_run(fdwd_app *app, const runner_job *job, const fdw_callbacks *cb, runner_outcome *out);

#endif
