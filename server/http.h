/* http.h — the HTTP front: the libmicrohttpd daemon (thread pool, epoll, suspend/resume
 * for SSE, connection limits and timeouts), the request every route is handed, routing,
 * body handling (limits checked before reading) and auth. How a route answers is in
 * reply.h. */
#ifndef FDWD_HTTP_H
#define FDWD_HTTP_H

#include "auth.h"
#include "models.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdint.h>

typedef struct request {
    struct MHD_Connection *conn;
    const char *method;
    char path[1024];           /* decoded URL path */
    int route;                 /* internal route id */
    int64_t job_id;            /* {id} of /v1/jobs/{id}/... */
    char name[512];            /* {name} of outputs / models, or a static file */
    identity who;
    /* body of POST /v1/jobs */
    char *body;
    size_t len, cap;
    int too_large;
    /* PUT /v1/models/{name} */
    model_upload *upload;
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

/* Start listening as g_app.cfg says. Prints "listening on http://HOST:PORT". */
int http_start(char *err, size_t errlen);
/* Stop the daemon (after sse_shutdown()). */
void http_stop(void);
/* The port actually bound. */
int http_port(void);

/* Query parameter or NULL. */
const char *http_query(request *r, const char *key);
/* Request header or NULL. */
const char *http_header(request *r, const char *key);

#endif
