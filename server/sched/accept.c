/* accept.c — the group-commit thread for job submissions (see accept.h). Each job gets
 * its own SAVEPOINT inside the shared transaction, so one failing insert does not undo
 * the others; jobs with the same idempotency key in one batch see each other because
 * they share the transaction. After the commit, one call tells the notifier about the
 * new jobs and one tells the scheduler (which stays asleep when none of them can start:
 * sched_submitted), before the connections are resumed. */
#include "sched/accept.h"
#include "core/db.h"
#include "core/log.h"
#include "core/notify.h"
#include "core/service.h"
#include "sched/scheduler.h"
#include "auth/sharing.h"

#include <stdio.h>
#include <stdlib.h>

/* The submissions waiting to be stored and the thread that stores them (app->accept). */
struct acceptor {
    fdwd_app *app;
    fdwd_service svc;          /* the thread; svc.lock guards the list */
    accept_req *head, *tail;
};

int accept_enqueue(fdwd_app *app, accept_req *a)
{
    struct acceptor *q = app->accept;
    a->done = 0;
    a->next = NULL;
    if (!q)
        return -1;
    pthread_mutex_lock(&q->svc.lock);
    if (q->svc.stop || !q->svc.running) { /* shutting down: nobody would resume it */
        pthread_mutex_unlock(&q->svc.lock);
        return -1;
    }
    if (q->tail)
        q->tail->next = a;
    else
        q->head = a;
    q->tail = a;
    service_wake(&q->svc);
    pthread_mutex_unlock(&q->svc.lock);
    return 0;
}

/* Run one of the savepoint statements (kept prepared: this runs three times a job). */
static int savepoint(sqlite3 *c, const char *sql)
{
    return db_run(c, sql, "") == SQLITE_DONE ? 0 : -1;
}

static void commit_batch(fdwd_app *app, accept_req *batch)
{
    int64_t t0 = now_ms();
    int count = 0;
    sqlite3 *c = db(app->db);
    int ok = c && db_begin(c, 1) == SQLITE_OK;
    for (accept_req *a = batch; a; a = a->next) {
        a->rc = -1;
        count++;
        if (!ok || savepoint(c, "SAVEPOINT job"))
            continue;
        a->rc = jobs_insert_tx(c, &a->job, &a->stored);
        if (a->rc)
            savepoint(c, "ROLLBACK TO job");
        savepoint(c, "RELEASE job");
    }
    if (ok && db_commit(c) != SQLITE_OK) {
        for (accept_req *a = batch; a; a = a->next)
            a->rc = -1;
        ok = 0;
    }
    if (!ok)
        log_error("accept: could not store %s job(s)", batch->next ? "several" : "a");
    log_debug("accept: %d job(s) stored in %lld ms", count, (long long)(now_ms() - t0));
}

/* Notify about the new jobs and tell the scheduler, once for the batch. */
static void announce(fdwd_app *app, accept_req *batch)
{
    int64_t ids[64];
    int n = 0, any = 0;
    double top = -1e300;
    for (accept_req *a = batch; a; a = a->next) {
        if (a->rc != 0 || a->stored.existed)
            continue;
        any = 1;
        const double rank = sharing_rank(app, a->job.owner, a->job.priority);
        if (rank > top)
            top = rank;
        ids[n++] = a->stored.id;
        if (n == (int)(sizeof ids / sizeof ids[0])) {
            notify_jobs(&app->notify, ids, n);
            n = 0;
        }
    }
    if (n > 0)
        notify_jobs(&app->notify, ids, n);
    if (any)
        sched_submitted(app, top);
}

static void *accept_main(void *arg)
{
    struct acceptor *q = arg;
    fdwd_app *app = q->app;
    pthread_mutex_lock(&q->svc.lock);
    for (;;) {
        while (!q->head && !q->svc.stop)
            service_wait(&q->svc, 0);
        if (!q->head)
            break;
        accept_req *batch = q->head;
        q->head = q->tail = NULL;
        pthread_mutex_unlock(&q->svc.lock);
        commit_batch(app, batch);
        announce(app, batch);
        pthread_mutex_lock(&q->svc.lock);
        for (accept_req *a = batch, *next; a; a = next) {
            next = a->next; /* a may be freed by its handler once resumed */
            a->done = 1;
            MHD_resume_connection(a->conn);
        }
    }
    pthread_mutex_unlock(&q->svc.lock);
    db_release_thread(app->db);
    return NULL;
}

int accept_start(fdwd_app *app)
{
    struct acceptor *q = calloc(1, sizeof *q);
    if (!q)
        return -1;
    q->app = app;
    service_init(&q->svc);
    app->accept = q;
    return service_start(&q->svc, "accept", 1, accept_main, q);
}

void accept_stop(fdwd_app *app)
{
    if (app->accept)
        service_stop(&app->accept->svc);
}
