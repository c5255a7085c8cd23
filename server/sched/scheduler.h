/* scheduler.h — which queued job runs next and on which devices. A job asking for g
 * devices starts when g are free and a worker slot is idle. Strict head-of-line order:
 * highest priority first (aging: +1 level per minute waited), then oldest; when the
 * head cannot start, nothing behind it may take devices, so a large job is never
 * starved by a stream of small ones. */
#ifndef FDWD_SCHEDULER_H
#define FDWD_SCHEDULER_H

#include <stdint.h>

int sched_start(void);
/* Something changed (job submitted, cancelled, finished): look at the queue now. */
void sched_kick(void);
/* New jobs were committed, the highest of rank top_rank (sharing_rank): a kick, unless
 * the loop sleeps after finding that no such job could start now (the head of the queue
 * ranks as high or higher, being older, and waits, or every worker slot is busy). */
void sched_submitted(double top_rank);
/* Ask a running job to stop as cancelled. Returns 1 if it runs here. */
int sched_cancel(int64_t job_id);
/* Shutdown: running jobs go back to the queue ("re-queued at shutdown"); waits for
 * every worker to stop. */
void sched_stop(void);

/* For /v1/devices and /metrics: the job on device index i (into g_app.devices), or 0. */
int64_t sched_device_job(int i);
/* Sum of the running jobs' latest Mpoints/s, and how many run. */
double sched_mpts(int *running);

#endif
