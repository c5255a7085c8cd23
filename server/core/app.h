/* app.h — the application context: the one struct main.c fills and passes down, in place
 * of globals. It holds what core/ knows (the settings, the derived paths under --data,
 * the device list, the quotas, the database, the notifier, the disk reserve's lock, the
 * shutdown flag) and a handle to each higher room's state, made by that room's start
 * function and opaque below it (a forward declaration here, never an include). A module
 * takes the context, or the narrower piece it needs. */
#ifndef FDWD_APP_H
#define FDWD_APP_H

#include "core/config.h"
#include "core/db.h"
#include "core/identity.h"
#include "core/notify.h"
#include "core/quota.h"
#include "fdwave/fdwave.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define APP_MAX_DEVICES 64
#define APP_UPLOAD_DIRS 2 /* allowed[0]: models_dir, allowed[1]: datasets_dir */

typedef struct app_device {
    int id;                    /* CUDA ordinal, or virtual index for cpu devices */
    char name[128];
    int is_gpu;
    uint64_t memory_total;
} app_device;

typedef struct fdwd_app {
    fdwd_config cfg;
    char data_dir[CFG_PATH];   /* absolute */
    char db_path[CFG_PATH];
    char models_dir[CFG_PATH];
    char datasets_dir[CFG_PATH]; /* uploaded observed data (data/datasets.c) */
    char jobs_dir[CFG_PATH];
    /* realpaths that job specs may read files from: models_dir, datasets_dir (the first
     * APP_UPLOAD_DIRS: uploads, each its owner's), then each --allow-dir */
    int nallowed;
    char allowed[CFG_MAX_ALLOW_DIRS + 2][CFG_PATH];
    const char *allowed_ptrs[CFG_MAX_ALLOW_DIRS + 3]; /* NULL-terminated, for fdw_parse_opts */
    int ndevices;
    app_device devices[APP_MAX_DEVICES];
    fdw_backend_kind backend;  /* what workers pass to fdw_run */
    int workers;               /* jobs run at once */
    int loopback;              /* listening on a loopback address only */
    int64_t started_ms;
    atomic_int shutting_down;
    quota_table quotas;        /* --user-quota, --default-quota (quota.h) */
    fdwd_db *db;               /* the database (db.h); opened by datadir_open */
    job_notifier notify;       /* who hears "these jobs have new events" (notify.h) */
    pthread_mutex_t disk_lock; /* the disk reserve file (diskguard.c) */

    /* The higher rooms' state, each made by its room's start function (main.c). */
    struct events_log *events;       /* events/events.c */
    struct sse_hub *sse;             /* events/sse.c */
    struct upload_store *models;     /* data/models.c (data/upload_store.c) */
    struct upload_store *datasets;   /* data/datasets.c (data/upload_store.c) */
    struct factcache *facts;         /* data/factcache.c */
    struct sweeper *sweep;           /* data/sweep.c */
    struct sharing *sharing;         /* auth/sharing.c */
    struct admission *admission;     /* auth/admission.c */
    struct validator *validate;      /* auth/validate.c */
    struct acceptor *accept;         /* sched/accept.c */
    struct scheduler *sched;         /* sched/scheduler.c */
    struct memlimit *memlimit;       /* sched/memlimit.c */
    struct http_front *http;         /* http/http.c */
    struct conn_guard *conn;         /* http/conn.c */
    struct jobcache *jobcache;       /* http/jobcache.c */
    struct metrics *metrics;         /* http/metrics.c */
} fdwd_app;

/* The user pointer of the engine's callbacks that check a file for someone (the model
 * resolver, the file access check): the context and who is asking. */
typedef struct app_caller {
    fdwd_app *app;
    const identity *who;
} app_caller;

/* Set up the parts of app that need no settings (locks); once, before anything else. */
void app_init(fdwd_app *app);

/* Work out the device list from cfg->devices and cfg->backend (see --devices).
 * Returns 0, or -1 with a message in err. */
int app_init_devices(fdwd_app *app, char *err, size_t errlen);

#endif
