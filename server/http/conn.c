/* conn.c — the connection guard (see conn.h). Every connection MHD accepts gets a
 * conn_state (its socket context) in one list under one lock; the reaper thread and the
 * MHD threads meet only there. A connection is cut off with shutdown(2) on its socket
 * under that lock: MHD then sees the end of the stream, closes it and tells conn_notify,
 * which unlinks it under the same lock, so the socket is never touched after MHD closed
 * it. A request that misses its deadline before any answer was queued is first sent a
 * 408 by the reaper (MHD writes nothing before a request head is complete). */
#include "http/conn.h"
#include "core/app.h"
#include "core/log.h"
#include "core/service.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ADDR_LEN 64

enum phase { PH_HEAD, PH_BODY, PH_ANSWER };

struct conn_state {
    struct conn_guard *guard;
    int fd;
    char addr[ADDR_LEN];       /* the peer, as text (IPv4-mapped IPv6 as IPv4) */
    int proxy;                 /* the peer is a trusted proxy */
    int anonymous;             /* counted among the anonymous connections */
    enum phase phase;
    int64_t since_ms;          /* start of the phase: HEAD since accept or the last
                                  request's end, BODY since the head arrived */
    uint64_t body_bytes;
    int served;                /* requests answered on it (a kept-alive connection) */
    int killed;
    char client[ADDR_LEN];     /* the client a proxied request is counted against */
    conn_state *prev, *next;
};

/* A count per address (connections per peer; requests per proxied client). */
typedef struct addr_count {
    char addr[ADDR_LEN];
    int n;
} addr_count;

typedef struct count_table {
    addr_count *e;
    int n, cap;
} count_table;

/* The guard (app->conn): every connection, the counts, the reaper thread. */
struct conn_guard {
    fdwd_app *app;
    fdwd_service svc;          /* the reaper; svc.lock guards all below */
    conn_state *head;
    int total, anon;
    count_table peers, clients;
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- counts per address ---------------------------------------------------------- */

static addr_count *count_find(count_table *t, const char *addr, int create)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->e[i].addr, addr) == 0)
            return &t->e[i];
    if (!create)
        return NULL;
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        addr_count *e = realloc(t->e, (size_t)cap * sizeof *e);
        if (!e)
            return NULL;
        t->e = e;
        t->cap = cap;
    }
    addr_count *a = &t->e[t->n++];
    snprintf(a->addr, sizeof a->addr, "%s", addr);
    a->n = 0;
    return a;
}

static int count_of(count_table *t, const char *addr)
{
    addr_count *a = count_find(t, addr, 0);
    return a ? a->n : 0;
}

static void count_add(count_table *t, const char *addr, int d)
{
    addr_count *a = count_find(t, addr, d > 0);
    if (!a)
        return;
    a->n += d;
    if (a->n <= 0) /* drop the entry: the table holds only live addresses */
        *a = t->e[--t->n];
}

/* ---- addresses ------------------------------------------------------------------- */

/* The text of a socket address; IPv4-mapped IPv6 addresses as plain IPv4. */
static void addr_text(const struct sockaddr *sa, char *out, size_t cap)
{
    out[0] = '\0';
    if (!sa)
        return;
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)cap);
    } else if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a))
            inet_ntop(AF_INET, &a->s6_addr[12], out, (socklen_t)cap);
        else
            inet_ntop(AF_INET6, a, out, (socklen_t)cap);
    }
}

/* The canonical text of an address typed as text, or "" when it is none. */
static void canonical(const char *in, char *out, size_t cap)
{
    unsigned char buf[16];
    out[0] = '\0';
    if (inet_pton(AF_INET, in, buf) == 1) {
        inet_ntop(AF_INET, buf, out, (socklen_t)cap);
    } else if (inet_pton(AF_INET6, in, buf) == 1) {
        if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)buf))
            inet_ntop(AF_INET, buf + 12, out, (socklen_t)cap);
        else
            inet_ntop(AF_INET6, buf, out, (socklen_t)cap);
    }
}

