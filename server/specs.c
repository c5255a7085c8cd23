/* specs.c — the daemon's fdw_spec_parse options (see specs.h): the data-access model of
 * access.h for every file a spec names, the configured caps, this server's devices; and
 * the derived memory need of a new job against those devices, its largest device and the
 * host (admission.h). */
#include "specs.h"
#include "access.h"
#include "admission.h"
#include "app.h"
#include "models.h"

fdw_status specs_parse(const identity *who, const char *body, size_t len, int normalised,
                       fdw_spec **out, fdw_error *err)
{
    fdw_parse_opts o = {0};
    o.base_dir = g_app.models_dir;
    o.allowed_dirs = g_app.allowed_ptrs;
    o.file_access = access_file;
    o.access_rule = access_rule();
    o.resolve_model = models_resolve;
    o.resolve_user = (void *)who;
    o.max_points = g_app.cfg.max_points;
    o.max_sources = g_app.cfg.max_sources;
    o.max_receivers = g_app.cfg.max_receivers;
    o.max_snapshots = g_app.cfg.max_snapshots;
    o.max_shots = g_app.cfg.max_shots;
    o.max_traces = (long long)g_app.cfg.max_traces;
    o.max_record_bytes = g_app.cfg.max_record_bytes;
    int ids[APP_MAX_DEVICES];
    for (int i = 0; i < g_app.ndevices; i++)
        ids[i] = g_app.devices[i].id;
    o.max_devices = g_app.ndevices;
    o.device_ids = ids;
    o.ndevice_ids = g_app.ndevices;
    o.normalised = normalised;
    /* the checks that cost like steps of the run are the runner's (fdwave_runner.c) */
    o.defer_model_checks = 1;
    fdw_status st = fdw_spec_parse(body, len, &o, out, err);
    if (st != FDW_OK || normalised)
        return st;
    /* The memory the run will need, derived from the whole spec, against what the
     * devices it may get hold together (the largest ones, as many as it asks for). */
    const int n = fdw_spec_devices(*out);
    uint64_t mem[APP_MAX_DEVICES], have = 0;
    for (int i = 0; i < g_app.ndevices; i++)
        mem[i] = g_app.devices[i].memory_total;
    for (int k = 0; k < n && k < g_app.ndevices; k++) { /* pick the n largest */
        int best = k;
        for (int i = k + 1; i < g_app.ndevices; i++)
            if (mem[i] > mem[best])
                best = i;
        uint64_t t = mem[k];
        mem[k] = mem[best];
        mem[best] = t;
        have += mem[k];
    }
    const uint64_t need = fdw_spec_device_bytes(*out);
    if (have > 0 && need > have) {
        snprintf(err->field, sizeof err->field, "grid");
        snprintf(err->message, sizeof err->message,
                 "the job needs %.3g GiB of device memory (grid, recordings, ghost planes) but "
                 "%d device(s) of this server hold %.3g GiB: use a smaller grid or more devices",
                 (double)need / (1u << 30), n, (double)have / (1u << 30));
        err->code = FDW_ERR_SPEC;
        fdw_spec_free(*out);
        *out = NULL;
        return FDW_ERR_SPEC;
    }
    /* Its largest device's share and the host memory it will hold (admission.h). */
    if (admission_check(*out, err) != FDW_OK) {
        fdw_spec_free(*out);
        *out = NULL;
        return FDW_ERR_SPEC;
    }
    return FDW_OK;
}
