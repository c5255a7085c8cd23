/* scheduler.h — which queued job runs next and on which devices. A job asking for g
 * devices starts when g are free and a worker slot is idle. Strict head-of-line order:
 * highest priority first (aging: +1 level per minute waited), then oldest; when the
 * head cannot start, nothing behind it may take devices, so a large job is never
 * starved by a stream of small ones. */
#ifndef FDWD_SCHEDULER_H
#define FDWD_SCHEDULER_H

#include "core/app.h"
#include <stdint.h>

int sched_start(fdwd_app *app);
/* Something changed (job submitted, cancelled, finished): look at the queue now. */
void sched_kick(fdwd_app *app);
/* New jobs were committed, the highest of rank top_rank (sharing_rank): a kick, unless
 * the loop sleeps after finding that no such job could start now (the head of the queue
 * ranks as high or higher, being older, and waits, or every worker slot is busy). */
void sched_submitted(fdwd_app *app, double top_rank);
/* Ask a running job to stop as cancelled. Returns 1 if it runs here. */
int sched_cancel(fdwd_app *app, int64_t job_id);
/* Shutdown: running jobs go back to the queue ("re-queued at shutdown"); waits for
 * every worker to stop. */
void sched_stop(fdwd_app *app);

/* For /v1/devices and /metrics: the job on device index i (into app->devices), or 0. */
int64_t sched_device_job(fdwd_app *app, int i);
/* Sum of the running jobs' latest Mpoints/s, and how many run. */
double sched_mpts(fdwd_app *app, int *running);

#endif
