/* sse.c — event streams (see sse.h). Each stream reads its job's events from SQLite in
 * pages, formats them as "id: N\nevent: TYPE\ndata: JSON\n\n" and hands them to
 * libmicrohttpd through a content-reader callback; the watchers of one job share each
 * page read (one query per event, not one per watcher). With nothing to send, the callback
 * registers the stream as a waiter and suspends the connection, all under h->svc.lock; a
 * notifier takes h->svc.lock too, so a wake-up can never fall between "checked, nothing
 * new" and "suspended". h->seq counts notifications, per bucket of job ids (job id
 * modulo SEQS), so a stream that raced with a notification for its job re-reads
 * instead of sleeping, while notifications for other jobs (e.g. thousands of new jobs
 * per second) neither invalidate its shared page nor make it query again. */
#include "events/sse.h"
#include "core/db.h"
#include "core/app.h"
#include "core/log.h"
#include "core/service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct stream {
    struct sse_hub *hub;
    struct MHD_Connection *conn;
    int64_t job_id;
    int64_t last_id;           /* last event id sent */
    char *buf;                 /* formatted, not yet sent */
    size_t len, off, cap;
    int ended;                 /* "end" event is in buf: finish once buf drains */
    int suspended;
    int pending;               /* notified, resume deferred by the fan-out pacing */
    int keepalive;             /* the timer woke us: send a comment */
    int caught_up;             /* the last load read every event committed before... */
    uint64_t caught_up_seq;    /* ...its h->seq bucket had this value (read before it) */
    int64_t last_write_ms;
    struct stream *prev, *next; /* all streams */
} stream;

/* The last page of events read for a job, formatted. Every watcher of a job wakes on
 * the same notification and would run the same query from the same position; the
 * first one reads and keeps the page, the others copy it. A page serves a stream only
 * while the job's h->seq bucket still has the value read before the page was loaded
 * (PAGES == SEQS, so a page slot and a seq bucket hold the same jobs), which makes taking
 * it exactly as good as loading at that moment (see reader). */
typedef struct page {
    int valid;
    int64_t job_id, from_id;   /* the events after from_id... */
    uint64_t seq;              /* ...loaded when the job's h->seq bucket was this */
    int64_t last_id;           /* the stream's position after the page */
    int n, ended, caught_up;
    char *buf;
    size_t len, cap;
} page;

#define PAGES 64
/* Buckets of notification counters; a job's bucket is job_id % SEQS. */
#define SEQS 64

/* The streams of the daemon and their timer (app->sse). */
struct sse_hub {
    fdwd_db *db;
    pthread_mutex_t page_lock;
    page pages[PAGES];

    fdwd_service svc;          /* the timer; svc.lock guards all below */
    stream *streams;
    uint64_t seq[SEQS];        /* notifications per bucket of job ids */
    int bucket_streams[SEQS];  /* streams per bucket (a notify with none walks nothing) */
    int count, keepalive_ms;
    int pending;               /* streams with pending set */
    int wake_rate;             /* paced resumes per second; 0: no pacing */
};

/* Fan-out pacing: a notification resumes at most FANOUT_NOW of a job's waiting streams
 * at once; the timer thread resumes the rest at h->wake_rate streams a second (--sse-wake-
 * rate, default 1000), every FANOUT_TICK_MS. Each resumed stream wakes its client too,
 * and on the 2-core development VM a client's wake-up costs ~0.3 ms of CPU: 200 watchers
 * of one job woken within ~50 ms took half of both cores for that time, and the POSTs
 * arriving meanwhile set the p99 (tests/bench/bench_http.sh). Spread over 200 ms they
 * take a steady few percent. A deferred stream loses no event: it reads everything new
 * when its turn comes (several events at once if they came faster than its turn), and
 * the last of N watchers hears of an event up to N / rate seconds late. */
#define FANOUT_NOW 8
#define FANOUT_TICK_MS 4

/* Resume a suspended stream. h->svc.lock held. */
static void wake(stream *s)
{
    struct sse_hub *h = s->hub;
    s->suspended = 0;
    if (s->pending) {
        s->pending = 0;
        h->pending--;
    }
    MHD_resume_connection(s->conn);
}

/* Mark s for a paced resume by the timer thread. h->svc.lock held. */
static void defer(stream *s)
{
    struct sse_hub *h = s->hub;
    if (!s->pending) {
        s->pending = 1;
        h->pending++;
    }
}

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

static int bucket(int64_t job_id) { return (int)((uint64_t)job_id % SEQS); }

/* Read up to a page of new events into s->buf. seq: the job's h->seq bucket read before
 * this call; when the page is not full, every event committed before the matching
 * notification has been read, and s remembers that seq (see reader). Returns events
 * read, or -1. */
