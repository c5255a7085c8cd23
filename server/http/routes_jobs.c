/* routes_jobs.c — POST /v1/jobs (validate with the engine, store durably, idempotency
 * keys bound to their spec: idempotency.h), GET /v1/jobs (filter + pagination), GET /v1/jobs/{id} (cached), and cancellation
 * (POST /v1/jobs/{id}/cancel, DELETE /v1/jobs/{id}). */
#include "sched/accept.h"
#include "auth/admission.h"
#include "core/app.h"
#include "core/db.h"
#include "store/idempotency.h"
#include "http/jobcache.h"
#include "store/job_json.h"
#include "store/jobs.h"
#include "core/log.h"
#include "http/metrics.h"
#include "http/routes.h"
#include "sched/scheduler.h"
#include "auth/validate.h"

#include <ctype.h>
#include <stddef.h>
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
 * or NULL when it names none (or out of memory). The engine checked them against this
 * server's devices (specs_parse). */
static char *wanted_devices(const fdw_spec *spec)
{
    const int n = fdw_spec_device_ids(spec, NULL, 0);
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
    for (int i = 0; i < n; i++)
        w += sprintf(w, i ? ",%d" : "%d", ids[i]);
    *w++ = ']';
    *w = '\0';
    free(ids);
    return text;
}

/* The spec's warnings as a compact JSON list, or NULL (out of memory). */
static char *warnings_text(const fdw_spec *spec)
{
    json_t *list = json_array();
    for (int i = 0; i < fdw_spec_warning_count(spec); i++)
        json_array_append_new(list, json_string(fdw_spec_warning(spec, i)));
    char *text = list ? json_dumps(list, JSON_COMPACT) : NULL;
    json_decref(list);
    return text;
}

/* What POST /v1/jobs keeps while its connection waits for its spec to be checked
 * (validate.h) and then for the group commit (accept.h). */
typedef struct submit_state {
    validate_req v;
    int stored;                /* 0: waiting for the validator, 1: for the commit */
    long long prio;
    const char *key;           /* its Idempotency-Key, or NULL */
    accept_req a;
    admission_new adm;         /* what admission found */
    int refused;               /* why prepare_job did not hand the job on: an HTTP status */
    const char *refused_field; /* adm.field, or NULL when no field is at fault */
    char *name, *kind, *norm_text, *wanted, *warnings, *files;
    char hash[DIGEST_HEX_LEN + 1]; /* the body's fingerprint, with an Idempotency-Key */
} submit_state;

static void submit_state_free(void *p)
{
    submit_state *ss = p;
    if (!ss)
        return;
    fdw_spec_free(ss->v.spec);
    specs_reads_free(&ss->v.reads);
    free(ss->name);
    free(ss->kind);
    free(ss->norm_text);
    free(ss->wanted);
    free(ss->warnings);
    free(ss->files);
    free(ss);
}

static enum MHD_Result submit_done(request *r);
static enum MHD_Result submit_checked(request *r);
static int prepare_job(validate_req *v);

/* The answer to a submission whose Idempotency-Key the owner used before: 200 with that
 * job as it is now (a retry), or 422 when the key came with another spec (the IETF
 * idempotency-key draft: a key is bound to its first request). */
static enum MHD_Result answer_used_key(request *r, const char *owner, const char *key,
                                       int64_t id, int same)
{
    fdwd_app *app = r->app;
    if (!same)
        return reply_error(r, 422, "idempotency_key_reused", "Idempotency-Key",
                           "Idempotency-Key \"%s\" was already used for job %lld with a "
                           "different spec; a new job needs a new key (the same spec again "
                           "answers job %lld)",
                           key, (long long)id, (long long)id);
    identity as_owner = {.admin = 1};
    snprintf(as_owner.user, sizeof as_owner.user, "%s", owner);
    json_t *job = job_json_get(app, id, &as_owner, 0);
    if (!job)
        return reply_error(r, 500, "internal", NULL, "could not write the job's answer");
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/jobs/%lld", (long long)id);
    return reply_json_at(r, 200, job, loc);
}