static int is_trusted(const fdwd_app *app, const char *addr)
{
    for (int i = 0; i < app->cfg.ntrusted; i++) {
        char t[ADDR_LEN];
        canonical(app->cfg.trusted_proxies[i], t, sizeof t);
        if (t[0] && strcmp(t, addr) == 0)
            return 1;
    }
    return 0;
}

/* The client a trusted proxy forwarded for: the rightmost X-Forwarded-For entry that is
 * not itself a trusted proxy (entries left of it could be made up by the client). */
static void forwarded_client(const fdwd_app *app, const char *xff, const char *peer, char *out,
                             size_t cap)
{
    snprintf(out, cap, "%s", peer);
    if (!xff)
        return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", xff);
    for (;;) {
        char *comma = strrchr(buf, ',');
        char *item = comma ? comma + 1 : buf;
        while (*item == ' ' || *item == '\t')
            item++;
        size_t n = strlen(item);
        while (n && (item[n - 1] == ' ' || item[n - 1] == '\t'))
            item[--n] = '\0';
        char c[ADDR_LEN];
        canonical(item, c, sizeof c);
        if (!c[0])
            return; /* not an address: count against the proxy */
        if (!is_trusted(app, c)) {
            snprintf(out, cap, "%s", c);
            return;
        }
        if (!comma)
            return;
        *comma = '\0';
    }
}

/* ---- cutting a connection off ---------------------------------------------------- */

static int anonymous_cap(const fdwd_app *app)
{
    int cap = app->cfg.anonymous_connections;
    if (cap <= 0)
        cap = app->cfg.max_connections / 8;
    return cap < 1 ? 1 : cap;
}

