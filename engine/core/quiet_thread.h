/* quiet_thread.h — starting a library thread that blocks every signal (it inherits the mask
 * it is created with), so the signals meant for the caller (SIGINT to cancel, SIGTERM, ...)
 * reach the caller's own threads as before: the run's writer threads (snapshots,
 * checkpoints). Internal to libfdwave. */
#ifndef FDW_QUIET_THREAD_H
#define FDW_QUIET_THREAD_H

#include <pthread.h>

/* pthread_create with every signal blocked in the new thread; its return value. */
int fdw_quiet_thread_start(pthread_t *thread, void *(*main)(void *), void *arg);

#endif
