/* http.h — the HTTP front: the libmicrohttpd daemon (thread pool, epoll, suspend/resume
 * for SSE, connection limits and timeouts), routing, body handling (limits checked
 * before reading) and auth. The request every route is handed is in request.h; how a
 * route answers is in reply.h. */
#ifndef FDWD_HTTP_H
#define FDWD_HTTP_H

#include <stddef.h>

/* Start listening as g_app.cfg says. Prints "listening on http://HOST:PORT". */
int http_start(char *err, size_t errlen);
/* Stop the daemon (after sse_shutdown()). */
void http_stop(void);
/* The port actually bound. */
int http_port(void);

#endif
