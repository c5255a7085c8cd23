/* conn.h — the connection guard: what libmicrohttpd's own limits do not cover, kept per
 * connection from accept to close (MHD's accept-policy and connection-notify hooks):
 *   - a deadline for each request head (--head-timeout from the connection's start; a
 *     client dripping header bytes is answered 408 and cut off; a kept-alive connection
 *     gets --connection-timeout more, since its idle time is not told from a slow head,
 *     and is closed silently), and a rate floor for bodies (after --head-timeout
 *     seconds a body must average --body-min-rate bytes/s; large uploads are not cut off
 *     by a wall, only slow ones);
 *   - connections per address (--max-connections-per-ip), not counted for trusted
 *     reverse proxies (--trusted-proxy), whose requests are counted instead per client
 *     address they name in X-Forwarded-For (--max-requests-per-client, 429 beyond);
 *   - connections that have not shown a valid token are "anonymous": of those waiting
 *     for a request head for more than a second, at most --anonymous-connections
 *     (max-connections / 8 by default) are kept, the longest-waiting closed first; and
 *     when only one slot is left, the longest-waiting anonymous connection makes room.
 *     So unauthenticated clients cannot hold more than that share of the slots, while a
 *     burst of new clients (anonymous until their first request) is not refused.
 * A reaper thread checks the deadlines four times a second. */
#ifndef FDWD_CONN_H
#define FDWD_CONN_H

#include "core/app.h"
#include <microhttpd.h>
#include <stddef.h>

typedef struct conn_state conn_state;

/* The hooks http.c gives MHD_start_daemon (MHD_OPTION_APPLY_POLICY_CALLBACK and
 * MHD_OPTION_NOTIFY_CONNECTION). The accept policy refuses a connection over the
 * per-address limit, and every new one once the daemon is shutting down. */
enum MHD_Result conn_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen);
void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                 enum MHD_ConnectionNotificationCode code);

/* The guard's state of a connection (NULL if unknown). */
conn_state *conn_of(struct MHD_Connection *c);

/* A request's head has arrived: its body (if body) is now timed against the rate floor,
 * else the request is being answered. xff: its X-Forwarded-For header (may be NULL),
 * believed only on a trusted proxy's connection. Fills client (cap bytes) with the
 * address the request is counted against. Returns 0, or -1 when that client already
 * has --max-requests-per-client requests in flight (answer 429; conn_request_end still
 * follows). */
int conn_request_begin(conn_state *cs, int body, const char *xff, char *client, size_t cap);
/* Body bytes arrived. Returns -1 when the body has fallen below the rate floor (answer
 * 408). */
int conn_body(conn_state *cs, size_t n);
/* The body is complete: the request is being answered. */
void conn_body_done(conn_state *cs);
/* The request showed a valid token (or authentication is off): the connection stops
 * being anonymous. */
void conn_authenticated(conn_state *cs);
/* The request ended (MHD_OPTION_NOTIFY_COMPLETED): the connection waits for its next
 * head, under a new deadline. */
void conn_request_end(conn_state *cs);

/* Make app->conn and start its reaper thread (before the MHD daemon, whose hooks get
 * app->conn as their cls) / stop it (before the daemon stops). */
int conn_start(fdwd_app *app);
void conn_stop(fdwd_app *app);

#endif
