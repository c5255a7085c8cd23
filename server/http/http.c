/* http.c — the libmicrohttpd daemon, the request life cycle and the router (see
 * http.h); the answers themselves are reply.c's.
 * A request is routed on its first callback, before any body is read: unknown path
 * (404), wrong method (405), missing auth (401), wrong Content-Type (415) and a
 * Content-Length over the limit (413) are answered at once, so an oversized body is
 * never read. Chunked bodies are counted as they arrive. */
#include "http/http.h"
#include "auth/auth.h"
#include "core/app.h"
#include "http/conn.h"
#include "http/jobcache.h"
#include "core/log.h"
#include "http/metrics.h"
#include "http/reply.h"
#include "http/routes.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum {
    R_NONE = 0, R_BAD_JOB, R_JOBS, R_JOB, R_JOB_CANCEL, R_JOB_EVENTS, R_JOB_OUTPUTS,
    R_JOB_OUTPUT_FILE, R_MODELS, R_MODEL, R_HEALTH, R_DEVICES, R_METRICS, R_OPENAPI, R_STATIC,
    R_USAGE, R_USERS_ME, R_DATA_LIST, R_DATA
};

/* The libmicrohttpd daemon and the port it bound (app->http). */
struct http_front {
    struct MHD_Daemon *daemon;
    int port;
};

/* ---- request accessors ----------------------------------------------------------- */

/* ---- routing --------------------------------------------------------------------- */

