/* worker.h — running one claimed job: re-parse its stored spec, call fdw_run with
 * callbacks that post progress / snapshot / log events and poll for cancellation, and
 * record how it ended. Runs on a thread the scheduler starts per job. */
#ifndef FDWD_WORKER_H
#define FDWD_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

enum { WORKER_RUN = 0, WORKER_CANCEL = 1, WORKER_REQUEUE = 2 };

typedef struct worker_job {
    int64_t job_id;
    int ndevices;
    int device_ids[64];        /* physical ids handed to fdw_run */
    int total_devices;         /* devices the daemon has (CPU thread share) */
    atomic_int stop;           /* WORKER_RUN, or why the run must end */
    _Atomic double mpts;       /* latest rate, for /metrics */
    const struct fdw_spec *spec; /* set by worker_run while the run lasts */
} worker_job;

/* Run the job to its end and record the outcome in the database. */
void worker_run(worker_job *w);

#endif
