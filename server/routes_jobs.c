/* routes_jobs.c — POST /v1/jobs (validate with the engine, store durably, idempotency
 * keys), GET /v1/jobs (filter + pagination), GET /v1/jobs/{id} (cached), and cancellation
 * (POST /v1/jobs/{id}/cancel, DELETE /v1/jobs/{id}). */
#include "accept.h"
#include "app.h"
#include "db.h"
#include "jobcache.h"
#include "jobs.h"
#include "log.h"
#include "metrics.h"
#include "routes.h"
#include "scheduler.h"
#include "specs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integer query parameter in [lo, hi]; returns 0 (absent: *out = dflt), -1 if bad. */
static int query_int(request *r, const char *key, long long lo, long long hi, long long dflt,
                     long long *out)
{
    const char *v = http_query(r, key);
    *out = dflt;
    if (!v)
        return 0;
    errno = 0;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* Device ids the spec names ("devices": {"ids": [...]}) as compact JSON text ("[3,1]"),
 * or NULL when it names none. Sets *bad to the first id this server does not have. */
static char *wanted_devices(const fdw_spec *spec, int *bad)
{
    const int n = fdw_spec_device_ids(spec, NULL, 0);
    *bad = -1;
    if (n <= 0)
        return NULL;
    int *ids = malloc((size_t)n * sizeof *ids);
    char *text = malloc((size_t)n * 12 + 3), *w = text;
    if (!ids || !text) {
        free(ids);
        free(text);
        return NULL;
    }
    fdw_spec_device_ids(spec, ids, n);
    *w++ = '[';
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int k = 0; k < g_app.ndevices; k++)
            if (g_app.devices[k].id == ids[i])
                found = 1;
        if (!found && *bad < 0)
            *bad = ids[i];
        w += sprintf(w, i ? ",%d" : "%d", ids[i]);
    }
    *w++ = ']';
    *w = '\0';
    free(ids);
    return text;
}

/* Answer with a job's JSON text (stolen), Location naming the job on 200/201. */
static enum MHD_Result reply_job_text(request *r, unsigned status, int64_t id, char *text)
{
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/jobs/%lld", (long long)id);
    if (!text)
        return MHD_NO;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (status == 201 || status == 200)
        MHD_add_response_header(resp, "Location", loc);
    return reply_response(r, status, resp);
}

/* What POST /v1/jobs keeps while its connection waits for the group commit. */
typedef struct submit_state {
    accept_req a;
    char *name, *kind, *norm_text, *wanted;
    json_t *warnings;
} submit_state;

static void submit_state_free(void *p)
{
    submit_state *ss = p;
    if (!ss)
        return;
    free(ss->name);
    free(ss->kind);
    free(ss->norm_text);
    free(ss->wanted);
    json_decref(ss->warnings);
    free(ss);
}

static enum MHD_Result submit_done(request *r);

enum MHD_Result route_jobs_submit(request *r)
{
    if (r->route_state)
        return submit_done(r);
    long long prio;
    if (query_int(r, "priority", -10, 10, 0, &prio))
        return reply_error(r, 400, "bad_request", "priority",
                           "priority must be an integer from -10 to 10");
    const char *key = http_header(r, "Idempotency-Key");
    if (key) {
        size_t kl = strlen(key);
        int ok = kl >= 1 && kl <= 200;
        for (size_t i = 0; ok && i < kl; i++)
            ok = isprint((unsigned char)key[i]);
        if (!ok)
            return reply_error(r, 400, "bad_request", "Idempotency-Key",
                               "Idempotency-Key must be 1 to 200 printable characters");
    }
    if (!r->body || r->len == 0)
        return reply_error(r, 400, "bad_request", NULL,
                           "empty body: POST the job spec as JSON");
    fdw_spec *spec = NULL;
    fdw_error err = {0};
    fdw_status st = specs_parse(&r->who, r->body, r->len, &spec, &err);
    if (st != FDW_OK) {
        /* Only now tell malformed JSON (bad_request) from a spec the engine refused: the
         * engine parses with the same strictness, so a spec it accepted needs no second
         * parse here. */
        json_error_t jerr;
        json_t *probe = json_loadb(r->body, r->len, JSON_REJECT_DUPLICATES, &jerr);
        if (!probe)
            return reply_error(r, 400, "bad_request", NULL,
                               "malformed JSON at line %d, column %d: %s", jerr.line,
                               jerr.column, jerr.text);
        int is_obj = json_is_object(probe);
        json_decref(probe);
        if (!is_obj)
            return reply_error(r, 400, "invalid_spec", "", "the job spec must be a JSON object");
        if (st == FDW_ERR_SPEC || st == FDW_ERR_IO || st == FDW_ERR_UNSUPPORTED ||
            st == FDW_ERR_NOMEM)
            return reply_error(r, 400, "invalid_spec", err.field, "%s", err.message);
        return reply_error(r, 500, "internal", err.field, "%s", err.message);
    }
    int ndev = fdw_spec_devices(spec);
    if (ndev > g_app.ndevices) {
        fdw_spec_free(spec);
        return reply_error(r, 400, "too_many_devices", "devices",
                           "the job asks for %d devices; this server has %d", ndev,
                           g_app.ndevices);
    }
    /* The normalised spec is stored as text; the name and device ids come from the
     * parsed spec itself. */
    char *norm_text = fdw_spec_to_json(spec);
    char *name = strdup(fdw_spec_name(spec));
    if (!norm_text || !name) {
        free(norm_text);
        free(name);
        fdw_spec_free(spec);
        return reply_error(r, 500, "internal", NULL, "the engine gave no normalised spec");
    }
    int bad;
    char *wanted = wanted_devices(spec, &bad);
    if (bad >= 0) {
        free(wanted);
        free(name);
        free(norm_text);
        fdw_spec_free(spec);
        return reply_error(r, 400, "too_many_devices", "devices.ids",
                           "device %d does not exist on this server (it has %d devices)", bad,
                           g_app.ndevices);
    }
    submit_state *ss = calloc(1, sizeof *ss);
    if (!ss) {
        free(wanted);
        free(name);
        free(norm_text);
        fdw_spec_free(spec);
        return reply_error(r, 500, "internal", NULL, "out of memory");
    }
    ss->warnings = json_array();
    for (int i = 0; i < fdw_spec_warning_count(spec); i++)
        json_array_append_new(ss->warnings, json_string(fdw_spec_warning(spec, i)));
    ss->name = name;
    ss->kind = strdup(fdw_spec_kind(spec));
    ss->norm_text = norm_text;
    ss->wanted = wanted;
    fdw_spec_free(spec);
    ss->a.job = (job_new){.owner = r->who.user,
                          .name = ss->name,
                          .kind = ss->kind,
                          .priority = (int)prio,
                          .devices_requested = ndev,
                          .devices_wanted = ss->wanted,
                          .idempotency_key = key,
                          .spec_body = r->body,
                          .spec_json = ss->norm_text,
                          .warnings = ss->warnings};
    ss->a.conn = r->conn;
    r->route_state = ss;
    r->route_state_free = submit_state_free;
    if (accept_enqueue(&ss->a)) /* suspends; http.c calls us again once it is stored */
        return reply_error(r, 503, "unavailable", NULL, "the server is shutting down");
    return MHD_YES;
}

