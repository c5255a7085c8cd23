/* sweep.c — the housekeeping thread (see sweep.h). */
#include "data/sweep.h"
#include "core/app.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "data/models.h"
#include "store/retention.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static pthread_t g_thread;
static int g_on, g_stop, g_interval;

static void *sweep_main(void *arg)
{
    (void)arg;
    const int tick = g_interval < 60 ? g_interval : 60;
    int since_uploads = 0;
    pthread_mutex_lock(&g_lock);
    while (!g_stop) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += tick;
        pthread_cond_timedwait(&g_cv, &g_lock, &t);
        if (g_stop)
            break;
        pthread_mutex_unlock(&g_lock);
        since_uploads += tick;
        if (since_uploads >= g_interval) {
            models_sweep_partial((int64_t)g_interval * 1000);
            since_uploads = 0;
        }
        retention_sweep(g_app.cfg.retention);
        diskguard_maintain();
        pthread_mutex_lock(&g_lock);
    }
    pthread_mutex_unlock(&g_lock);
    db_release_thread();
    return NULL;
}

int sweep_start(int interval_s)
{
    g_interval = interval_s > 0 ? interval_s : 600;
    g_stop = 0;
    if (pthread_create(&g_thread, NULL, sweep_main, NULL) != 0)
        return -1;
    g_on = 1;
    return 0;
}

void sweep_stop(void)
{
    if (!g_on)
        return;
    pthread_mutex_lock(&g_lock);
    g_stop = 1;
    pthread_cond_signal(&g_cv);
    pthread_mutex_unlock(&g_lock);
    pthread_join(g_thread, NULL);
    g_on = 0;
}