enum MHD_Result route_jobs_submit(request *r)
{
    fdwd_app *app = r->app;
    if (r->route_state)
        return ((submit_state *)r->route_state)->stored ? submit_done(r) : submit_checked(r);
    long long prio;
    if (query_int(r, "priority", -10, 10, 0, &prio))
        return reply_error(r, 400, "bad_request", "priority",
                           "priority must be an integer from -10 to 10");
    if (prio > 0 && !r->who.admin)
        return reply_error(r, 403, "forbidden", "priority",
                           "priority %lld is above the default 0: only an admin may give it "
                           "(lower priorities are anyone's)",
                           prio);
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
    /* A body that is no JSON object is a spec error of the document as a whole: code
     * invalid_spec with the path "" (docs/spec.md, "Errors and warnings"). */
    if (!r->body || r->len == 0)
        return reply_error(r, 400, "invalid_spec", "", "empty body: POST the job spec as JSON");
    submit_state *ss = calloc(1, sizeof *ss);
    if (!ss)
        return reply_error(r, 500, "internal", NULL, "out of memory");
    if (key) {
        /* A key already used answers now, before the spec and the quotas are checked
         * again: a retry gets its job even when it would no longer be admitted. */
        idem_fingerprint(r->body, r->len, ss->hash);
        int64_t id = 0;
        idem_match m = idem_lookup(db(app->db), r->who.user, key, ss->hash, &id);
        if (m != IDEM_NEW) {
            free(ss);
            if (m == IDEM_ERROR)
                return reply_error(r, 500, "internal", NULL, "database error");
            return answer_used_key(r, r->who.user, key, id, m == IDEM_SAME);
        }
    }
    /* The spec is checked by a validator thread, never here (validate.h), which hands
     * an admitted job on to the group commit itself (prepare_job). */
    ss->prio = prio;
    ss->key = key;
    ss->v.then = prepare_job;
    ss->v.who = r->who;
    ss->v.body = r->body;
    ss->v.len = r->len;
    ss->v.conn = r->conn;
    r->route_state = ss;
    r->route_state_free = submit_state_free;
    if (validate_enqueue(app, &ss->v)) /* suspends; called again when stored (submit_done) or
                                     refused (submit_checked) */
        return reply_error(r, 503, "unavailable", NULL,
                           "too many job submissions are being checked; try again shortly");
    return MHD_YES;
}

/* On a validator thread once the spec is checked, the connection still suspended
 * (validate.h): an accepted spec's job passes admission (its wall-time limit, its owner's
 * quotas, its memory figures) and goes to the group commit, which resumes the connection
 * once it is stored (submit_done). Returns 1 when handed on, 0 when the connection is to
 * be resumed now for a refusal (submit_checked). The normalised spec is stored as text (the
 * job's runner parses it); the name, kind, device ids and warnings come from the parsed
 * spec itself, the uploaded model and the files it names from what the parse read
 * (specs.h): nothing reads its JSON again. */