/* End cs's connection (lock held); with a 408 first when no answer was started. */
static void cut(conn_state *cs, const char *why)
{
    if (cs->killed)
        return;
    cs->killed = 1;
    if (why && cs->phase != PH_ANSWER) {
        char body[512], msg[1024];
        int bl = snprintf(body, sizeof body,
                          "{\"error\":{\"code\":\"request_timeout\",\"message\":\"%s\","
                          "\"field\":null}}\n",
                          why);
        int ml = snprintf(msg, sizeof msg,
                          "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
                          "Connection: close\r\nContent-Length: %d\r\n\r\n%s",
                          bl, body);
        if (ml > 0 && (size_t)ml < sizeof msg)
            (void)send(cs->fd, msg, (size_t)ml, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    shutdown(cs->fd, SHUT_RDWR);
}

static void set_anonymous(conn_state *cs, int anon)
{
    if (cs->anonymous == anon)
        return;
    cs->anonymous = anon;
    cs->guard->anon += anon ? 1 : -1;
}

/* The anonymous connection that has waited longest for a request head, other than
 * except (lock held); NULL if none. */
static conn_state *oldest_anonymous(struct conn_guard *g, const conn_state *except)
{
    conn_state *oldest = NULL;
    for (conn_state *c = g->head; c; c = c->next)
        if (c != except && c->anonymous && !c->killed && c->phase == PH_HEAD &&
            (!oldest || c->since_ms < oldest->since_ms))
            oldest = c;
    return oldest;
}

/* Close an anonymous connection idle in its head phase (lock held). */
static void evict(conn_state *c, const char *why)
{
    log_debug("http: closing an unauthenticated connection from %s: %s", c->addr, why);
    cut(c, NULL);
    set_anonymous(c, 0); /* its slot counts as free from now on */
}

/* Keep the anonymous connections that have had ANON_GRACE_MS to send a request head at
 * or below their share: the oldest go first (lock held). A fresh connection is not
 * judged before its head could arrive, so bursts of new clients are not refused. */
#define ANON_GRACE_MS 1000
static void enforce_anonymous_share(struct conn_guard *g, int64_t now)
{
    int idle = 0;
    for (conn_state *c = g->head; c; c = c->next)
        idle += c->anonymous && !c->killed && c->phase == PH_HEAD &&
                now - c->since_ms > ANON_GRACE_MS;
    for (; idle > anonymous_cap(g->app); idle--) {
        conn_state *c = oldest_anonymous(g, NULL);
        if (!c)
            break;
        evict(c, "over the share of unauthenticated connections");
    }
}

/* ---- MHD hooks ------------------------------------------------------------------- */

enum MHD_Result conn_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct conn_guard *g = cls;
    const fdwd_app *app = g->app;
    (void)addrlen;
    if (atomic_load(&app->shutting_down))
        return MHD_NO; /* the daemon is stopping: answer what is open, take nothing new */
    char a[ADDR_LEN];
    addr_text(addr, a, sizeof a);
    pthread_mutex_lock(&g->svc.lock);
    int ok = is_trusted(app, a) || count_of(&g->peers, a) < app->cfg.max_connections_per_ip;
    pthread_mutex_unlock(&g->svc.lock);
    if (!ok)
        log_debug("http: refused a connection from %s: %d connections from it already", a,
                  app->cfg.max_connections_per_ip);
    return ok ? MHD_YES : MHD_NO;
}

void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                 enum MHD_ConnectionNotificationCode code)
{
    struct conn_guard *g = cls;
    const fdwd_app *app = g->app;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        conn_state *cs = calloc(1, sizeof *cs);
        *socket_context = cs;
        if (!cs)
            return;
        const union MHD_ConnectionInfo *fi =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ai =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        cs->fd = fi ? fi->connect_fd : -1;
        addr_text(ai ? ai->client_addr : NULL, cs->addr, sizeof cs->addr);
        cs->guard = g;
        cs->phase = PH_HEAD;
        cs->since_ms = mono_ms();
        pthread_mutex_lock(&g->svc.lock);
        cs->proxy = is_trusted(app, cs->addr);
        cs->next = g->head;
        if (g->head)
            g->head->prev = cs;
        g->head = cs;
        g->total++;
        if (!cs->proxy) {
            count_add(&g->peers, cs->addr, 1);
            /* Two accepts from one address may have passed the policy at once. */
            if (count_of(&g->peers, cs->addr) > app->cfg.max_connections_per_ip)
                cut(cs, NULL);
            if (!cs->killed)
                set_anonymous(cs, 1);
        }
        /* The last free slots: an anonymous connection idle longest makes room. */
        if (!cs->killed && g->total >= app->cfg.max_connections - 1) {
            conn_state *old = oldest_anonymous(g, cs);
            if (old)
                evict(old, "the server is at its connection limit");
        }
        pthread_mutex_unlock(&g->svc.lock);
        return;
    }
    conn_state *cs = *socket_context;
    *socket_context = NULL;
    if (!cs)
        return;
    pthread_mutex_lock(&g->svc.lock);
    if (cs->prev)
        cs->prev->next = cs->next;
    else
        g->head = cs->next;
    if (cs->next)
        cs->next->prev = cs->prev;
    g->total--;
    set_anonymous(cs, 0);
    if (!cs->proxy)
        count_add(&g->peers, cs->addr, -1);
    if (cs->client[0])
        count_add(&g->clients, cs->client, -1);
    pthread_mutex_unlock(&g->svc.lock);
    free(cs);
}

conn_state *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* ---- the request life cycle -------------------------------------------------------- */

int conn_request_begin(conn_state *cs, int body, const char *xff, char *client, size_t cap)
{
    if (!cs) {
        snprintf(client, cap, "unknown");
        return 0;
    }
    struct conn_guard *g = cs->guard;
    const fdwd_app *app = g->app;
    int rc = 0;
    pthread_mutex_lock(&g->svc.lock);
    cs->phase = body ? PH_BODY : PH_ANSWER;
    cs->since_ms = mono_ms();
    cs->body_bytes = 0;
    if (cs->proxy) {
        forwarded_client(app, xff, cs->addr, cs->client, sizeof cs->client);
        count_add(&g->clients, cs->client, 1);
        if (count_of(&g->clients, cs->client) > app->cfg.max_requests_per_client)
            rc = -1;
        snprintf(client, cap, "%s", cs->client);
    } else {
        snprintf(client, cap, "%s", cs->addr);
    }
    pthread_mutex_unlock(&g->svc.lock);
    return rc;
}

