/* validate.c — the validator pool (see validate.h). A validator lowers its own CPU
 * priority (nice 5) once, so a burst of costly specs leaves the HTTP threads, the accept
 * thread and the workers' database work the CPU first. Suspending and resuming happen
 * under the queue lock, as in accept.c, so a resume never comes before its suspend. */
#include "auth/validate.h"
#include "core/db.h"
#include "core/log.h"
#include "auth/specs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 64

/* The pool's queue and threads (app->validate). */
struct validator {
    fdwd_app *app;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    validate_req *head, *tail;
    int pending, cap, stop, running, nthreads;
    pthread_t threads[MAX_THREADS];
};

int validate_enqueue(fdwd_app *app, validate_req *v)
{
    struct validator *q = app->validate;
    v->app = app;
    v->done = 0;
    v->next = NULL;
    v->spec = NULL;
    memset(&v->reads, 0, sizeof v->reads);
    if (!q)
        return -1;
    pthread_mutex_lock(&q->lock);
    if (q->stop || !q->running || q->pending >= q->cap) {
        pthread_mutex_unlock(&q->lock);
        return -1;
    }
    if (q->tail)
        q->tail->next = v;
    else
        q->head = v;
    q->tail = v;
    q->pending++;
    MHD_suspend_connection(v->conn);
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    return 0;
}

static void *validate_main(void *arg)
{
    struct validator *q = arg;
    fdwd_app *app = q->app;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 5);
    pthread_setname_np(pthread_self(), "validate");
    pthread_mutex_lock(&q->lock);
    for (;;) {
        while (!q->head && !q->stop)
            pthread_cond_wait(&q->wake, &q->lock);
        validate_req *v = q->head;
        if (!v)
            break; /* stopping, and nothing is left */
        q->head = v->next;
        if (!q->head)
            q->tail = NULL;
        pthread_mutex_unlock(&q->lock);
        memset(&v->err, 0, sizeof v->err);
        v->st = specs_parse(app, &v->who, v->body, v->len, &v->reads, &v->spec, &v->err);
        const int handed = v->then && v->then(v); /* then: v is not ours any more */
        pthread_mutex_lock(&q->lock);
        q->pending--;
        if (!handed) {
            v->done = 1;
            MHD_resume_connection(v->conn); /* v may be freed by its handler from here on */
        }
    }
    pthread_mutex_unlock(&q->lock);
    db_release_thread(app->db);
    return NULL;
}

int validate_start(fdwd_app *app, int threads, int queue_cap)
{
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    struct validator *q = calloc(1, sizeof *q);
    if (!q)
        return -1;
    q->app = app;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    app->validate = q;
    q->cap = queue_cap > 0 ? queue_cap : 1;
    q->nthreads = 0;
    q->running = 1;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&q->threads[i], NULL, validate_main, q) != 0)
            break;
        q->nthreads++;
    }
    if (q->nthreads == 0) {
        q->running = 0;
        return -1;
    }
    return 0;
}

void validate_stop(fdwd_app *app)
{
    struct validator *q = app->validate;
    if (!q || !q->running)
        return;
    pthread_mutex_lock(&q->lock);
    q->stop = 1;
    pthread_cond_broadcast(&q->wake);
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < q->nthreads; i++)
        pthread_join(q->threads[i], NULL);
    pthread_mutex_lock(&q->lock);
    q->running = 0;
    pthread_mutex_unlock(&q->lock);
}