/* Parse a job id segment: 1..18 digits. */
static int parse_id(const char *s, size_t n, int64_t *id)
{
    if (n == 0 || n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *id = v;
    return v > 0 ? 0 : -1;
}

static void route(request *r)
{
    const char *p = r->path;
    r->route = R_NONE;
    if (!strcmp(p, "/metrics")) { r->route = R_METRICS; return; }
    if (!strcmp(p, "/v1/health")) { r->route = R_HEALTH; return; }
    if (!strcmp(p, "/v1/devices")) { r->route = R_DEVICES; return; }
    if (!strcmp(p, "/v1/usage")) { r->route = R_USAGE; return; }
    if (!strcmp(p, "/v1/users/me")) { r->route = R_USERS_ME; return; }
    if (!strcmp(p, "/v1/openapi.yaml")) { r->route = R_OPENAPI; return; }
    if (!strcmp(p, "/v1/jobs") || !strcmp(p, "/v1/jobs/")) { r->route = R_JOBS; return; }
    if (!strcmp(p, "/v1/models") || !strcmp(p, "/v1/models/")) { r->route = R_MODELS; return; }
    if (!strncmp(p, "/v1/models/", 11)) {
        snprintf(r->name, sizeof r->name, "%s", p + 11);
        r->route = R_MODEL;
        return;
    }
    if (!strcmp(p, "/v1/data") || !strcmp(p, "/v1/data/")) { r->route = R_DATA_LIST; return; }
    if (!strncmp(p, "/v1/data/", 9)) {
        snprintf(r->name, sizeof r->name, "%s", p + 9);
        r->route = R_DATA;
        return;
    }
    if (!strncmp(p, "/v1/jobs/", 9)) {
        const char *s = p + 9;
        const char *slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if (parse_id(s, n, &r->job_id)) {
            r->route = R_BAD_JOB;
            snprintf(r->name, sizeof r->name, "%.*s", (int)(n < 100 ? n : 100), s);
            return;
        }
        if (!slash) { r->route = R_JOB; return; }
        const char *rest = slash + 1;
        if (!strcmp(rest, "cancel")) r->route = R_JOB_CANCEL;
        else if (!strcmp(rest, "events")) r->route = R_JOB_EVENTS;
        else if (!strcmp(rest, "outputs") || !strcmp(rest, "outputs/")) r->route = R_JOB_OUTPUTS;
        else if (!strncmp(rest, "outputs/", 8)) {
            snprintf(r->name, sizeof r->name, "%s", rest + 8);
            r->route = R_JOB_OUTPUT_FILE;
        }
        return;
    }
    if (p[0] == '/' && !strchr(p + 1, '/') && strncmp(p, "/v1", 3) != 0) {
        snprintf(r->name, sizeof r->name, "%s", p[1] ? p + 1 : "index.html");
        r->route = R_STATIC;
    }
}

/* Allowed methods of a route, as an Allow header value. */
static const char *allowed(int route)
{
    switch (route) {
    case R_JOBS: return "GET, HEAD, POST";
    case R_JOB: return "GET, HEAD, DELETE";
    case R_JOB_CANCEL: return "POST";
    case R_MODEL: return "PUT";
    case R_DATA: return "GET, HEAD, PUT, DELETE";
    default: return "GET, HEAD";
    }
}

static int method_ok(int route, const char *m)
{
    int get = !strcmp(m, "GET") || !strcmp(m, "HEAD");
    switch (route) {
    case R_JOBS: return get || !strcmp(m, "POST");
    case R_JOB: return get || !strcmp(m, "DELETE");
    case R_JOB_CANCEL: return !strcmp(m, "POST");
    case R_MODEL: return !strcmp(m, "PUT");
    case R_DATA: return get || !strcmp(m, "PUT") || !strcmp(m, "DELETE");
    default: return get;
    }
}

static int is_public(int route)
{
    return route == R_HEALTH || route == R_OPENAPI || route == R_STATIC || route == R_METRICS;
}

static const char *bearer(request *r)
{
    const char *h = http_header(r, "Authorization");
    if (h) {
        while (*h == ' ')
            h++;
        if (!strncasecmp(h, "Bearer ", 7)) {
            h += 7;
            while (*h == ' ')
                h++;
            return h;
        }
        return "";
    }
    return http_query(r, "access_token");
}

/* Dispatch a request whose body (if any) is complete. */
static enum MHD_Result dispatch(request *r)
{
    int post = !strcmp(r->method, "POST");
    switch (r->route) {
    case R_JOBS: return post ? route_jobs_submit(r) : route_jobs_list(r);
    case R_JOB: return !strcmp(r->method, "DELETE") ? route_job_delete(r) : route_job_get(r);
    case R_JOB_CANCEL: return route_job_cancel(r);
    case R_JOB_EVENTS: return route_job_events(r);
    case R_JOB_OUTPUTS: return route_job_outputs(r);
    case R_JOB_OUTPUT_FILE: return route_job_output_file(r);
    case R_MODELS: return route_models_list(r);
    case R_MODEL: return route_model_put_done(r);
    case R_DATA_LIST: return route_data_list(r);
    case R_DATA: return route_data(r);
    case R_HEALTH: return route_health(r);
    case R_DEVICES: return route_devices(r);
    case R_USAGE: return route_usage(r);
    case R_USERS_ME: return route_users_me(r);
    case R_METRICS: return route_metrics(r);
    case R_OPENAPI: return route_openapi(r);
    case R_STATIC: return route_static(r);
    }
    return reply_error(r, 404, "not_found", NULL, "no such resource: %s", r->path);
}

static int content_type_json(request *r)
{
    const char *ct = http_header(r, "Content-Type");
    if (!ct)
        return 0;
    size_t n = strlen("application/json");
    return !strncasecmp(ct, "application/json", n) && (ct[n] == '\0' || ct[n] == ';' ||
                                                       ct[n] == ' ');
}

/* First callback of a request: route, check, and either answer now or prepare for the
 * body. Returns MHD_YES to continue. */
static enum MHD_Result first_call(request *r)
{
    fdwd_app *app = r->app;
    metrics_count_request(app);
    if (atomic_load(&app->shutting_down))
        return reply_error(r, 503, "unavailable", NULL, "the server is shutting down");
    route(r);
    if (r->route == R_NONE)
        return reply_error(r, 404, "not_found", NULL, "no such resource: %s", r->path);
    if (r->route == R_BAD_JOB)
        return reply_error(r, 404, "not_found", NULL, "no job \"%s\"", r->name);
    if (!method_ok(r->route, r->method)) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s is not allowed on %s; allowed: %s", r->method, r->path,
                 allowed(r->route));
        struct MHD_Response *resp = error_response("method_not_allowed", NULL, msg);
        if (resp)
            MHD_add_response_header(resp, "Allow", allowed(r->route));
        return reply_response(r, 405, resp);
    }
    if (!is_public(r->route)) {
        const char *tok = bearer(r);
        if (auth_check(app, tok, app->loopback, &r->who)) {
            return reply_error(r, 401, "unauthorized", NULL, "%s",
                               tok && *tok ? "invalid token"
                                           : "missing token: send Authorization: Bearer TOKEN");
        }
        conn_authenticated(r->cs); /* no longer counted among the anonymous */
    }
    const char *cl = http_header(r, "Content-Length");
    unsigned long long clen = cl ? strtoull(cl, NULL, 10) : 0;
    if (r->route == R_JOBS && !strcmp(r->method, "POST")) {
        if (!content_type_json(r))
            return reply_error(r, 415, "unsupported_media_type", NULL,
                               "POST /v1/jobs needs Content-Type: application/json");
        if (clen > app->cfg.max_body)
            return reply_error(r, 413, "payload_too_large", NULL,
                               "the job spec is %llu bytes; the limit is %llu", clen,
                               (unsigned long long)app->cfg.max_body);
    }
    if (r->route == R_MODEL || (r->route == R_DATA && !strcmp(r->method, "PUT"))) {
        const int model = r->route == R_MODEL;
        r->upload_limit = model ? app->cfg.max_model_bytes : app->cfg.max_data_bytes;
        if (clen > r->upload_limit)
            return reply_error(r, 413, "payload_too_large", "body",
                               "the %s is %llu bytes; the limit is %llu (%s)",
                               model ? "model" : "data", clen,
                               (unsigned long long)r->upload_limit,
                               model ? "max-model-bytes" : "max-data-bytes");
        upload_error e;
        r->upload = upload_begin(model ? app->models : app->datasets, &r->who, r->name,
                                 http_query(r, "replace"), http_query(r, "owner"), clen, &e);
        if (!r->upload)
            return reply_error(r, (unsigned)e.status, e.code, e.field, "%s", e.message);
    }
    return MHD_YES;
}

