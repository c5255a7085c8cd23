/* app.h — the daemon-wide state every module reads: the settings, the derived paths
 * under --data, the device list, whether auth is on, and the shutdown flag. Filled once
 * by main.c before any thread starts; only shutting_down changes afterwards. */
#ifndef FDWD_APP_H
#define FDWD_APP_H

#include "core/config.h"
#include "fdwave/fdwave.h"

#include <stdatomic.h>
#include <stdint.h>

#define APP_MAX_DEVICES 64

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
    char jobs_dir[CFG_PATH];
    /* realpaths that job specs may read files from: models_dir, then each --allow-dir */
    int nallowed;
    char allowed[CFG_MAX_ALLOW_DIRS + 1][CFG_PATH];
    const char *allowed_ptrs[CFG_MAX_ALLOW_DIRS + 2]; /* NULL-terminated, for fdw_parse_opts */
    int ndevices;
    app_device devices[APP_MAX_DEVICES];
    fdw_backend_kind backend;  /* what workers pass to fdw_run */
    int workers;               /* jobs run at once */
    int loopback;              /* listening on a loopback address only */
    int64_t started_ms;
    atomic_int shutting_down;
} fdwd_app;

extern fdwd_app g_app;

/* Work out the device list from cfg->devices and cfg->backend (see --devices).
 * Returns 0, or -1 with a message in err. */
int app_init_devices(fdwd_app *app, char *err, size_t errlen);

#endif
