/* routes_system.c — GET /v1/health (with the data disk's free space), GET /v1/devices,
 * GET /metrics and
 * GET /v1/openapi.yaml (embedded at build time from schema/openapi.yaml). */
#include "core/app.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "core/embedded.h"
#include "store/jobs.h"
#include "http/metrics.h"
#include "http/routes.h"
#include "sched/scheduler.h"

#include <string.h>

enum MHD_Result route_health(request *r)
{
    fdwd_app *app = r->app;
    int64_t counts[5];
    if (jobs_count_by_state(app, counts))
        return reply_error(r, 503, "unavailable", NULL, "the database is not answering");
    /* The data directory's disk: "degraded" below min-free-disk (jobs then wait). */
    disk_status ds;
    const int have_disk = diskguard_status(app, &ds) == 0;
    json_t *disk = have_disk ? json_pack("{s:s, s:I, s:I, s:I, s:I}", "status",
                                         ds.low ? "low" : "ok", "free_bytes",
                                         (json_int_t)ds.free_bytes, "total_bytes",
                                         (json_int_t)ds.total_bytes, "min_free_bytes",
                                         (json_int_t)app->cfg.min_free_disk, "reserve_bytes",
                                         (json_int_t)ds.reserve_bytes)
                             : json_pack("{s:s}", "status", "unknown");
    return reply_json(r, 200,
                      json_pack("{s:s, s:s, s:I, s:I, s:I, s:o}", "status",
                                have_disk && !ds.low ? "ok" : "degraded", "version",
                                FDW_VERSION, "uptime_s",
                                (json_int_t)((now_ms() - app->started_ms) / 1000), "queue",
                                (json_int_t)counts[0], "running", (json_int_t)counts[1], "disk",
                                disk));
}

enum MHD_Result route_devices(request *r)
{
    fdwd_app *app = r->app;
    json_t *arr = json_array();
    for (int i = 0; i < app->ndevices; i++) {
        const app_device *d = &app->devices[i];
        uint64_t total = d->memory_total, free_b = total;
        if (d->is_gpu) {
            fdw_device_info info;
            fdw_error e;
            if (fdw_gpu_info(d->id, &info, &e) == FDW_OK) {
                total = info.total_bytes;
                free_b = info.free_bytes;
            }
        }
        int64_t job = sched_device_job(app, i);
        json_array_append_new(arr, json_pack("{s:i, s:s, s:s, s:I, s:I, s:o}", "id", d->id,
                                             "name", d->name, "kind", d->is_gpu ? "gpu" : "cpu",
                                             "memory_total", (json_int_t)total, "memory_free",
                                             (json_int_t)free_b, "busy_job",
                                             job ? json_integer(job) : json_null()));
    }
    return reply_json(r, 200, json_pack("{s:o}", "devices", arr));
}

enum MHD_Result route_metrics(request *r)
{
    fdwd_app *app = r->app;
    char *text = metrics_text(app);
    if (!text)
        return reply_error(r, 500, "internal", NULL, "cannot build metrics");
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    return reply_response(r, 200, resp);
}

enum MHD_Result route_openapi(request *r)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        fdwd_openapi_yaml_len, (void *)fdwd_openapi_yaml, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(resp, "Content-Type", "application/yaml");
    return reply_response(r, 200, resp);
}
