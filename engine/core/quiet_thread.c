/* quiet_thread.c — a thread started with every signal blocked (see quiet_thread.h). */
#include "core/quiet_thread.h"

#include <signal.h>

int fdw_quiet_thread_start(pthread_t *thread, void *(*main)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int rc = pthread_create(thread, NULL, main, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
