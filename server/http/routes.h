/* routes.h — the handlers behind each API path, one file per group: routes_jobs.c,
 * routes_events.c, routes_outputs.c, routes_models.c, routes_system.c, routes_usage.c,
 * routes_retention.c, static.c. Each
 * gets a request already routed, authenticated and (for POST/PUT) with its body read. */
#ifndef FDWD_ROUTES_H
#define FDWD_ROUTES_H

#include "data/models.h"
#include "http/request.h"
#include "http/reply.h"

#include <string.h>

enum MHD_Result route_jobs_submit(request *r);   /* POST /v1/jobs */
enum MHD_Result route_jobs_list(request *r);     /* GET /v1/jobs */
enum MHD_Result route_job_get(request *r);       /* GET /v1/jobs/{id} */
enum MHD_Result route_job_cancel(request *r);    /* POST .../cancel */
enum MHD_Result route_job_delete(request *r);    /* DELETE /v1/jobs/{id} (routes_retention.c) */
enum MHD_Result route_job_events(request *r);    /* GET .../events */
enum MHD_Result route_job_outputs(request *r);   /* GET .../outputs */
enum MHD_Result route_job_output_file(request *r); /* GET .../outputs/{name} */
enum MHD_Result route_models_list(request *r);   /* GET /v1/models */
enum MHD_Result route_model_put_done(request *r); /* PUT /v1/models|data/{name}, body stored */
enum MHD_Result route_data_list(request *r);     /* GET /v1/data (routes_models.c) */
enum MHD_Result route_data(request *r);          /* GET, PUT, DELETE /v1/data/{name} */
enum MHD_Result route_usage(request *r);         /* GET /v1/usage (routes_usage.c) */
enum MHD_Result route_users_me(request *r);      /* GET /v1/users/me */
enum MHD_Result route_health(request *r);        /* GET /v1/health */
enum MHD_Result route_devices(request *r);       /* GET /v1/devices */
enum MHD_Result route_metrics(request *r);       /* GET /metrics */
enum MHD_Result route_openapi(request *r);       /* GET /v1/openapi.yaml */
enum MHD_Result route_static(request *r);        /* GET / and GET /<file> */

/* Serve an open file descriptor honouring Range: (206, 416). fd is taken over. */
enum MHD_Result serve_fd(request *r, int fd, const char *content_type);

#endif
