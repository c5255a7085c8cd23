/* admission.c — memory admission (see admission.h). */
#include "auth/admission.h"
#include "core/app.h"
#include "auth/auth.h"
#include "auth/sharing.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The host's memory budget and what running jobs hold of it (app->admission). */
struct admission {
    uint64_t budget;
    atomic_ullong reserved;
};

static double gib(uint64_t b)
{
    return (double)b / (double)(1u << 30);
}

int admission_init(fdwd_app *app, char *msg, size_t len)
{
    struct admission *ad = calloc(1, sizeof *ad);
    if (!ad) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    app->admission = ad;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    const uint64_t host = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
    uint64_t keep = host / 10 > (1ull << 30) ? host / 10 : (1ull << 30);
    ad->budget = app->cfg.host_memory ? app->cfg.host_memory : host > keep ? host - keep : host;
    snprintf(msg, len, "jobs may hold %.3g GiB of host memory together (%s; the host has "
             "%.3g GiB)", gib(ad->budget), app->cfg.host_memory ? "host-memory" : "the host's "
             "less 10%, at least 1 GiB", gib(host));
    return 0;
}

uint64_t admission_host_budget(fdwd_app *app)
{
    struct admission *ad = app->admission;
    return ad->budget;
}

uint64_t admission_job_host_bytes(fdwd_app *app, uint64_t estimate)
{
    return estimate + app->cfg.runner_memory_overhead;
}

fdw_status admission_check(fdwd_app *app, const fdw_spec *spec, fdw_error *err)
{
    struct admission *ad = app->admission;
    const uint64_t dev = fdw_spec_device_bytes_max(spec);
    uint64_t largest = 0;
    for (int i = 0; i < app->ndevices; i++)
        if (app->devices[i].memory_total > largest)
            largest = app->devices[i].memory_total;
    fdw_status st = FDW_OK;
    if (largest > 0 && dev > largest && fdw_spec_devices(spec) > 0) {
        st = FDW_ERR_SPEC;
        snprintf(err->message, sizeof err->message,
                 "the job needs %.3g GiB of memory on one of its %d device(s) (its largest "
                 "slab) but the largest device of this server holds %.3g GiB: use a smaller "
                 "grid or more devices",
                 gib(dev), fdw_spec_devices(spec), gib(largest));
    }
    const uint64_t host = admission_job_host_bytes(app, fdw_spec_host_bytes(spec, app->backend));
    if (st == FDW_OK && host > ad->budget) {
        st = FDW_ERR_SPEC;
        snprintf(err->message, sizeof err->message,
                 "the job needs %.3g GiB of host memory (%.3g GiB for its arrays, snapshot "
                 "buffers, recordings and checkpoint image, %.3g GiB for its runner) but jobs "
                 "may hold %.3g GiB on this server: use a smaller grid",
                 gib(host), gib(host - app->cfg.runner_memory_overhead),
                 gib(app->cfg.runner_memory_overhead), gib(ad->budget));
    }
    if (st != FDW_OK) {
        err->code = st;
        snprintf(err->field, sizeof err->field, "grid");
    }
    return st;
}

int admission_fits(fdwd_app *app, uint64_t bytes)
{
    struct admission *ad = app->admission;
    return atomic_load(&ad->reserved) + bytes <= ad->budget;
}

void admission_reserve(fdwd_app *app, uint64_t bytes)
{
    struct admission *ad = app->admission;
    atomic_fetch_add(&ad->reserved, bytes);
}

void admission_release(fdwd_app *app, uint64_t bytes)
{
    struct admission *ad = app->admission;
    atomic_fetch_sub(&ad->reserved, bytes);
}

uint64_t admission_reserved(fdwd_app *app)
{
    struct admission *ad = app->admission;
    return atomic_load(&ad->reserved);
}

/* "2.5 days", "3 hours", "40 minutes", "12 s" */
static void span_text(double s, char *out, size_t len)
{
    if (s >= 86400)
        snprintf(out, len, "%.3g days", s / 86400);
    else if (s >= 3600)
        snprintf(out, len, "%.3g hours", s / 3600);
    else if (s >= 60)
        snprintf(out, len, "%.3g minutes", s / 60);
    else
        snprintf(out, len, "%.3g s", s);
}

int admission_submit(fdwd_app *app, const identity *who, const fdw_spec *spec, admission_new *a)
{
    memset(a, 0, sizeof *a);
    a->host_bytes = fdw_spec_host_bytes(spec, app->backend);
    a->device_bytes = fdw_spec_device_bytes_max(spec);
    const double asked = fdw_spec_wall_time(spec), most = app->cfg.max_wall_time;
    if (most > 0 && asked > most) {
        char x[40], y[40];
        span_text(asked, x, sizeof x);
        span_text(most, y, sizeof y);
        snprintf(a->code, sizeof a->code, "invalid_spec");
        snprintf(a->field, sizeof a->field, "wall_time");
        snprintf(a->message, sizeof a->message,
                 "wall_time asks %s; this server lets a job run %s at most (max-wall-time)", x,
                 y);
        return 400;
    }
    a->wall_time = asked > 0 ? asked : most;
    const int st = sharing_admit(app, who, fdw_spec_devices(spec), a->field, sizeof a->field,
                                 a->message, sizeof a->message);
    if (st)
        snprintf(a->code, sizeof a->code, "%s", st == 503 ? "unavailable" : "quota_exceeded");
    return st;
}
