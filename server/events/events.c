/* events.c — event storage (see events.h). The writer thread takes everything queued,
 * commits it in one transaction (synchronous=NORMAL: losing the last progress events
 * in a power cut is harmless, the state events that matter are written by jobs.c with
 * FULL sync), then tells the notifier (notify.h) which jobs have new events. */
#include "events/events.h"
#include "core/app.h"
#include "core/db.h"
#include "core/log.h"
#include "core/notify.h"
#include "core/service.h"
#include "events/outputs.h"

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

/* The event log's queue and its writer thread (app->events). */
struct events_log {
    fdwd_app *app;
    fdwd_service svc;          /* the writer; svc.lock guards the queue */
    pthread_cond_t done;       /* flushers: progress made */
    ev *head, *tail;
    int len;
    uint64_t posted, written, dropped;
};

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
    if (db_bind(st, "itti", job_id, type, text, now_ms())) {
        if (sqlite3_step(st) == SQLITE_DONE)
            id = sqlite3_last_insert_rowid(c);
        else
            log_error("events: insert failed: %s", sqlite3_errmsg(c));
        db_stmt_done(st);
    }
    return id;
}

void events_post(fdwd_app *app, int64_t job_id, const char *type, json_t *data, int droppable)
{
    struct events_log *s = app->events;
    pthread_mutex_lock(&s->svc.lock);
    if (droppable && s->len >= QUEUE_CAP) {
        s->dropped++;
        pthread_mutex_unlock(&s->svc.lock);
        json_decref(data);
        return;
    }
    ev *e = calloc(1, sizeof *e);
    if (!e) {
        pthread_mutex_unlock(&s->svc.lock);
        json_decref(data);
        return;
    }
    e->job_id = job_id;
    snprintf(e->type, sizeof e->type, "%s", type);
    e->data = data;
    if (s->tail)
        s->tail->next = e;
    else
        s->head = e;
    s->tail = e;
    s->len++;
    s->posted++;
    service_wake(&s->svc);
    pthread_mutex_unlock(&s->svc.lock);
}

/* Side effects of one event beyond the events row. */
static void side_effects(sqlite3 *c, const ev *e)
{
    if (strcmp(e->type, "progress") == 0) {
        sqlite3_stmt *st = db_stmt(c, "UPDATE jobs SET progress = ?1 WHERE id = ?2");
        char *text = st ? json_dumps(e->data, JSON_COMPACT) : NULL;
        if (text && db_bind(st, "ti", text, e->job_id))
            sqlite3_step(st);
        db_stmt_done(st);
        free(text);
    } else if (strcmp(e->type, "snapshot") == 0) {
        outputs_record_tx(c, e->job_id, json_object_get(e->data, "files"));
    }
}

static void *writer_main(void *arg)
{
    struct events_log *s = arg;
    fdwd_app *app = s->app;
    pthread_mutex_lock(&s->svc.lock);
    for (;;) {
        while (!s->head && !s->svc.stop)
            service_wait(&s->svc, 0);
        if (!s->head)
            break;
        ev *batch = s->head;
        s->head = s->tail = NULL;
        int n = s->len;
        s->len = 0;
        pthread_mutex_unlock(&s->svc.lock);

        sqlite3 *c = db(app->db);
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
                notify_job(&app->notify, e->job_id);
        }
        while (batch) {
            ev *next = batch->next;
            json_decref(batch->data);
            free(batch);
            batch = next;
        }
        pthread_mutex_lock(&s->svc.lock);
        s->written += (uint64_t)n;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->svc.lock);
    db_release_thread(app->db);
    return NULL;
}

void events_flush(fdwd_app *app)
{
    struct events_log *s = app->events;
    pthread_mutex_lock(&s->svc.lock);
    uint64_t target = s->posted;
    while (s->written < target && s->svc.running)
        pthread_cond_wait(&s->done, &s->svc.lock);
    pthread_mutex_unlock(&s->svc.lock);
}

int events_start(fdwd_app *app)
{
    struct events_log *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->app = app;
    service_init(&s->svc);
    pthread_cond_init(&s->done, NULL);
    app->events = s;
    return service_start(&s->svc, "events", 1, writer_main, s);
}

/* The writer stores what is queued and ends; flushers still waiting are let go. */
void events_stop(fdwd_app *app)
{
    struct events_log *s = app->events;
    if (!s)
        return;
    service_stop(&s->svc);
    pthread_mutex_lock(&s->svc.lock);
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&s->svc.lock);
}

uint64_t events_dropped(fdwd_app *app)
{
    struct events_log *s = app->events;
    if (!s)
        return 0;
    pthread_mutex_lock(&s->svc.lock);
    uint64_t d = s->dropped;
    pthread_mutex_unlock(&s->svc.lock);
    return d;
}
