/* worker.h — running one claimed job: check the files its spec names again with the
 * submitter's rights, write its run file and run it in a runner process (runner.h) whose callbacks
 * post progress / snapshot / log / checkpoint events, pass on cancellation, suspension
 * (shutdown, preemption) and the wall-time limit, then record how it ended (retrying the
 * record while the disk is full), its accounting, and clear its checkpoint once it ends.
 * Runs on a thread the scheduler starts per job. */
#ifndef FDWD_WORKER_H
#define FDWD_WORKER_H

#include "core/app.h"
#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>

/* Why a run must end: cancelled; re-queued at shutdown (suspended with a checkpoint);
 * preempted by a job of higher priority (likewise); its wall-time limit reached. */
enum { WORKER_RUN = 0, WORKER_CANCEL = 1, WORKER_REQUEUE = 2, WORKER_PREEMPT = 3,
       WORKER_WALL_TIME = 4 };

typedef struct worker_job {
    fdwd_app *app;             /* the context (worker_run sets it; the callbacks read it) */
    int64_t job_id;
    int ndevices;
    int device_ids[64];        /* physical ids handed to fdw_run */
    int total_devices;         /* devices the daemon has (CPU thread share) */
    atomic_int stop;           /* WORKER_RUN, or why the run must end */
    _Atomic double mpts;       /* latest rate, for /metrics */
    json_t *warnings;          /* its spec's warnings while the run lasts (worker_run) */
    int64_t preempted_by;      /* WORKER_PREEMPT: the job it makes room for */
    int priority;              /* its own, for the scheduler's preemption choice */
    uint64_t host_bytes;       /* what the scheduler reserved for it (admission.h) */
    double deadline;           /* monotonic seconds its wall time ends; 0: none */
    long last_step;            /* the last step reported */
    /* Called once the job's end (or re-queue) is recorded, before the worker's cleanup (its checkpoint's removal, the disk's upkeep): the
     * scheduler frees its devices then, so the next job (or the job's next attempt)
     * starts without waiting for this thread to end. NULL: none. */
    void (*ended)(struct worker_job *w);
} worker_job;

/* Run the job to its end and record the outcome in the database. */
void worker_run(fdwd_app *app, worker_job *w);

#endif
