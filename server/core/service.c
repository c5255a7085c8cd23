/* service.c — service threads (see service.h). */
#include "core/service.h"
#include "core/log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void service_init(fdwd_service *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
}

int thread_start(pthread_t *t, const char *name, void *(*main)(void *), void *arg)
{
    const int rc = pthread_create(t, NULL, main, arg);
    if (rc != 0) {
        log_error("cannot start a %s thread: %s", name, strerror(rc));
        return -1;
    }
    char short_name[16]; /* the kernel keeps 15 characters */
    snprintf(short_name, sizeof short_name, "%s", name);
    pthread_setname_np(*t, short_name);
    return 0;
}

int service_start(fdwd_service *s, const char *name, int n, void *(*main)(void *), void *arg)
{
    if (n < 1)
        n = 1;
    if (n > SERVICE_MAX_THREADS)
        n = SERVICE_MAX_THREADS;
    pthread_mutex_lock(&s->lock);
    s->running = 1; /* before the threads: they may look */
    pthread_mutex_unlock(&s->lock);
    int started = 0;
    while (started < n && thread_start(&s->threads[started], name, main, arg) == 0)
        started++;
    pthread_mutex_lock(&s->lock);
    s->nthreads = started;
    s->running = started > 0;
    pthread_mutex_unlock(&s->lock);
    return started > 0 ? 0 : -1;
}

int service_wait(fdwd_service *s, int64_t timeout_ms)
{
    if (timeout_ms <= 0) {
        pthread_cond_wait(&s->wake, &s->lock);
        return s->stop;
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += (time_t)(timeout_ms / 1000);
    t.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->wake, &s->lock, &t);
    return s->stop;
}

void service_wake(fdwd_service *s)
{
    pthread_cond_signal(&s->wake);
}

void service_signal_stop(fdwd_service *s)
{
    s->stop = 1;
    pthread_cond_broadcast(&s->wake);
}

void service_join(fdwd_service *s)
{
    pthread_mutex_lock(&s->lock);
    const int n = s->running ? s->nthreads : 0;
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < n; i++)
        pthread_join(s->threads[i], NULL);
    pthread_mutex_lock(&s->lock);
    s->running = 0;
    s->nthreads = 0;
    pthread_mutex_unlock(&s->lock);
}

void service_stop(fdwd_service *s)
{
    pthread_mutex_lock(&s->lock);
    service_signal_stop(s);
    pthread_mutex_unlock(&s->lock);
    service_join(s);
}
