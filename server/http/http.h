/* http.h — the HTTP front: the libmicrohttpd daemon (thread pool, epoll, suspend/resume
 * for SSE, connection limits and timeouts), routing, body handling (limits checked
 * before reading) and auth. The request every route is handed is in request.h; how a
 * route answers is in reply.h. */
#ifndef FDWD_HTTP_H
#define FDWD_HTTP_H

#include "core/app.h"

#include <stddef.h>

/* Start listening as app->cfg says (app->http, app->conn, app->metrics, app->jobcache).
 * Prints "listening on http://HOST:PORT". */
int http_start(fdwd_app *app, char *err, size_t errlen);
/* Stop the daemon (after sse_shutdown()). */
void http_stop(fdwd_app *app);
/* The port actually bound. */
int http_port(fdwd_app *app);

#endif
