/* notify.h — how the stores (jobs.c, events.c, accept.c) say "these jobs have new
 * committed events": through one function installed at start-up (main.c installs
 * sse_notify_jobs), so the stores need not know who listens. Until one is installed a
 * notification does nothing (the unit tests link the stores alone). */
#ifndef FDWD_NOTIFY_H
#define FDWD_NOTIFY_H

#include <stdint.h>

typedef void (*job_notifier)(const int64_t *job_ids, int n);

/* Install fn (NULL: none). Call before the threads that notify start. */
void notify_install(job_notifier fn);
/* Tell the installed notifier that n jobs have new events (after their COMMIT). */
void notify_jobs(const int64_t *job_ids, int n);
/* The same for one job. */
void notify_job(int64_t job_id);

#endif
