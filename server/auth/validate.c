/* validate.c — the validator pool (see validate.h). A validator lowers its own CPU
 * priority (nice 5) once, so a burst of costly specs leaves the HTTP threads, the accept
 * thread and the workers' database work the CPU first. Suspending and resuming happen
 * under the queue lock, as in accept.c, so a resume never comes before its suspend. */
#include "auth/validate.h"
#include "core/db.h"
#include "core/log.h"
#include "core/service.h"
#include "auth/specs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The pool's queue and threads (app->validate). */
struct validator {
    fdwd_app *app;
    fdwd_service svc;          /* the threads; svc.lock guards the queue */
    validate_req *head, *tail;
    int pending, cap;
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
    pthread_mutex_lock(&q->svc.lock);
    if (q->svc.stop || !q->svc.running || q->pending >= q->cap) {
        pthread_mutex_unlock(&q->svc.lock);
        return -1;
    }
    if (q->tail)
        q->tail->next = v;
    else
        q->head = v;
    q->tail = v;
    q->pending++;
    MHD_suspend_connection(v->conn);
    service_wake(&q->svc);
    pthread_mutex_unlock(&q->svc.lock);
    return 0;
}

static void *validate_main(void *arg)
{
    struct validator *q = arg;
    fdwd_app *app = q->app;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 5);
    pthread_mutex_lock(&q->svc.lock);
    for (;;) {
        while (!q->head && !q->svc.stop)
            service_wait(&q->svc, 0);
        validate_req *v = q->head;
        if (!v)
            break; /* stopping, and nothing is left */
        q->head = v->next;
        if (!q->head)
            q->tail = NULL;
        pthread_mutex_unlock(&q->svc.lock);
        memset(&v->err, 0, sizeof v->err);
        v->st = specs_parse(app, &v->who, v->body, v->len, &v->reads, &v->spec, &v->err);
        const int handed = v->then && v->then(v); /* then: v is not ours any more */
        pthread_mutex_lock(&q->svc.lock);
        q->pending--;
        if (!handed) {
            v->done = 1;
            MHD_resume_connection(v->conn); /* v may be freed by its handler from here on */
        }
    }
    pthread_mutex_unlock(&q->svc.lock);
    db_release_thread(app->db);
    return NULL;
}

int validate_start(fdwd_app *app, int threads, int queue_cap)
{
    struct validator *q = calloc(1, sizeof *q);
    if (!q)
        return -1;
    q->app = app;
    service_init(&q->svc);
    q->cap = queue_cap > 0 ? queue_cap : 1;
    app->validate = q;
    return service_start(&q->svc, "validate", threads, validate_main, q);
}

void validate_stop(fdwd_app *app)
{
    if (app->validate)
        service_stop(&app->validate->svc);
}