/* Second half of POST /v1/jobs: the accept thread stored the job (or failed). A new
 * job's answer is written from what was submitted and stored (jobs_new_text); a
 * repeated Idempotency-Key answers with the first job as it is now. */
static enum MHD_Result submit_done(request *r)
{
    submit_state *ss = r->route_state;
    if (ss->a.rc)
        return reply_error(r, 500, "internal", NULL, "could not store the job");
    char *text;
    if (ss->a.stored.existed) {
        identity owner = {.admin = 1};
        snprintf(owner.user, sizeof owner.user, "%s", ss->a.job.owner);
        json_t *job = jobs_get_ex(ss->a.stored.id, &owner, 0);
        text = job ? json_dumps(job, JSON_COMPACT) : NULL;
        json_decref(job);
    } else {
        text = jobs_new_text(&ss->a.job, &ss->a.stored);
        log_debug("job %lld accepted from %s", (long long)ss->a.stored.id, r->who.user);
    }
    if (!text)
        return reply_error(r, 500, "internal", NULL, "could not write the job's answer");
    return reply_job_text(r, ss->a.stored.existed ? 200 : 201, ss->a.stored.id, text);
}

enum MHD_Result route_jobs_list(request *r)
{
    const char *state = http_query(r, "state");
    if (state) {
        int ok = 0;
        for (int i = 0; i < 5; i++)
            ok |= !strcmp(state, jobs_states[i]);
        if (!ok)
            return reply_error(r, 400, "bad_request", "state",
                               "state must be queued, running, succeeded, failed or cancelled");
    }
    long long limit, before;
    if (query_int(r, "limit", 1, 500, 50, &limit))
        return reply_error(r, 400, "bad_request", "limit", "limit must be an integer 1..500");
    if (query_int(r, "before", 1, INT64_MAX, 0, &before))
        return reply_error(r, 400, "bad_request", "before",
                           "before must be a positive job id");
    json_t *list = jobs_list(&r->who, state, (int)limit, before);
    if (!list)
        return reply_error(r, 500, "internal", NULL, "database error");
    return reply_json(r, 200, list);
}

/* GET /v1/jobs/{id}: from the answer cache while nothing was committed since it was
 * rendered (see jobcache.h); otherwise read, render, answer and keep the response. */
enum MHD_Result route_job_get(request *r)
{
    enum MHD_Result ret;
    if (jobcache_reply(r->job_id, &r->who, r->conn, &ret))
        return ret;
    uint64_t gen = db_generation(); /* before reading: see db_generation */
    json_t *job = jobs_get(r->job_id, &r->who);
    if (!job)
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    char owner[128];
    snprintf(owner, sizeof owner, "%s", json_string_value(json_object_get(job, "owner")));
    struct MHD_Response *resp = json_response(job);
    if (!resp)
        return MHD_NO;
    metrics_count_status(200);
    ret = MHD_queue_response(r->conn, 200, resp);
    jobcache_store(r->job_id, owner, gen, resp);
    return ret;
}

enum MHD_Result route_job_cancel(request *r)
{
    json_t *job = NULL;
    int status = jobs_cancel(r->job_id, &r->who, &job);
    switch (status) {
    case 200:
        sched_kick();
        return reply_json(r, 200, job);
    case 202:
        sched_cancel(r->job_id);
        return reply_json(r, 202, job);
    case 404:
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    case 409: {
        const char *state = "finished";
        jobs_visible(r->job_id, &r->who, &state);
        return reply_error(r, 409, "conflict", NULL, "job %lld has already %s",
                           (long long)r->job_id,
                           !strcmp(state, "succeeded") ? "succeeded"
                           : !strcmp(state, "failed")  ? "failed"
                                                       : "been cancelled");
    }
    default:
        json_decref(job);
        return reply_error(r, 500, "internal", NULL, "database error");
    }
}
