/* sweep.c — the housekeeping thread (see sweep.h). */
#include "data/sweep.h"
#include "core/app.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "data/models.h"
#include "store/retention.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The housekeeping thread (app->sweep). */
struct sweeper {
    fdwd_app *app;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t thread;
    int on, stop, interval;
};

static void *sweep_main(void *arg)
{
    struct sweeper *sw = arg;
    fdwd_app *app = sw->app;
    const int tick = sw->interval < 60 ? sw->interval : 60;
    int since_uploads = 0;
    pthread_mutex_lock(&sw->lock);
    while (!sw->stop) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += tick;
        pthread_cond_timedwait(&sw->cv, &sw->lock, &t);
        if (sw->stop)
            break;
        pthread_mutex_unlock(&sw->lock);
        since_uploads += tick;
        if (since_uploads >= sw->interval) {
            models_sweep_partial(app, (int64_t)sw->interval * 1000);
            since_uploads = 0;
        }
        retention_sweep(app, app->cfg.retention);
        diskguard_maintain(app);
        pthread_mutex_lock(&sw->lock);
    }
    pthread_mutex_unlock(&sw->lock);
    db_release_thread(app->db);
    return NULL;
}

int sweep_start(fdwd_app *app, int interval_s)
{
    struct sweeper *sw = calloc(1, sizeof *sw);
    if (!sw)
        return -1;
    sw->app = app;
    pthread_mutex_init(&sw->lock, NULL);
    pthread_cond_init(&sw->cv, NULL);
    sw->interval = interval_s > 0 ? interval_s : 600;
    app->sweep = sw;
    if (pthread_create(&sw->thread, NULL, sweep_main, sw) != 0)
        return -1;
    sw->on = 1;
    return 0;
}

void sweep_stop(fdwd_app *app)
{
    struct sweeper *sw = app->sweep;
    if (!sw || !sw->on)
        return;
    pthread_mutex_lock(&sw->lock);
    sw->stop = 1;
    pthread_cond_signal(&sw->cv);
    pthread_mutex_unlock(&sw->lock);
    pthread_join(sw->thread, NULL);
    sw->on = 0;
}
