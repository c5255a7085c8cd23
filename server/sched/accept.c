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
#include "sched/scheduler.h"
#include "auth/sharing.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The submissions waiting to be stored and the thread that stores them (app->accept). */
struct acceptor {
    fdwd_app *app;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    accept_req *head, *tail;
    int stop, running;
    pthread_t thread;
};

int accept_enqueue(fdwd_app *app, accept_req *a)
{
    struct acceptor *q = app->accept;
    a->done = 0;
    a->next = NULL;
    if (!q)
        return -1;
    pthread_mutex_lock(&q->lock);
    if (q->stop || !q->running) { /* shutting down: nobody would resume the connection */
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    if (q->tail)
        q->tail->next = a;
    else
        q->head = a;
    q->tail = a;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

/* Run one of the savepoint statements (kept prepared: this runs three times a job). */
static int savepoint(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st = db_stmt(c, sql);
    int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
    db_stmt_done(st);
    return rc == SQLITE_DONE ? 0 : -1;
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
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->head && !q->stop)
            pthread_cond_wait(&q->wake, &q->lock);
        if (!q->head)
            break;
        accept_req *batch = q->head;
        q->head = q->tail = NULL;
        pthread_mutex_unlock(&q->lock);
        commit_batch(app, batch);
        announce(app, batch);
        pthread_mutex_lock(&q->lock);
        for (accept_req *a = batch, *next; a; a = next) {
            next = a->next; /* a may be freed by its handler once resumed */
            a->done = 1;
            MHD_resume_connection(a->conn);
        }
    }
    pthread_mutex_unlock(&q->lock);
    db_release_thread(app->db);
    return NULL;
}

int accept_start(fdwd_app *app)
{
    struct acceptor *q = calloc(1, sizeof *q);
    if (!q)
        return -1;
    q->app = app;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    app->accept = q;
    q->running = 1;
    if (pthread_create(&q->thread, NULL, accept_main, q) != 0) {
        q->running = 0;
        return -1;
    }
    return 0;
}

void accept_stop(fdwd_app *app)
{
    struct acceptor *q = app->accept;
    if (!q || !q->running)
        return;
    pthread_mutex_lock(&q->lock);
    q->stop = 1;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    pthread_mutex_lock(&q->lock);
    q->running = 0;
    pthread_mutex_unlock(&q->lock);
}
