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

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;
static accept_req *g_head, *g_tail;
static int g_stop, g_running;
static pthread_t g_thread;

int accept_enqueue(accept_req *a)
{
    a->done = 0;
    a->next = NULL;
    pthread_mutex_lock(&g_lock);
    if (g_stop || !g_running) { /* shutting down: nobody would resume the connection */
        pthread_mutex_unlock(&g_lock);
        return -1;
    }
    if (g_tail)
        g_tail->next = a;
    else
        g_head = a;
    g_tail = a;
    pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_lock);
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

static void commit_batch(accept_req *batch)
{
    int64_t t0 = now_ms();
    int count = 0;
    sqlite3 *c = db();
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
static void announce(accept_req *batch)
{
    int64_t ids[64];
    int n = 0, any = 0;
    double top = -1e300;
    for (accept_req *a = batch; a; a = a->next) {
        if (a->rc != 0 || a->stored.existed)
            continue;
        any = 1;
        const double rank = sharing_rank(a->job.owner, a->job.priority);
        if (rank > top)
            top = rank;
        ids[n++] = a->stored.id;
        if (n == (int)(sizeof ids / sizeof ids[0])) {
            notify_jobs(ids, n);
            n = 0;
        }
    }
    if (n > 0)
        notify_jobs(ids, n);
    if (any)
        sched_submitted(top);
}

static void *accept_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    for (;;) {
        while (!g_head && !g_stop)
            pthread_cond_wait(&g_wake, &g_lock);
        if (!g_head)
            break;
        accept_req *batch = g_head;
        g_head = g_tail = NULL;
        pthread_mutex_unlock(&g_lock);
        commit_batch(batch);
        announce(batch);
        pthread_mutex_lock(&g_lock);
        for (accept_req *a = batch, *next; a; a = next) {
            next = a->next; /* a may be freed by its handler once resumed */
            a->done = 1;
            MHD_resume_connection(a->conn);
        }
    }
    pthread_mutex_unlock(&g_lock);
    db_release_thread();
    return NULL;
}

int accept_start(void)
{
    g_stop = 0;
    g_running = 1;
    if (pthread_create(&g_thread, NULL, accept_main, NULL) != 0) {
        g_running = 0;
        return -1;
    }
    return 0;
}

void accept_stop(void)
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
    pthread_mutex_unlock(&g_lock);
}
