/* sweep.c — the housekeeping thread (see sweep.h). */
#include "data/sweep.h"
#include "core/app.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "core/service.h"
#include "data/models.h"
#include "store/retention.h"

#include <stdint.h>
#include <stdlib.h>

/* The housekeeping thread (app->sweep). */
struct sweeper {
    fdwd_app *app;
    fdwd_service svc;
    int interval;
};

static void *sweep_main(void *arg)
{
    struct sweeper *sw = arg;
    fdwd_app *app = sw->app;
    const int tick = sw->interval < 60 ? sw->interval : 60;
    int since_uploads = 0;
    pthread_mutex_lock(&sw->svc.lock);
    while (!sw->svc.stop && !service_wait(&sw->svc, (int64_t)tick * 1000)) {
        pthread_mutex_unlock(&sw->svc.lock);
        since_uploads += tick;
        if (since_uploads >= sw->interval) {
            upload_sweep_partial(app->models, (int64_t)sw->interval * 1000);
            upload_sweep_partial(app->datasets, (int64_t)sw->interval * 1000);
            since_uploads = 0;
        }
        retention_sweep(app, app->cfg.retention);
        diskguard_maintain(app);
        pthread_mutex_lock(&sw->svc.lock);
    }
    pthread_mutex_unlock(&sw->svc.lock);
    db_release_thread(app->db);
    return NULL;
}

int sweep_start(fdwd_app *app, int interval_s)
{
    struct sweeper *sw = calloc(1, sizeof *sw);
    if (!sw)
        return -1;
    sw->app = app;
    service_init(&sw->svc);
    sw->interval = interval_s > 0 ? interval_s : 600;
    app->sweep = sw;
    return service_start(&sw->svc, "sweep", 1, sweep_main, sw);
}

void sweep_stop(fdwd_app *app)
{
    if (app->sweep)
        service_stop(&app->sweep->svc);
}
