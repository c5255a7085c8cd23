/* notify.h — how the stores (jobs.c, events.c, accept.c, retention.c) say "these jobs have
 * new events" without knowing who listens: main.c installs the SSE streams' waker in the
 * application context before any thread starts. */
#ifndef FDWD_NOTIFY_H
#define FDWD_NOTIFY_H

#include <stdint.h>

typedef void (*job_notify_fn)(void *user, const int64_t *job_ids, int n);

/* The installed listener (fn NULL: none). */
typedef struct job_notifier {
    job_notify_fn fn;
    void *user;
} job_notifier;

/* Tell the listener that n jobs have new events (after their COMMIT). */
void notify_jobs(const job_notifier *to, const int64_t *job_ids, int n);
/* The same for one job. */
void notify_job(const job_notifier *to, int64_t job_id);

#endif
