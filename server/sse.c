/* sse.c — event streams (see sse.h). Each stream reads its job's events from SQLite in
 * pages, formats them as "id: N\nevent: TYPE\ndata: JSON\n\n" and hands them to
 * libmicrohttpd through a content-reader callback. With nothing to send, the callback
 * registers the stream as a waiter and suspends the connection, all under g_lock; a
 * notifier takes g_lock too, so a wake-up can never fall between "checked, nothing
 * new" and "suspended". g_seq counts notifications so a stream that raced with one
 * re-reads instead of sleeping. */
#include "sse.h"
#include "db.h"
#include "log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct stream {
    struct MHD_Connection *conn;
    int64_t job_id;
    int64_t last_id;           /* last event id sent */
    char *buf;                 /* formatted, not yet sent */
    size_t len, off, cap;
    int ended;                 /* "end" event is in buf: finish once buf drains */
    int suspended;
    int keepalive;             /* the timer woke us: send a comment */
    int64_t last_write_ms;
    struct stream *prev, *next; /* all streams */
} stream;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static stream *g_streams;
static uint64_t g_seq;
static int g_count, g_shutdown, g_timer_running, g_keepalive_ms = 15000;
static pthread_t g_timer;
static pthread_cond_t g_timer_cond = PTHREAD_COND_INITIALIZER;

static int append(stream *s, const char *text, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b)
            return -1;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, text, n);
    s->len += n;
    return 0;
}

/* Read up to a page of new events into s->buf. Returns events read, or -1. */
static int load_events(stream *s)
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    if (!c || sqlite3_prepare_v2(c,
                                 "SELECT id, type, data FROM events WHERE job_id = ?1 AND "
                                 "id > ?2 ORDER BY id LIMIT 200",
                                 -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, s->job_id);
    sqlite3_bind_int64(st, 2, s->last_id);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 1);
        const char *data = (const char *)sqlite3_column_text(st, 2);
        char head[96];
        int hl = snprintf(head, sizeof head, "id: %lld\nevent: %s\ndata: ", (long long)id, type);
        if (append(s, head, (size_t)hl) || append(s, data, strlen(data)) ||
            append(s, "\n\n", 2)) {
            sqlite3_finalize(st);
            return -1;
        }
        s->last_id = id;
        n++;
        if (strcmp(type, "end") == 0) {
            s->ended = 1;
            break;
        }
    }
    sqlite3_finalize(st);
    /* Nothing new: if the job's "end" lies at or before where the client resumed
     * (Last-Event-ID after the end), there is nothing more to wait for. */
    if (n == 0 && !s->ended &&
        sqlite3_prepare_v2(c,
                           "SELECT 1 FROM events WHERE job_id = ?1 AND type = 'end' AND "
                           "id <= ?2 LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, s->job_id);
        sqlite3_bind_int64(st, 2, s->last_id);
        if (sqlite3_step(st) == SQLITE_ROW)
            s->ended = 1;
        sqlite3_finalize(st);
    }
    return n;
}

static ssize_t reader(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    stream *s = cls;
    for (;;) {
        if (s->off < s->len) {
            size_t n = s->len - s->off < max ? s->len - s->off : max;
            memcpy(out, s->buf + s->off, n);
            s->off += n;
            if (s->off == s->len)
                s->off = s->len = 0;
            s->last_write_ms = now_ms();
            return (ssize_t)n;
        }
        if (s->ended)
            return MHD_CONTENT_READER_END_OF_STREAM;
        pthread_mutex_lock(&g_lock);
        uint64_t seq = g_seq;
        int down = g_shutdown, ka = s->keepalive;
        s->keepalive = 0;
        pthread_mutex_unlock(&g_lock);
        if (down)
            return MHD_CONTENT_READER_END_OF_STREAM;
        int n = load_events(s);
        if (n < 0)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (n > 0 || s->ended)
            continue;
        if (ka) {
            append(s, ": keepalive\n\n", 13);
            continue;
        }
        pthread_mutex_lock(&g_lock);
        if (g_seq != seq || g_shutdown || s->keepalive) {
            pthread_mutex_unlock(&g_lock);
            continue;
        }
        s->suspended = 1;
        MHD_suspend_connection(s->conn);
        pthread_mutex_unlock(&g_lock);
        return 0;
    }
}

static void stream_free(void *cls)
{
    stream *s = cls;
    pthread_mutex_lock(&g_lock);
    if (s->prev)
        s->prev->next = s->next;
    else
        g_streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    g_count--;
    pthread_mutex_unlock(&g_lock);
    free(s->buf);
    free(s);
}

struct MHD_Response *sse_response(struct MHD_Connection *conn, int64_t job_id, int64_t since)
{
    stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->conn = conn;
    s->job_id = job_id;
    s->last_id = since > 0 ? since : 0;
    s->last_write_ms = now_ms();
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, reader, s, stream_free);
    if (!r) {
        free(s);
        return NULL;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    pthread_mutex_lock(&g_lock);
    s->next = g_streams;
    if (g_streams)
        g_streams->prev = s;
    g_streams = s;
    g_count++;
    pthread_mutex_unlock(&g_lock);
    return r;
}

void sse_notify(int64_t job_id)
{
    pthread_mutex_lock(&g_lock);
    g_seq++;
    for (stream *s = g_streams; s; s = s->next)
        if (s->suspended && s->job_id == job_id) {
            s->suspended = 0;
            MHD_resume_connection(s->conn);
        }
    pthread_mutex_unlock(&g_lock);
}

/* Every second: resume streams idle for the keep-alive interval. */
static void *timer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    while (!g_shutdown) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&g_timer_cond, &g_lock, &ts);
        int64_t now = now_ms();
        for (stream *s = g_streams; s; s = s->next)
            if (s->suspended && now - s->last_write_ms >= g_keepalive_ms) {
                s->suspended = 0;
                s->keepalive = 1;
                s->last_write_ms = now;
                MHD_resume_connection(s->conn);
            }
    }
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

int sse_start(int keepalive_ms)
{
    g_keepalive_ms = keepalive_ms;
    g_shutdown = 0;
    if (pthread_create(&g_timer, NULL, timer_main, NULL) != 0)
        return -1;
    g_timer_running = 1;
    return 0;
}

void sse_shutdown(void)
{
    pthread_mutex_lock(&g_lock);
    g_shutdown = 1;
    for (stream *s = g_streams; s; s = s->next)
        if (s->suspended) {
            s->suspended = 0;
            MHD_resume_connection(s->conn);
        }
    pthread_cond_signal(&g_timer_cond);
    pthread_mutex_unlock(&g_lock);
    if (g_timer_running) {
        pthread_join(g_timer, NULL);
        g_timer_running = 0;
    }
}

int sse_count(void)
{
    pthread_mutex_lock(&g_lock);
    int n = g_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}
