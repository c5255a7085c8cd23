/* routes_events.c — GET /v1/jobs/{id}/events: the job's Server-Sent Event stream,
 * resuming after Last-Event-ID (or ?since=ID). The streaming itself is in sse.c. */
#include "store/jobs.h"
#include "http/routes.h"
#include "events/sse.h"

#include <errno.h>
#include <stdlib.h>

enum MHD_Result route_job_events(request *r)
{
    fdwd_app *app = r->app;
    if (!jobs_visible(app, r->job_id, &r->who, NULL))
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    const char *since = http_header(r, "Last-Event-ID");
    const char *field = "Last-Event-ID";
    if (!since || !*since) {
        since = http_query(r, "since");
        field = "since";
    }
    long long after = 0;
    if (since && *since) {
        errno = 0;
        char *end;
        after = strtoll(since, &end, 10);
        if (end == since || *end || errno || after < 0)
            return reply_error(r, 400, "bad_request", field,
                               "%s must be a non-negative event id", field);
    }
    struct MHD_Response *resp = sse_response(app, r->conn, r->job_id, after);
    if (!resp)
        return reply_error(r, 500, "internal", NULL, "cannot open the event stream");
    return reply_response(r, 200, resp);
}