/* Whether a body of bytes after elapsed_ms has fallen below the rate floor. */
static int too_slow(const fdwd_app *app, uint64_t bytes, int64_t elapsed_ms)
{
    const int64_t grace = (int64_t)app->cfg.head_timeout * 1000;
    return elapsed_ms > grace &&
           (double)bytes < (double)app->cfg.body_min_rate * (double)elapsed_ms / 1000.0;
}

int conn_body(conn_state *cs, size_t n)
{
    if (!cs)
        return 0;
    struct conn_guard *g = cs->guard;
    pthread_mutex_lock(&g->svc.lock);
    cs->body_bytes += n;
    int slow = cs->phase == PH_BODY &&
               too_slow(g->app, cs->body_bytes, mono_ms() - cs->since_ms);
    if (slow)
        cs->phase = PH_ANSWER; /* the handler answers 408 itself */
    pthread_mutex_unlock(&g->svc.lock);
    return slow ? -1 : 0;
}

void conn_body_done(conn_state *cs)
{
    if (!cs)
        return;
    struct conn_guard *g = cs->guard;
    pthread_mutex_lock(&g->svc.lock);
    cs->phase = PH_ANSWER;
    pthread_mutex_unlock(&g->svc.lock);
}

void conn_authenticated(conn_state *cs)
{
    if (!cs)
        return;
    struct conn_guard *g = cs->guard;
    pthread_mutex_lock(&g->svc.lock);
    set_anonymous(cs, 0);
    pthread_mutex_unlock(&g->svc.lock);
}

void conn_request_end(conn_state *cs)
{
    if (!cs)
        return;
    struct conn_guard *g = cs->guard;
    pthread_mutex_lock(&g->svc.lock);
    cs->phase = PH_HEAD;
    cs->since_ms = mono_ms();
    cs->served++;
    if (cs->client[0]) {
        count_add(&g->clients, cs->client, -1);
        cs->client[0] = '\0';
    }
    pthread_mutex_unlock(&g->svc.lock);
}

/* ---- the reaper ------------------------------------------------------------------ */

static void reap(struct conn_guard *g)
{
    const fdwd_app *app = g->app;
    const int64_t now = mono_ms(), head = (int64_t)app->cfg.head_timeout * 1000;
    pthread_mutex_lock(&g->svc.lock);
    enforce_anonymous_share(g, now);
    for (conn_state *c = g->head; c; c = c->next) {
        if (c->killed)
            continue;
        /* A kept-alive connection may idle up to connection-timeout before its next
         * request starts, which this guard cannot see: it gets that long plus the head
         * deadline, and is closed silently, as an idle connection (a 408 could cross a
         * request the client sends at that moment). */
        const int64_t limit =
            c->served ? head + (int64_t)app->cfg.connection_timeout * 1000 : head;
        if (c->phase == PH_HEAD && now - c->since_ms > limit) {
            log_debug("http: %s sent no complete request head in time: closed", c->addr);
            cut(c, c->served ? NULL : "the request head did not arrive in time");
        } else if (c->phase == PH_BODY && too_slow(app, c->body_bytes, now - c->since_ms)) {
            log_info("http: the body from %s fell below %llu bytes/s: closed", c->addr,
                     (unsigned long long)app->cfg.body_min_rate);
            cut(c, "the request body arrived too slowly");
        }
    }
    pthread_mutex_unlock(&g->svc.lock);
}

static void *reaper_main(void *arg)
{
    struct conn_guard *g = arg;
    pthread_mutex_lock(&g->svc.lock);
    while (!g->svc.stop && !service_wait(&g->svc, 250)) {
        pthread_mutex_unlock(&g->svc.lock);
        reap(g);
        pthread_mutex_lock(&g->svc.lock);
    }
    pthread_mutex_unlock(&g->svc.lock);
    return NULL;
}

int conn_start(fdwd_app *app)
{
    struct conn_guard *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    g->app = app;
    service_init(&g->svc);
    app->conn = g;
    return service_start(&g->svc, "conn-reaper", 1, reaper_main, g);
}

void conn_stop(fdwd_app *app)
{
    if (app->conn)
        service_stop(&app->conn->svc);
}
