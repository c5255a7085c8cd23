/* specs.c — the daemon's fdw_spec_parse options (see specs.h). */
#include "specs.h"
#include "app.h"
#include "models.h"

/* The count the engine checks "devices" against: this server's device count when its
 * devices are 0 .. n-1 (cpu:N, all GPUs), which is what the engine's check assumes.
 * A server on some of the GPUs (--devices gpu:2,3) has other ids: then 0, no check at
 * parse, and the scheduler fails a job that asks for devices it lacks, with the reason. */
static int engine_device_limit(void)
{
    for (int i = 0; i < g_app.ndevices; i++)
        if (g_app.devices[i].id != i)
            return 0;
    return g_app.ndevices;
}

fdw_status specs_parse(const identity *who, const char *body, size_t len, int normalised,
                       fdw_spec **out, fdw_error *err)
{
    fdw_parse_opts o = {0};
    o.base_dir = g_app.models_dir;
    o.allowed_dirs = g_app.allowed_ptrs;
    o.resolve_model = models_resolve;
    o.resolve_user = (void *)who;
    o.max_points = 0;
    o.max_devices = engine_device_limit();
    o.normalised = normalised;
    return fdw_spec_parse(body, len, &o, out, err);
}
