/* accounting.c — `fdwave usage [USER] [--since WHEN]` (GET /v1/usage: device-hours, wall
 * time and peak memory of the runs in the window, per user; a user sees their own, an
 * admin anyone's or everyone's) and `fdwave rm ID` (DELETE /v1/jobs/ID: a finished job's
 * outputs are removed and its record kept; a queued or running one is cancelled). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "report.h"

/* Characters a user name or a time may hold in a query (the server checks them again). */
static int query_safe(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("-_.:", *s)))
            return 0;
    return 1;
}

int fdc_cmd_usage(const fdc_client *c, const fdc_args *a)
{
    if (a->npos > 1)
        return fdc_fail_synopsis("usage [USER] [--since WHEN]");
    const char *user = a->npos ? a->pos[0] : NULL;
    if ((user && !query_safe(user)) || (a->since && !query_safe(a->since)))
        return fdc_fail_usage("USER and --since take letters, digits and -_.: only");
    char path[512];
    snprintf(path, sizeof path, "/v1/usage?user=%s&since=%s", user ? user : "",
             a->since ? a->since : "30d");
    if (!user) /* "user=" alone would name no one: leave it out */
        snprintf(path, sizeof path, "/v1/usage?since=%s", a->since ? a->since : "30d");
    fdc_response r;
    int rc = fdc_call(c, "GET", path, NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    if (c->json) {
        fdc_print_json(r.json);
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    char since[48], until[48];
    fdc_fmt_value(since, sizeof since, json_object_get(r.json, "since"));
    fdc_fmt_value(until, sizeof until, json_object_get(r.json, "until"));
    printf("usage from %s to %s\n", since, until);
    printf("%-20s %6s %6s %14s %12s %12s %12s\n", "USER", "JOBS", "RUNS", "DEVICE-HOURS",
           "WALL HOURS", "PEAK HOST", "PEAK DEVICE");
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(r.json, "users"), i, u)
    {
        char name[64], jobs[16], runs[16], host[32], dev[32];
        fdc_fmt_value(name, sizeof name, json_object_get(u, "user"));
        fdc_fmt_value(jobs, sizeof jobs, json_object_get(u, "jobs"));
        fdc_fmt_value(runs, sizeof runs, json_object_get(u, "runs"));
        fdc_fmt_bytes(host, sizeof host,
                      json_number_value(json_object_get(u, "peak_host_bytes")));
        fdc_fmt_bytes(dev, sizeof dev,
                      json_number_value(json_object_get(u, "peak_device_bytes")));
        printf("%-20s %6s %6s %14.4f %12.4f %12s %12s\n", name, jobs, runs,
               json_number_value(json_object_get(u, "device_hours")),
               json_number_value(json_object_get(u, "wall_seconds")) / 3600.0, host, dev);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

int fdc_cmd_rm(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 1)
        return fdc_fail_synopsis("rm ID");
    long id = fdc_parse_job_id(a->pos[0]);
    if (!id)
        return FDC_EXIT_USAGE;
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    fdc_response r;
    int rc = fdc_call(c, "DELETE", path, NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    if (c->json)
        fdc_print_json(r.json);
    else if (r.status == 202)
        printf("job %ld: still running, cancel requested; rm it again once it has ended\n", id);
    else
        printf("job %ld: outputs removed (its record is kept)\n", id);
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}
