/* validate.h — job specs checked off the HTTP threads. POST /v1/jobs hands its body to a
 * small pool of validator threads (--validate-threads, at a lower CPU priority than the
 * HTTP threads) and suspends its connection; a validator parses the spec with the
 * submitter's rights (specs_parse), then either hands the job on (its then: to the group
 * commit, which resumes the connection once the job is stored) or resumes the connection,
 * whose handler answers. The queue is bounded (--validate-queue): a submission beyond
 * it is answered 503 at once, so a flood of expensive specs costs a bounded amount of
 * memory and never the HTTP threads' time; GET /v1/health stays fast under it. */
#ifndef FDWD_VALIDATE_H
#define FDWD_VALIDATE_H

#include "core/app.h"
#include "core/identity.h"
#include "fdwave/fdwave.h"
#include "auth/specs.h"

#include <microhttpd.h>
#include <stddef.h>

typedef struct validate_req {
    fdwd_app *app;                 /* the context (validate_enqueue sets it) */
    identity who;
    const char *body;              /* stays valid until the request ends */
    size_t len;
    struct MHD_Connection *conn;
    /* the result, set before the connection is resumed */
    fdw_status st;
    fdw_spec *spec;                /* on FDW_OK; the handler takes it */
    spec_reads reads;              /* what the parse read; the handler frees it */
    fdw_error err;
    /* Called on the validator thread once the spec is checked (the connection still
     * suspended): returns 1 when it handed the connection on to whoever resumes it next
     * (v may then be freed at any moment), 0 to have it resumed now. NULL: resumed now. */
    int (*then)(struct validate_req *v);
    int done;
    struct validate_req *next;
} validate_req;

/* Queue v and suspend its connection (call from the access handler). Returns 0, or -1
 * when the queue is full or the daemon is shutting down (nothing queued, the connection
 * not suspended). */
int validate_enqueue(fdwd_app *app, validate_req *v);

int validate_start(fdwd_app *app, int threads, int queue_cap);
/* Finishes what is queued (each connection resumed), then stops the threads. */
void validate_stop(fdwd_app *app);

#endif