static int prepare_job(validate_req *v)
{
    fdwd_app *app = v->app;
    submit_state *ss = (submit_state *)((char *)v - offsetof(submit_state, v));
    if (v->st != FDW_OK)
        return 0;
    fdw_spec *spec = v->spec;
    v->spec = NULL;
    ss->refused = admission_submit(app, &v->who, spec, &ss->adm);
    ss->refused_field = ss->adm.field;
    if (ss->refused) {
        fdw_spec_free(spec);
        return 0;
    }
    const int ndev = fdw_spec_devices(spec);
    const int shots = fdw_spec_shots(spec); /* the Slurm back end splits a survey by it */
    ss->norm_text = fdw_spec_to_json(spec);
    ss->name = strdup(fdw_spec_name(spec));
    ss->kind = strdup(fdw_spec_kind(spec));
    ss->wanted = wanted_devices(spec);
    ss->warnings = warnings_text(spec);
    ss->files = json_dumps(v->reads.files, JSON_COMPACT);
    const int named_ids = fdw_spec_device_ids(spec, NULL, 0) > 0;
    fdw_spec_free(spec);
    if (!ss->norm_text || !ss->name || !ss->kind || !ss->warnings || !ss->files ||
        (named_ids && !ss->wanted)) {
        ss->refused = 500;
        ss->refused_field = NULL;
        snprintf(ss->adm.code, sizeof ss->adm.code, "internal");
        snprintf(ss->adm.message, sizeof ss->adm.message,
                 "out of memory writing the job's normalised spec");
        return 0;
    }
    const spec_reads *rd = &v->reads;
    ss->a.job = (job_new){.owner = v->who.user,
                          .name = ss->name,
                          .kind = ss->kind,
                          .priority = (int)ss->prio,
                          .devices_requested = ndev,
                          .devices_wanted = ss->wanted,
                          .idempotency_key = ss->key,
                          .request_hash = ss->key ? ss->hash : NULL,
                          .model_name = rd->model[0] ? rd->model : NULL,
                          .model_sha256 = rd->model[0] ? rd->model_sha : NULL,
                          .spec_body = v->body,
                          .spec_json = ss->norm_text,
                          .spec_files = ss->files,
                          .warnings = ss->warnings,
                          .host_bytes = ss->adm.host_bytes,
                          .device_bytes = ss->adm.device_bytes,
                          .wall_time = ss->adm.wall_time,
                          .shots = shots};
    ss->a.conn = v->conn;
    ss->stored = 1;
    if (accept_enqueue(app, &ss->a) == 0)
        return 1; /* ss may be freed by its handler from here on */
    ss->stored = 0;
    ss->refused = 503;
    ss->refused_field = NULL;
    snprintf(ss->adm.code, sizeof ss->adm.code, "unavailable");
    snprintf(ss->adm.message, sizeof ss->adm.message, "the server is shutting down");
    return 0;
}

/* POST /v1/jobs refused after its spec was checked: the spec's errors, or what
 * prepare_job refused it for. */
static enum MHD_Result submit_checked(request *r)
{
    submit_state *ss = r->route_state;
    const fdw_error *err = &ss->v.err;
    const fdw_status st = ss->v.st;
    if (st != FDW_OK) {
        /* Only now look for malformed JSON, to say where it breaks: the engine parses
         * with the same strictness, so a spec it accepted needs no second parse here. */
        json_error_t jerr;
        json_t *probe = json_loadb(r->body, r->len, JSON_REJECT_DUPLICATES, &jerr);
        if (!probe)
            return reply_error(r, 400, "invalid_spec", "",
                               "malformed JSON at line %d, column %d: %s", jerr.line,
                               jerr.column, jerr.text);
        int is_obj = json_is_object(probe);
        json_decref(probe);
        if (!is_obj)
            return reply_error(r, 400, "invalid_spec", "", "the job spec must be a JSON object");
        if (st == FDW_ERR_DEVICE) /* more devices, or an id, than this server has */
            return reply_error(r, 400, "too_many_devices", err->field, "%s", err->message);
        if (st == FDW_ERR_SPEC || st == FDW_ERR_IO || st == FDW_ERR_UNSUPPORTED ||
            st == FDW_ERR_NOMEM)
            return reply_error(r, 400, "invalid_spec", err->field, "%s", err->message);
        return reply_error(r, 500, "internal", err->field[0] ? err->field : NULL, "%s",
                           err->message);
    }
    return reply_error(r, (unsigned)ss->refused, ss->adm.code, ss->refused_field, "%s",
                       ss->adm.message);
}

/* Second half of POST /v1/jobs: the accept thread stored the job (or failed). A new
 * job's answer is rendered from what was submitted and stored (jobs_new_record, no read
 * back); a repeated Idempotency-Key answers as answer_used_key says. */
static enum MHD_Result submit_done(request *r)
{
    fdwd_app *app = r->app;
    submit_state *ss = r->route_state;
    if (ss->a.rc)
        return reply_error(r, 500, "internal", NULL, "could not store the job");
    if (ss->a.stored.existed) /* the key was used meanwhile (same batch, a race) */
        return answer_used_key(r, ss->a.job.owner, ss->a.job.idempotency_key, ss->a.stored.id,
                               !ss->a.stored.key_reused);
    job_record rec;
    jobs_new_record(&ss->a.job, &ss->a.stored, &rec);
    json_t *job = job_json_of(app, &rec, 0);
    log_debug("job %lld accepted from %s", (long long)ss->a.stored.id, r->who.user);
    if (!job)
        return reply_error(r, 500, "internal", NULL, "could not write the job's answer");
    char loc[64];
    snprintf(loc, sizeof loc, "/v1/jobs/%lld", (long long)ss->a.stored.id);
    return reply_json_at(r, 201, job, loc);
}

