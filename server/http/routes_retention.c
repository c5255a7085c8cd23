/* routes_retention.c — DELETE /v1/jobs/{id}: a finished job's outputs are removed and its
 * record kept (retention.h), by its owner or an admin; a job still queued or running is
 * cancelled instead (as POST .../cancel), and a later DELETE removes its outputs. */
#include "store/job_json.h"
#include "store/retention.h"
#include "http/routes.h"

#include <string.h>

enum MHD_Result route_job_delete(request *r)
{
    fdwd_app *app = r->app;
    const char *state = NULL;
    const int status = retention_remove(app, r->job_id, &r->who, &state);
    switch (status) {
    case 200: {
        json_t *job = job_json_get(app, r->job_id, &r->who, 1);
        if (job)
            return reply_json(r, 200, job);
        return reply_error(r, 500, "internal", NULL, "database error");
    }
    case 404:
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    case 409:
        return route_job_cancel(r);
    default:
        return reply_error(r, 500, "internal", NULL, "could not remove job %lld's outputs",
                           (long long)r->job_id);
    }
}