/* Drop what a request's body gathered (it will be refused). */
static void drop_body(request *r)
{
    free(r->body);
    r->body = NULL;
    r->len = r->cap = 0;
}

/* n more bytes of a request's body: onto its upload, or gathered for POST /v1/jobs, each
 * within its limit (what is over it is answered when the body is complete), or the
 * request refused when the body comes too slowly. */
static enum MHD_Result body_chunk(request *r, const char *data, size_t n)
{
    fdwd_app *app = r->app;
    if (r->too_slow)
        return MHD_YES; /* answered; MHD closes the connection */
    if (conn_body(r->cs, n)) {
        r->too_slow = 1;
        upload_abort(r->upload);
        r->upload = NULL;
        drop_body(r);
        return reply_error(r, 408, "request_timeout", NULL,
                           "the request body arrived at less than %llu bytes/s",
                           (unsigned long long)app->cfg.body_min_rate);
    }
    if (r->upload && !r->upload_failed) {
        if (upload_bytes(r->upload) + n > r->upload_limit)
            r->too_large = 1;
        else if (upload_write(r->upload, data, n))
            r->upload_failed = 1;
        if (r->too_large || r->upload_failed) {
            upload_abort(r->upload);
            r->upload = NULL;
        }
    } else if (!r->upload && r->route == R_JOBS && !r->too_large) {
        if (r->len + n > app->cfg.max_body) {
            r->too_large = 1;
            drop_body(r);
            return MHD_YES;
        }
        if (r->len + n + 1 > r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 4096;
            while (cap < r->len + n + 1)
                cap *= 2;
            char *b = realloc(r->body, cap);
            if (!b)
                return MHD_NO;
            r->body = b;
            r->cap = cap;
        }
        memcpy(r->body + r->len, data, n);
        r->len += n;
        r->body[r->len] = '\0';
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **ctx)
{
    fdwd_app *app = cls;
    (void)version;
    request *r = *ctx;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return MHD_NO;
        *ctx = r;
        r->app = app;
        r->conn = conn;
        r->method = method;
        snprintf(r->path, sizeof r->path, "%s", url);
        /* The head is complete: its deadline is met; a body now runs against the rate
         * floor. A client behind a trusted proxy may have only so many in flight. */
        r->cs = conn_of(conn);
        const char *cl = http_header(r, "Content-Length");
        int body = (cl && strtoull(cl, NULL, 10) > 0) || http_header(r, "Transfer-Encoding");
        if (conn_request_begin(r->cs, body, http_header(r, "X-Forwarded-For"), r->client,
                               sizeof r->client))
            return reply_error(r, 429, "too_many_requests", NULL,
                               "too many requests in flight from %s; at most %d at once",
                               r->client, app->cfg.max_requests_per_client);
        /* Either a response was queued (done) or we wait for the body. */
        return first_call(r);
    }
    if (*upload_size) {
        const size_t n = *upload_size;
        *upload_size = 0;
        return body_chunk(r, upload_data, n);
    }
    /* Body complete. */
    if (r->too_slow)
        return MHD_YES;
    conn_body_done(r->cs);
    if (r->too_large)
        return reply_error(r, 413, "payload_too_large", r->upload_limit ? "body" : NULL,
                           "the body exceeds the limit of %llu bytes",
                           (unsigned long long)(r->upload_limit ? r->upload_limit
                                                                : app->cfg.max_body));
    if (r->upload_failed)
        return reply_error(r, 500, "internal", NULL, "writing the upload to disk failed");
    return dispatch(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **ctx,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    conn_request_end(conn_of(conn)); /* the next head has its own deadline */
    request *r = *ctx;
    if (!r)
        return;
    upload_abort(r->upload);
    if (r->route_state_free)
        r->route_state_free(r->route_state);
    free(r->body);
    free(r);
    *ctx = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    log_warn("http: %s", buf);
}

int http_start(fdwd_app *app, char *err, size_t errlen)
{
    struct http_front *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    app->http = h;
    if (metrics_init(app) || jobcache_init(app)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char port[16];
    snprintf(port, sizeof port, "%d", app->cfg.port);
    int rc = getaddrinfo(app->cfg.listen_host, port, &hints, &ai);
    if (rc != 0 || !ai) {
        snprintf(err, errlen, "--listen %s: %s", app->cfg.listen_host, gai_strerror(rc));
        return -1;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (conn_start(app)) {
        freeaddrinfo(ai);
        snprintf(err, errlen, "cannot start the connection reaper thread");
        return -1;
    }
    h->daemon = MHD_start_daemon(
        flags, (uint16_t)app->cfg.port, conn_accept_policy, app->conn, on_request, app,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_SOCK_ADDR,
        ai->ai_addr, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)app->cfg.http_threads,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)app->cfg.max_connections,
        /* per address (the accept policy above), head deadlines, anonymous share: the
         * connection guard (conn.h) */
        MHD_OPTION_NOTIFY_CONNECTION, conn_notify, app->conn,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)app->cfg.connection_timeout,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!h->daemon) {
        snprintf(err, errlen, "cannot listen on %s:%d (address in use or not available)",
                 app->cfg.listen_host, app->cfg.port);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : app->cfg.port;
    int v6 = strchr(app->cfg.listen_host, ':') != NULL;
    log_info("listening on http://%s%s%s:%d", v6 ? "[" : "", app->cfg.listen_host,
             v6 ? "]" : "", h->port);
    return 0;
}


void http_stop(fdwd_app *app)
{
    struct http_front *h = app->http;
    conn_stop(app);
    if (h && h->daemon)
        MHD_stop_daemon(h->daemon);
    if (h)
        h->daemon = NULL;
    jobcache_clear(app);
}

int http_port(fdwd_app *app) { return app->http ? app->http->port : 0; }
