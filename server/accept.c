/* accept.c — the group-commit thread for job submissions (see accept.h). Each job gets
 * its own SAVEPOINT inside the shared transaction, so one failing insert does not undo
 * the others; jobs with the same idempotency key in one batch see each other because
 * they share the transaction. */
#include "accept.h"
#include "db.h"
#include "log.h"
#include "scheduler.h"
#include "sse.h"

#include <pthread.h>
#include <stdio.h>

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
    /* Suspend under the lock: the accept thread resumes under it too, so the resume
     * can never come before the suspend. */
    MHD_suspend_connection(a->conn);
    pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

static void commit_batch(accept_req *batch)
{
    int64_t t0 = now_ms();
    int count = 0;
    sqlite3 *c = db();
    int ok = c && db_begin(c, 1) == SQLITE_OK;
    for (accept_req *a = batch; a; a = a->next) {
        a->rc = -1;
        if (!ok)
            continue;
        sqlite3_exec(c, "SAVEPOINT job", NULL, NULL, NULL);
        a->rc = jobs_insert_tx(c, &a->job, &a->id, &a->existed);
        if (a->rc)
            sqlite3_exec(c, "ROLLBACK TO job", NULL, NULL, NULL);
        else {
            identity owner = {.admin = 1};
            snprintf(owner.user, sizeof owner.user, "%s", a->job.owner);
            a->json = jobs_get_ex(a->id, &owner, 0);
            if (!a->json) {
                a->rc = -1;
                sqlite3_exec(c, "ROLLBACK TO job", NULL, NULL, NULL);
            }
        }
        sqlite3_exec(c, "RELEASE job", NULL, NULL, NULL);
    }
    if (ok && db_commit(c) != SQLITE_OK) {
        for (accept_req *a = batch; a; a = a->next) {
            a->rc = -1;
            json_decref(a->json);
            a->json = NULL;
        }
        ok = 0;
    }
    if (!ok)
        log_error("accept: could not store %s job(s)", batch->next ? "several" : "a");
    for (accept_req *a = batch; a; a = a->next)
        count++;
    log_debug("accept: %d job(s) stored in %lld ms", count, (long long)(now_ms() - t0));
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
        int any_new = 0;
        for (accept_req *a = batch; a; a = a->next)
            if (a->rc == 0 && !a->existed) {
                sse_notify(a->id);
                any_new = 1;
            }
        if (any_new)
            sched_kick();
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
