/* notify.c — telling the installed listener which jobs have new events (see notify.h). */
#include "core/notify.h"

void notify_jobs(const job_notifier *to, const int64_t *job_ids, int n)
{
    if (to->fn && n > 0)
        to->fn(to->user, job_ids, n);
}

void notify_job(const job_notifier *to, int64_t job_id) { notify_jobs(to, &job_id, 1); }
