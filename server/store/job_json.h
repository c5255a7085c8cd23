/* job_json.h — the API's JSON object of a job, rendered in one place: GET /v1/jobs/{id},
 * each entry of GET /v1/jobs, the POST /v1/jobs answer and the cancel answer all come
 * from job_json_of, so they cannot drift apart. */
#ifndef FDWD_JOB_JSON_H
#define FDWD_JOB_JSON_H

#include "core/app.h"
#include "core/identity.h"
#include "store/jobs.h"

#include <jansson.h>

/* The job object (see schema/openapi.yaml, Job); with_spec 0 leaves out "spec" (the
 * POST /v1/jobs answer). NULL when out of memory. */
json_t *job_json_of(fdwd_app *app, const job_record *job, int with_spec);

/* The job as it is stored now, or NULL when it does not exist, who may not see it or the
 * database failed. */
json_t *job_json_get(fdwd_app *app, int64_t id, const identity *who, int with_spec);

/* A page of GET /v1/jobs: {"jobs": [...], "next": the next page's path, with the same
 * filters, or null}; state and name (jobs_page's filters) may be NULL. NULL on a database
 * error. */
json_t *job_json_page(fdwd_app *app, const identity *who, const char *state, const char *name,
                      int limit, int64_t before);

#endif
