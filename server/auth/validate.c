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

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;
static validate_req *g_head, *g_tail;
static int g_pending, g_cap, g_stop, g_running, g_nthreads;
static pthread_t g_threads[MAX_THREADS];

int validate_enqueue(validate_req *v)
{
    v->done = 0;
    v->next = NULL;
    v->spec = NULL;
    memset(&v->reads, 0, sizeof v->reads);
    pthread_mutex_lock(&g_lock);
    if (g_stop || !g_running || g_pending >= g_cap) {
        pthread_mutex_unlock(&g_lock);
        return -1;
    }
    if (g_tail)
        g_tail->next = v;
    else
        g_head = v;
    g_tail = v;
    g_pending++;
    MHD_suspend_connection(v->conn);
    pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

int validate_pending(void)
{
    pthread_mutex_lock(&g_lock);
    int n = g_pending;
    pthread_mutex_unlock(&g_lock);
    return n;
}

static void *validate_main(void *arg)
{
    (void)arg;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 5);
    pthread_setname_np(pthread_self(), "validate");
    pthread_mutex_lock(&g_lock);
    for (;;) {
        while (!g_head && !g_stop)
            pthread_cond_wait(&g_wake, &g_lock);
        validate_req *v = g_head;
        if (!v)
            break; /* stopping, and nothing is left */
        g_head = v->next;
        if (!g_head)
            g_tail = NULL;
        pthread_mutex_unlock(&g_lock);
        memset(&v->err, 0, sizeof v->err);
        v->st = specs_parse(&v->who, v->body, v->len, &v->reads, &v->spec, &v->err);
        const int handed = v->then && v->then(v); /* then: v is not ours any more */
        pthread_mutex_lock(&g_lock);
        g_pending--;
        if (!handed) {
            v->done = 1;
            MHD_resume_connection(v->conn); /* v may be freed by its handler from here on */
        }
    }
    pthread_mutex_unlock(&g_lock);
    db_release_thread();
    return NULL;
}

int validate_start(int threads, int queue_cap)
{
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    g_stop = 0;
    g_cap = queue_cap > 0 ? queue_cap : 1;
    g_nthreads = 0;
    g_running = 1;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&g_threads[i], NULL, validate_main, NULL) != 0)
            break;
        g_nthreads++;
    }
    if (g_nthreads == 0) {
        g_running = 0;
        return -1;
    }
    return 0;
}

void validate_stop(void)
{
    if (!g_running)
        return;
    pthread_mutex_lock(&g_lock);
    g_stop = 1;
    pthread_cond_broadcast(&g_wake);
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < g_nthreads; i++)
        pthread_join(g_threads[i], NULL);
    pthread_mutex_lock(&g_lock);
    g_running = 0;
    pthread_mutex_unlock(&g_lock);
}
