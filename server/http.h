/* http.h — the HTTP front: the libmicrohttpd daemon (thread pool, epoll, suspend/resume
 * for SSE, connection limits and timeouts), request routing, body handling (limits
 * checked before reading), auth, and the helpers every route uses to answer with JSON
 * or with the API's error object {"error":{"code","message","field"}}. */
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
    /* state a route keeps across a suspend/resume (POST /v1/jobs group commit) */
    void *route_state;
    void (*route_state_free)(void *);
} request;

/* Start listening as g_app.cfg says. Prints "listening on http://HOST:PORT". */
int http_start(char *err, size_t errlen);
/* Stop accepting new connections (existing ones continue). */
void http_quiesce(void);
/* Stop the daemon (after sse_shutdown()). */
void http_stop(void);
/* The port actually bound. */
int http_port(void);

/* A JSON response (body stolen; text ends with a newline; Content-Type and
 * Cache-Control: no-store set), or NULL. */
struct MHD_Response *json_response(json_t *body);
/* Answer with JSON (body stolen). */
enum MHD_Result reply_json(request *r, unsigned status, json_t *body);
/* Answer with the error object; field may be NULL. */
enum MHD_Result reply_error(request *r, unsigned status, const char *code, const char *field,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Queue a prepared response and release it. */
enum MHD_Result reply_response(request *r, unsigned status, struct MHD_Response *resp);
/* Query parameter or NULL. */
const char *http_query(request *r, const char *key);
/* Request header or NULL. */
const char *http_header(request *r, const char *key);

#endif
