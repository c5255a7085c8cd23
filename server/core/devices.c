/* devices.c — the devices fdwaved schedules jobs onto: CUDA GPUs (through
 * fdw_gpu_count/fdw_gpu_info) or N virtual CPU devices, which the CPU backend runs as
 * slabs exactly as it would GPUs. Parsed from --devices cpu:N | gpu | gpu:0,1. */
#include "core/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

void app_init(fdwd_app *app)
{
    memset(app, 0, sizeof *app);
    pthread_mutex_init(&app->disk_lock, NULL);
}

static int add_cpu(fdwd_app *app, int n, char *err, size_t errlen)
{
    if (n < 1 || n > APP_MAX_DEVICES) {
        snprintf(err, errlen, "--devices cpu:N: N must be 1..%d", APP_MAX_DEVICES);
        return -1;
    }
    struct sysinfo si;
    uint64_t mem = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit : 0;
    for (int i = 0; i < n; i++) {
        app_device *d = &app->devices[i];
        d->id = i;
        d->is_gpu = 0;
        d->memory_total = mem / (uint64_t)n;
        snprintf(d->name, sizeof d->name, "cpu virtual device %d", i);
    }
    app->ndevices = n;
    app->backend = FDW_BACKEND_CPU;
    return 0;
}

static int add_gpu(fdwd_app *app, int id, char *err, size_t errlen)
{
    fdw_device_info info;
    fdw_error e;
    if (fdw_gpu_info(id, &info, &e) != FDW_OK) {
        snprintf(err, errlen, "--devices: GPU %d: %s", id, e.message);
        return -1;
    }
    if (app->ndevices >= APP_MAX_DEVICES) {
        snprintf(err, errlen, "--devices: at most %d devices", APP_MAX_DEVICES);
        return -1;
    }
    for (int i = 0; i < app->ndevices; i++)
        if (app->devices[i].id == id) {
            snprintf(err, errlen, "--devices: GPU %d listed twice", id);
            return -1;
        }
    app_device *d = &app->devices[app->ndevices++];
    d->id = id;
    d->is_gpu = 1;
    d->memory_total = info.total_bytes;
    snprintf(d->name, sizeof d->name, "%s", info.name);
    return 0;
}

int app_init_devices(fdwd_app *app, char *err, size_t errlen)
{
    const char *spec = app->cfg.devices;
    const char *be = app->cfg.backend;
    app->ndevices = 0;
    if (strncmp(spec, "cpu:", 4) == 0 || strcmp(spec, "cpu") == 0) {
        if (strcmp(be, "cuda") == 0) {
            snprintf(err, errlen, "--backend cuda cannot run on --devices %s", spec);
            return -1;
        }
        char *end;
        long n = spec[3] ? strtol(spec + 4, &end, 10) : 4;
        if (spec[3] && (*end || end == spec + 4)) {
            snprintf(err, errlen, "--devices: expected cpu:N, got \"%s\"", spec);
            return -1;
        }
        return add_cpu(app, (int)n, err, errlen);
    }
    if (strcmp(spec, "gpu") == 0 || strncmp(spec, "gpu:", 4) == 0 || !*spec) {
        if (strcmp(be, "cpu") == 0) {
            if (*spec) {
                snprintf(err, errlen, "--backend cpu cannot run on --devices %s", spec);
                return -1;
            }
            return add_cpu(app, 4, err, errlen);
        }
        int ngpu = fdw_gpu_count();
        if (spec[3] == ':') {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", spec + 4);
            char *save = NULL;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *end;
                long id = strtol(t, &end, 10);
                if (*end || end == t || id < 0) {
                    snprintf(err, errlen, "--devices: bad GPU id \"%s\"", t);
                    return -1;
                }
                if (add_gpu(app, (int)id, err, errlen))
                    return -1;
            }
        } else {
            for (int i = 0; i < ngpu; i++)
                if (add_gpu(app, i, err, errlen))
                    return -1;
        }
        if (app->ndevices == 0) {
            if (*spec || strcmp(be, "cuda") == 0) {
                snprintf(err, errlen, "--devices %s: no CUDA GPU found", *spec ? spec : "gpu");
                return -1;
            }
            return add_cpu(app, 4, err, errlen);
        }
        app->backend = FDW_BACKEND_CUDA;
        return 0;
    }
    snprintf(err, errlen, "--devices: expected cpu:N, gpu or gpu:0,1, got \"%s\"", spec);
    return -1;
}
