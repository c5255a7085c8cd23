/* service.h — the daemon's service threads, started, woken and stopped one way. A service
 * is a lock, a wake condition, a stop flag and its threads; a room embeds one in its state
 * (the lock is that state's lock too), runs its loop under svc.lock, sleeps in
 * service_wait and ends the loop when it sees svc.stop. service_stop sets the flag and
 * wakes every thread under the lock, so no loop sleeps through it, then joins them. */
#ifndef FDWD_SERVICE_H
#define FDWD_SERVICE_H

#include <pthread.h>
#include <stdint.h>

#define SERVICE_MAX_THREADS 64

typedef struct fdwd_service {
    pthread_mutex_t lock;      /* the room's lock: its state lives under it */
    pthread_cond_t wake;       /* the threads sleep on it: work, the clock, or the stop */
    int stop;                  /* set by service_stop (under lock): the loops end */
    int running;               /* threads started and not yet joined (under lock) */
    int nthreads;
    pthread_t threads[SERVICE_MAX_THREADS];
} fdwd_service;

/* The lock and the condition; once, before anything else touches s. */
void service_init(fdwd_service *s);

/* Start n threads (1..SERVICE_MAX_THREADS) named name, each running main(arg). Returns 0
 * when at least one started (running set), or -1, logged, when none did. */
int service_start(fdwd_service *s, const char *name, int n, void *(*main)(void *), void *arg);

/* Start one thread t named name running main(arg), outside any service (a job's own
 * thread, joined by whoever started it). Returns 0, or -1, logged. */
int thread_start(pthread_t *t, const char *name, void *(*main)(void *), void *arg);

/* Sleep on the wake condition until woken, or at most timeout_ms (<= 0: no limit).
 * s->lock held. Returns s->stop. */
int service_wait(fdwd_service *s, int64_t timeout_ms);

/* Wake one sleeping thread (there is work). s->lock held. */
void service_wake(fdwd_service *s);

/* Stop: the flag set and every thread woken (one lock hold), then the threads joined.
 * No-op on a service that never started or has stopped. */
void service_stop(fdwd_service *s);

/* The two halves of service_stop, for a room that does more in the same lock hold:
 * service_signal_stop with s->lock held, then service_join without it. */
void service_signal_stop(fdwd_service *s);
void service_join(fdwd_service *s);

#endif
