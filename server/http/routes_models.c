/* routes_models.c — PUT /v1/models/{name} (the body was streamed to disk by http.c
 * through models_upload_write; here it is checked and committed) and GET /v1/models. */
#include "http/routes.h"

enum MHD_Result route_model_put_done(request *r)
{
    model_error e;
    model_upload *u = r->upload;
    r->upload = NULL;
    json_t *m = models_upload_finish(u, &e);
    if (!m)
        return reply_error(r, (unsigned)e.status, e.code, e.field, "%s", e.message);
    return reply_json(r, 201, m);
}

enum MHD_Result route_models_list(request *r)
{
    fdwd_app *app = r->app;
    return reply_json(r, 200, models_list(app, &r->who));
}
