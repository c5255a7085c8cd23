/* sse.h — Server-Sent Event streams of a job's events (GET /v1/jobs/{id}/events).
 * A stream never holds an HTTP thread while it waits: when it has nothing to send it
 * suspends its connection, and sse_notify_jobs() (installed as the notifier, notify.h,
 * so it runs after each event commit) resumes the connections watching those jobs. A
 * timer resumes idle streams every 15 s for a keep-alive comment. sse_shutdown() ends
 * every stream before the HTTP daemon stops. */
#ifndef FDWD_SSE_H
#define FDWD_SSE_H

#include "core/app.h"

#include <microhttpd.h>
#include <stdint.h>

/* Start the timer thread (keep-alive comments, paced wake-ups). keepalive_ms: interval
 * (15000 in production); wake_rate: streams resumed per second beyond the first 8 a
 * notification wakes at once (0: all at once). */
int sse_start(fdwd_app *app, int keepalive_ms, int wake_rate);
/* A response streaming job_id's events with ids > since, ending after the "end" event. */
struct MHD_Response *sse_response(fdwd_app *app, struct MHD_Connection *conn, int64_t job_id,
                                  int64_t since);
/* New events for n jobs are committed: wake their watchers (per job the first 8 at
 * once, the others paced by the timer thread at the wake rate; see sse.c), in one lock
 * round. A job_notify_fn (notify.h); hub is app->sse. */
void sse_notify_jobs(void *hub, const int64_t *job_ids, int n);
/* End all streams (resuming every suspended connection) and stop the timer. */
void sse_shutdown(fdwd_app *app);
/* Streams open now. */
int sse_count(fdwd_app *app);

#endif