static int load_events(stream *s, uint64_t seq)
{
    sqlite3 *c = db(s->hub->db);
    sqlite3_stmt *st = db_stmt(c, "SELECT id, type, data FROM events WHERE job_id = ?1 AND "
                                  "id > ?2 ORDER BY id LIMIT 200");
    if (!db_bind(st, "ii", s->job_id, s->last_id))
        return -1;
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *type = (const char *)sqlite3_column_text(st, 1);
        const char *data = (const char *)sqlite3_column_text(st, 2);
        char head[96];
        int hl = snprintf(head, sizeof head, "id: %lld\nevent: %s\ndata: ", (long long)id, type);
        if (append(s, head, (size_t)hl) || append(s, data, strlen(data)) ||
            append(s, "\n\n", 2)) {
            db_stmt_done(st);
            return -1;
        }
        s->last_id = id;
        n++;
        if (strcmp(type, "end") == 0) {
            s->ended = 1;
            break;
        }
    }
    db_stmt_done(st);
    s->caught_up = rc == SQLITE_DONE && n < 200;
    s->caught_up_seq = seq;
    /* Nothing new: if the job's "end" lies at or before where the client resumed
     * (Last-Event-ID after the end), there is nothing more to wait for. */
    if (n == 0 && !s->ended &&
        db_int(c, "SELECT 1 FROM events WHERE job_id = ?1 AND type = 'end' AND id <= ?2 LIMIT 1",
               0, "ii", s->job_id, s->last_id))
        s->ended = 1;
    return n;
}

/* Copy the kept page that continues s at seq into s->buf. Returns its event count, or
 * -1 when there is none. */
static int take_page(stream *s, uint64_t seq)
{
    struct sse_hub *h = s->hub;
    int n = -1;
    pthread_mutex_lock(&h->page_lock);
    page *p = &h->pages[(uint64_t)s->job_id % PAGES];
    if (p->valid && p->job_id == s->job_id && p->from_id == s->last_id && p->seq == seq &&
        append(s, p->buf, p->len) == 0) {
        n = p->n;
        s->last_id = p->last_id;
        s->ended = p->ended;
        s->caught_up = p->caught_up;
        s->caught_up_seq = seq;
    }
    pthread_mutex_unlock(&h->page_lock);
    return n;
}

/* Keep the n events (text[0..len)) that load_events just read for s from from_id. */
static void keep_page(const stream *s, int64_t from_id, uint64_t seq, const char *text,
                      size_t len, int n)
{
    struct sse_hub *h = s->hub;
    pthread_mutex_lock(&h->page_lock);
    page *p = &h->pages[(uint64_t)s->job_id % PAGES];
    if (len > p->cap) {
        char *b = realloc(p->buf, len);
        if (!b) {
            p->valid = 0;
            pthread_mutex_unlock(&h->page_lock);
            return;
        }
        p->buf = b;
        p->cap = len;
    }
    memcpy(p->buf, text, len);
    p->len = len;
    p->valid = 1;
    p->job_id = s->job_id;
    p->from_id = from_id;
    p->seq = seq;
    p->last_id = s->last_id;
    p->n = n;
    p->ended = s->ended;
    p->caught_up = s->caught_up;
    pthread_mutex_unlock(&h->page_lock);
}

/* New events for s at seq: from the kept page, else from the database (and kept). */
static int next_events(stream *s, uint64_t seq)
{
    int n = take_page(s, seq);
    if (n >= 0)
        return n;
    int64_t from = s->last_id;
    size_t len0 = s->len;
    n = load_events(s, seq);
    if (n > 0)
        keep_page(s, from, seq, s->buf + len0, s->len - len0, n);
    return n;
}

static ssize_t reader(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    stream *s = cls;
    struct sse_hub *h = s->hub;
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
        pthread_mutex_lock(&h->svc.lock);
        uint64_t seq = h->seq[bucket(s->job_id)];
        int down = h->svc.stop, ka = s->keepalive;
        s->keepalive = 0;
        pthread_mutex_unlock(&h->svc.lock);
        if (down)
            return MHD_CONTENT_READER_END_OF_STREAM;
        /* Caught up and no notification since: nothing can be new, skip the query (a
         * watcher would otherwise read twice per event: the event, then nothing). */
        if (!s->caught_up || s->caught_up_seq != seq) {
            int n = next_events(s, seq);
            if (n < 0)
                return MHD_CONTENT_READER_END_WITH_ERROR;
            if (n > 0 || s->ended)
                continue;
        }
        if (ka) {
            append(s, ": keepalive\n\n", 13);
            continue;
        }
        pthread_mutex_lock(&h->svc.lock);
        if (h->seq[bucket(s->job_id)] != seq || h->svc.stop || s->keepalive) {
            pthread_mutex_unlock(&h->svc.lock);
            continue;
        }
        s->suspended = 1;
        MHD_suspend_connection(s->conn);
        pthread_mutex_unlock(&h->svc.lock);
        return 0;
    }
}

static void stream_free(void *cls)
{
    stream *s = cls;
    struct sse_hub *h = s->hub;
    pthread_mutex_lock(&h->svc.lock);
    if (s->prev)
        s->prev->next = s->next;
    else
        h->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    if (s->pending)
        h->pending--;
    h->count--;
    h->bucket_streams[bucket(s->job_id)]--;
    pthread_mutex_unlock(&h->svc.lock);
    free(s->buf);
    free(s);
}

