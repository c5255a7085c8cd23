/* notify.c — the installed job notifier (see notify.h). */
#include "core/notify.h"

#include <stdatomic.h>

static _Atomic(job_notifier) g_notifier;

void notify_install(job_notifier fn) { atomic_store(&g_notifier, fn); }

void notify_jobs(const int64_t *job_ids, int n)
{
    job_notifier fn = atomic_load(&g_notifier);
    if (fn && n > 0)
        fn(job_ids, n);
}

void notify_job(int64_t job_id) { notify_jobs(&job_id, 1); }
