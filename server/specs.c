/* specs.c — the daemon's fdw_spec_parse options (see specs.h): the data-access model of
 * access.h for every file a spec names, the configured caps, this server's devices. */
#include "specs.h"
#include "access.h"
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
    o.max_record_bytes = g_app.cfg.max_record_bytes;
    int ids[APP_MAX_DEVICES];
    for (int i = 0; i < g_app.ndevices; i++)
        ids[i] = g_app.devices[i].id;
    o.max_devices = g_app.ndevices;
    o.device_ids = ids;
    o.ndevice_ids = g_app.ndevices;
    o.normalised = normalised;
    return fdw_spec_parse(body, len, &o, out, err);
}
