/* accept.h — group commit for POST /v1/jobs. A validated job is handed to the accept
 * thread with its connection still suspended by the validator; the thread stores every
 * job waiting at that moment in one transaction with a single synchronous=FULL commit (one fsync for many
 * jobs), then resumes each connection, whose handler answers 201/200 from the result.
 * HTTP threads never wait on the disk, and throughput does not fall to one job per
 * fsync under concurrent submits. The thread does only the database work: the answer
 * is rendered by the resumed handler from what was stored (jobs_new_record), not read
 * back. */
#ifndef FDWD_ACCEPT_H
#define FDWD_ACCEPT_H

#include "core/app.h"
#include "store/jobs.h"

#include <microhttpd.h>

typedef struct accept_req {
    job_new job;               /* pointers stay valid until the request ends */
    struct MHD_Connection *conn;
    job_stored stored;         /* result: id, existed, created_at, queue position (read
                                  inside the accepting transaction, so the answer shows
                                  "queued" even if the job starts right away) */
    int rc;                    /* 0 stored (or existed), -1 failed */
    int done;
    struct accept_req *next;
} accept_req;

/* Queue a for commit; its connection is suspended already (the validator hands it on,
 * validate.h). The connection is resumed once a->done is set. Returns -1 (nothing
 * queued, the connection not resumed) when the daemon is shutting down. */
int accept_enqueue(fdwd_app *app, accept_req *a);

int accept_start(fdwd_app *app);
/* Commits what is queued, then stops. */
void accept_stop(fdwd_app *app);

#endif