struct MHD_Response *sse_response(fdwd_app *app, struct MHD_Connection *conn, int64_t job_id,
                                  int64_t since)
{
    struct sse_hub *h = app->sse;
    stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->hub = h;
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
    pthread_mutex_lock(&h->svc.lock);
    s->next = h->streams;
    if (h->streams)
        h->streams->prev = s;
    h->streams = s;
    h->count++;
    h->bucket_streams[bucket(job_id)]++;
    pthread_mutex_unlock(&h->svc.lock);
    return r;
}

/* sse_notify_jobs's work for one job; h->svc.lock held. Returns 1 if it deferred a wake-up. */
static int notify_locked(struct sse_hub *h, int64_t job_id)
{
    int b = bucket(job_id), woken = 0, deferred = 0;
    h->seq[b]++;
    if (h->bucket_streams[b] == 0)
        return 0;
    for (stream *s = h->streams; s; s = s->next)
        if (s->suspended && s->job_id == job_id && !s->pending) {
            if (woken < FANOUT_NOW || h->wake_rate == 0) {
                wake(s);
                woken++;
            } else {
                defer(s);
                deferred = 1;
            }
        }
    return deferred;
}

void sse_notify_jobs(void *hub, const int64_t *job_ids, int n)
{
    struct sse_hub *h = hub;
    int deferred = 0;
    pthread_mutex_lock(&h->svc.lock);
    for (int i = 0; i < n; i++)
        deferred |= notify_locked(h, job_ids[i]);
    if (deferred)
        service_wake(&h->svc);
    pthread_mutex_unlock(&h->svc.lock);
}

/* Resumes the streams whose wake-up the pacing deferred (every FANOUT_TICK_MS while
 * there are any, as many as h->wake_rate allows for the time passed), and once a second
 * the streams idle for the keep-alive interval (paced too). */
static void *timer_main(void *arg)
{
    struct sse_hub *h = arg;
    pthread_mutex_lock(&h->svc.lock);
    int64_t next_keepalive = now_ms() + 1000;
    struct timespec last;
    clock_gettime(CLOCK_MONOTONIC, &last);
    double budget = 0; /* resumes allowed now: h->wake_rate per second, up to one tick's */
    while (!h->svc.stop && !service_wait(&h->svc, h->pending > 0 ? FANOUT_TICK_MS : 1000)) {
        struct timespec now_ts;
        clock_gettime(CLOCK_MONOTONIC, &now_ts);
        double tick = h->wake_rate * FANOUT_TICK_MS / 1000.0;
        budget += ((double)(now_ts.tv_sec - last.tv_sec) +
                   (double)(now_ts.tv_nsec - last.tv_nsec) / 1e9) * h->wake_rate;
        last = now_ts;
        if (budget > (tick > 1 ? tick : 1))
            budget = tick > 1 ? tick : 1;
        int quota = h->wake_rate > 0 ? (int)budget : h->pending;
        budget -= quota;
        for (stream *s = h->streams; s && h->pending > 0 && quota > 0; s = s->next)
            if (s->pending) {
                if (s->suspended) {
                    wake(s);
                    quota--;
                } else { /* woken meanwhile by something else */
                    s->pending = 0;
                    h->pending--;
                }
            }
        int64_t now = now_ms();
        if (now < next_keepalive)
            continue;
        next_keepalive = now + 1000;
        for (stream *s = h->streams; s; s = s->next)
            if (s->suspended && now - s->last_write_ms >= h->keepalive_ms) {
                s->keepalive = 1;
                s->last_write_ms = now;
                if (h->wake_rate > 0)
                    defer(s);
                else
                    wake(s);
            }
    }
    pthread_mutex_unlock(&h->svc.lock);
    return NULL;
}

int sse_start(fdwd_app *app, int keepalive_ms, int wake_rate)
{
    struct sse_hub *h = calloc(1, sizeof *h);
    if (!h)
        return -1;
    h->db = app->db;
    pthread_mutex_init(&h->page_lock, NULL);
    service_init(&h->svc);
    h->keepalive_ms = keepalive_ms;
    h->wake_rate = wake_rate > 0 ? wake_rate : 0;
    app->sse = h;
    return service_start(&h->svc, "sse-timer", 1, timer_main, h);
}

void sse_shutdown(fdwd_app *app)
{
    struct sse_hub *h = app->sse;
    if (!h)
        return;
    pthread_mutex_lock(&h->svc.lock);
    service_signal_stop(&h->svc);
    for (stream *s = h->streams; s; s = s->next)
        if (s->suspended)
            wake(s);
    pthread_mutex_unlock(&h->svc.lock);
    service_join(&h->svc);
}

int sse_count(fdwd_app *app)
{
    struct sse_hub *h = app->sse;
    if (!h)
        return 0;
    pthread_mutex_lock(&h->svc.lock);
    int n = h->count;
    pthread_mutex_unlock(&h->svc.lock);
    return n;
}
