/* request.h — the request every route is handed (filled by http.c: routed, authenticated,
 * its body read) and its query parameters and headers. */
#ifndef FDWD_REQUEST_H
#define FDWD_REQUEST_H

#include "core/app.h"
#include "core/identity.h"
#include "data/upload_store.h"

#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

typedef struct request {
    fdwd_app *app;             /* the application context (http.c sets it) */
    struct MHD_Connection *conn;
    const char *method;
    char path[1024];           /* decoded URL path */
    int route;                 /* internal route id */
    int64_t job_id;            /* {id} of /v1/jobs/{id}/... */
    char name[512];            /* {name} of outputs / models / data, or a static file */
    identity who;
    /* body of POST /v1/jobs */
    char *body;
    size_t len, cap;
    int too_large;
    /* PUT /v1/models/{name}, PUT /v1/data/{name} */
    upload *upload;
    uint64_t upload_limit;     /* the largest body it may have (--max-*-bytes) */
    int upload_failed;
    /* the connection guard's view (conn.h): its state, the client address the request
     * counts against, whether the body fell below the rate floor */
    struct conn_state *cs;
    char client[64];
    int too_slow;
    /* state a route keeps across a suspend/resume (POST /v1/jobs group commit) */
    void *route_state;
    void (*route_state_free)(void *);
} request;

/* Query parameter or NULL. */
const char *http_query(request *r, const char *key);
/* Request header or NULL. */
const char *http_header(request *r, const char *key);

#endif
