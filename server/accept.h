/* accept.h — group commit for POST /v1/jobs. A validated job is handed to the accept
 * thread and its connection suspended; the thread stores every job waiting at that
 * moment in one transaction with a single synchronous=FULL commit (one fsync for many
 * jobs), then resumes each connection, whose handler answers 201/200 from the result.
 * HTTP threads never wait on the disk, and throughput does not fall to one job per
 * fsync under concurrent submits. */
#ifndef FDWD_ACCEPT_H
#define FDWD_ACCEPT_H

#include "jobs.h"

#include <microhttpd.h>

typedef struct accept_req {
    job_new job;               /* pointers stay valid until the request ends */
    struct MHD_Connection *conn;
    int64_t id;                /* result */
    int existed;
    int rc;                    /* 0 stored (or existed), -1 failed */
    int done;
    json_t *json;              /* the job as stored, read inside the accepting transaction
                                  (so it shows "queued" even if it starts right away) */
    struct accept_req *next;
} accept_req;

/* Queue a for commit and suspend its connection (call from the access handler). The
 * connection is resumed once a->done is set. Returns -1 (nothing queued, connection not
 * suspended) when the daemon is shutting down. */
int accept_enqueue(accept_req *a);

int accept_start(void);
/* Commits what is queued, then stops. */
void accept_stop(void);

#endif
