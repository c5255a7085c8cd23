/* routes_models.c — PUT /v1/models/{name} and PUT /v1/data/{name} (the body was streamed
 * to disk by http.c through upload_write; here it is checked and committed), GET
 * /v1/models, and the rest of /v1/data: GET (list, one), DELETE. */
#include "http/routes.h"

enum MHD_Result route_model_put_done(request *r)
{
    upload_error e;
    upload *u = r->upload;
    r->upload = NULL;
    json_t *m = upload_finish(u, &e);
    if (!m)
        return reply_error(r, (unsigned)e.status, e.code, e.field, "%s", e.message);
    return reply_json(r, 201, m);
}

enum MHD_Result route_models_list(request *r)
{
    fdwd_app *app = r->app;
    return reply_json(r, 200, models_list(app, &r->who));
}

enum MHD_Result route_data_list(request *r)
{
    return reply_json(r, 200, upload_list(r->app->datasets, &r->who, "data"));
}

enum MHD_Result route_data(request *r)
{
    upload_store *s = r->app->datasets;
    upload_error e;
    json_t *d = NULL;
    if (!strcmp(r->method, "PUT"))
        return route_model_put_done(r);
    if (!strcmp(r->method, "DELETE")) {
        if (upload_delete(s, &r->who, r->name, &e) == 0)
            return reply_json(r, 200, json_pack("{s:s, s:b}", "name", r->name, "deleted", 1));
    } else {
        d = upload_get(s, &r->who, r->name, &e);
    }
    if (!d)
        return reply_error(r, (unsigned)e.status, e.code, e.field, "%s", e.message);
    return reply_json(r, 200, d);
}
