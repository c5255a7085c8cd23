/* specs.c — the daemon's fdw_spec_parse options (see specs.h). */
#include "specs.h"
#include "app.h"
#include "models.h"

fdw_status specs_parse(const identity *who, const char *body, size_t len, fdw_spec **out,
                       fdw_error *err)
{
    fdw_parse_opts o = {0};
    o.base_dir = g_app.models_dir;
    o.allowed_dirs = g_app.allowed_ptrs;
    o.resolve_model = models_resolve;
    o.resolve_user = (void *)who;
    o.max_points = 0;
    o.max_devices = 0; /* checked by the caller against the device list */
    return fdw_spec_parse(body, len, &o, out, err);
}
