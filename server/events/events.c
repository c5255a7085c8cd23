/* events.c — event storage (see events.h). The writer thread takes everything queued,
 * commits it in one transaction (synchronous=NORMAL: losing the last progress events
 * in a power cut is harmless, the state events that matter are written by jobs.c with
 * FULL sync), then tells the notifier (notify.h) which jobs have new events. */
#include "events/events.h"
#include "core/db.h"
#include "core/log.h"
#include "core/notify.h"
#include "events/outputs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_CAP 4096

typedef struct ev {
    int64_t job_id;
    char type[16];
    json_t *data;
    struct ev *next;
} ev;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;  /* writer: work or stop */
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;  /* flushers: progress made */
static ev *g_head, *g_tail;
static int g_len;
static uint64_t g_posted, g_written, g_dropped;
static int g_stop, g_running;
static pthread_t g_thread;

int64_t events_append(sqlite3 *c, int64_t job_id, const char *type, json_t *data)
{
    char *text = json_dumps(data, JSON_COMPACT);
    if (!text)
        return -1;
    int64_t id = events_append_text(c, job_id, type, text);
    free(text);
    return id;
}

int64_t events_append_text(sqlite3 *c, int64_t job_id, const char *type, const char *text)
{
    sqlite3_stmt *st = db_stmt(c, "INSERT INTO events (job_id, type, data, created_at) "
                                  "VALUES (?1, ?2, ?3, ?4)");
    int64_t id = -1;
    if (st) {
        sqlite3_bind_int64(st, 1, job_id);
        sqlite3_bind_text(st, 2, type, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, now_ms());
        if (sqlite3_step(st) == SQLITE_DONE)
            id = sqlite3_last_insert_rowid(c);
        else
            log_error("events: insert failed: %s", sqlite3_errmsg(c));
        db_stmt_done(st);
    }
    return id;
}

void events_post(int64_t job_id, const char *type, json_t *data, int droppable)
{
    pthread_mutex_lock(&g_lock);
    if (droppable && g_len >= QUEUE_CAP) {
        g_dropped++;
        pthread_mutex_unlock(&g_lock);
        json_decref(data);
        return;
    }
    ev *e = calloc(1, sizeof *e);
    if (!e) {
        pthread_mutex_unlock(&g_lock);
        json_decref(data);
        return;
    }
    e->job_id = job_id;
    snprintf(e->type, sizeof e->type, "%s", type);
    e->data = data;
    if (g_tail)
        g_tail->next = e;
    else
        g_head = e;
    g_tail = e;
    g_len++;
    g_posted++;
    pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_lock);
}

/* Side effects of one event beyond the events row. */
static void side_effects(sqlite3 *c, const ev *e)
{
    if (strcmp(e->type, "progress") == 0) {
        sqlite3_stmt *st = db_stmt(c, "UPDATE jobs SET progress = ?1 WHERE id = ?2");
        char *text = st ? json_dumps(e->data, JSON_COMPACT) : NULL;
        if (text) {
            sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 2, e->job_id);
            sqlite3_step(st);
        }
        db_stmt_done(st);
        free(text);
    } else if (strcmp(e->type, "snapshot") == 0) {
        outputs_record_tx(c, e->job_id, json_object_get(e->data, "files"));
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    for (;;) {
        while (!g_head && !g_stop)
            pthread_cond_wait(&g_wake, &g_lock);
        if (!g_head && g_stop)
            break;
        ev *batch = g_head;
        g_head = g_tail = NULL;
        int n = g_len;
        g_len = 0;
        pthread_mutex_unlock(&g_lock);

        sqlite3 *c = db();
        int ok = c && db_begin(c, 0) == SQLITE_OK;
        if (ok) {
            for (ev *e = batch; e; e = e->next) {
                events_append(c, e->job_id, e->type, e->data);
                side_effects(c, e);
            }
            ok = db_commit(c) == SQLITE_OK;
        }
        if (!ok)
            log_error("events: lost %d events: database write failed", n);
        /* Notify once per job in the batch. */
        for (ev *e = batch; e; e = e->next) {
            int seen = 0;
            for (ev *p = batch; p != e; p = p->next)
                if (p->job_id == e->job_id)
                    seen = 1;
            if (!seen && ok)
                notify_job(e->job_id);
        }
        while (batch) {
            ev *next = batch->next;
            json_decref(batch->data);
            free(batch);
            batch = next;
        }
        pthread_mutex_lock(&g_lock);
        g_written += (uint64_t)n;
        pthread_cond_broadcast(&g_done);
    }
    pthread_mutex_unlock(&g_lock);
    db_release_thread();
    return NULL;
}

void events_flush(void)
{
    pthread_mutex_lock(&g_lock);
    uint64_t target = g_posted;
    while (g_written < target && g_running)
        pthread_cond_wait(&g_done, &g_lock);
    pthread_mutex_unlock(&g_lock);
}

int events_start(void)
{
    g_stop = 0;
    if (pthread_create(&g_thread, NULL, writer_main, NULL) != 0)
        return -1;
    g_running = 1;
    return 0;
}

void events_stop(void)
{
    if (!g_running)
        return;
    pthread_mutex_lock(&g_lock);
    g_stop = 1;
    pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_lock);
    pthread_join(g_thread, NULL);
    pthread_mutex_lock(&g_lock);
    g_running = 0;
    pthread_cond_broadcast(&g_done);
    pthread_mutex_unlock(&g_lock);
}

uint64_t events_dropped(void)
{
    pthread_mutex_lock(&g_lock);
    uint64_t d = g_dropped;
    pthread_mutex_unlock(&g_lock);
    return d;
}