enum MHD_Result route_jobs_list(request *r)
{
    fdwd_app *app = r->app;
    const char *state = http_query(r, "state");
    if (state) {
        int ok = 0;
        for (int i = 0; i < 5; i++)
            ok |= !strcmp(state, jobs_states[i]);
        if (!ok)
            return reply_error(r, 400, "bad_request", "state",
                               "state must be queued, running, succeeded, failed or cancelled");
    }
    /* name: jobs whose name contains it (any printable text; ASCII case ignored). */
    const char *name = http_query(r, "name");
    if (name) {
        size_t nl = strlen(name);
        int ok = nl >= 1 && nl <= 200;
        for (size_t i = 0; ok && i < nl; i++)
            ok = (unsigned char)name[i] >= 0x20 && name[i] != 0x7f;
        if (!ok)
            return reply_error(r, 400, "bad_request", "name",
                               "name must be 1 to 200 characters with no control characters");
    }
    long long limit, before;
    if (query_int(r, "limit", 1, 500, 50, &limit))
        return reply_error(r, 400, "bad_request", "limit", "limit must be an integer 1..500");
    if (query_int(r, "before", 1, INT64_MAX, 0, &before))
        return reply_error(r, 400, "bad_request", "before",
                           "before must be a positive job id");
    json_t *list = job_json_page(app, &r->who, state, name, (int)limit, before);
    if (!list)
        return reply_error(r, 500, "internal", NULL, "database error");
    return reply_json(r, 200, list);
}

/* GET /v1/jobs/{id}: from the answer cache while nothing was committed since it was
 * rendered (see jobcache.h); otherwise read, render, answer and keep the response. */
enum MHD_Result route_job_get(request *r)
{
    fdwd_app *app = r->app;
    enum MHD_Result ret;
    if (jobcache_reply(app, r->job_id, &r->who, r->conn, &ret))
        return ret;
    uint64_t gen = db_generation(app->db); /* before reading: see db_generation */
    json_t *job = job_json_get(app, r->job_id, &r->who, 1);
    if (!job)
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    char owner[128];
    snprintf(owner, sizeof owner, "%s", json_string_value(json_object_get(job, "owner")));
    struct MHD_Response *resp = json_response(job);
    if (!resp)
        return MHD_NO;
    metrics_count_status(app, 200);
    ret = MHD_queue_response(r->conn, 200, resp);
    jobcache_store(app, r->job_id, owner, gen, resp);
    return ret;
}

enum MHD_Result route_job_cancel(request *r)
{
    fdwd_app *app = r->app;
    int status = jobs_cancel(app, r->job_id, &r->who);
    /* The answer shows the job as the cancel left it, before the scheduler acts. */
    json_t *job = status == 200 || status == 202 ? job_json_get(app, r->job_id, &r->who, 1) : NULL;
    if (status == 200)
        sched_kick(app);
    else if (status == 202)
        sched_cancel(app, r->job_id);
    switch (status) {
    case 200:
    case 202:
        if (job)
            return reply_json(r, (unsigned)status, job);
        return reply_error(r, 500, "internal", NULL, "database error");
    case 404:
        return reply_error(r, 404, "not_found", NULL, "no job %lld", (long long)r->job_id);
    case 409: {
        const char *state = "finished";
        jobs_visible(app, r->job_id, &r->who, &state);
        return reply_error(r, 409, "conflict", NULL, "job %lld has already %s",
                           (long long)r->job_id,
                           !strcmp(state, "succeeded") ? "succeeded"
                           : !strcmp(state, "failed")  ? "failed"
                                                       : "been cancelled");
    }
    default:
        return reply_error(r, 500, "internal", NULL, "database error");
    }
}
