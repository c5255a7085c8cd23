/* job_json.c — a job_record as the API's JSON (see job_json.h). The key order is the
 * API's (id, name, owner, kind, state, ...); the JSON columns (devices, progress,
 * warnings, spec) are parsed back into values, with a fallback when a column holds
 * nothing readable. */
#include "store/job_json.h"
#include "core/db.h"
#include "store/jobruns.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *time_or_null(int64_t ms)
{
    if (ms < 0)
        return json_null();
    char buf[32];
    fmt_time(ms, buf);
    return json_string(buf);
}

/* text parsed as JSON, or fallback (stolen either way) when it is NULL or unreadable. */
static json_t *parsed_or(const char *text, json_t *fallback)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    if (v) {
        json_decref(fallback);
        return v;
    }
    return fallback;
}

static json_t *links(int64_t id)
{
    char self[64], ev[80], out[80], cancel[80];
    snprintf(self, sizeof self, "/v1/jobs/%lld", (long long)id);
    snprintf(ev, sizeof ev, "%s/events", self);
    snprintf(out, sizeof out, "%s/outputs", self);
    snprintf(cancel, sizeof cancel, "%s/cancel", self);
    return json_pack("{s:s, s:s, s:s, s:s}", "self", self, "events", ev, "outputs", out,
                     "cancel", cancel);
}

/* The reason: for a queued job what it waits for (the scheduler's finding, else its place
 * in the queue when jobs are ahead of it, else why it was queued again, if it was); for
 * the others the stored one (every terminal state has one). */
static json_t *reason(const job_record *r)
{
    const int queued = strcmp(r->state, "queued") == 0;
    if (queued && r->waiting)
        return json_string(r->waiting);
    if (queued && r->queue_position > 0) {
        char place[96];
        jobs_place_reason(r->queue_position, place, sizeof place);
        return json_string(place);
    }
    return r->reason ? json_string(r->reason) : json_null();
}

/* The uploaded data the job reads (its spec's files that are uploads, with the SHA-256
 * each had when the job was submitted): [{"name", "sha256"}], [] when none. */
static json_t *data_read(const job_record *r)
{
    json_t *out = json_array();
    if (!r->spec_files || !strstr(r->spec_files, "\"upload\"")) /* the usual case: no parse */
        return out;
    json_t *files = json_loads(r->spec_files, 0, NULL);
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *name = json_string_value(json_object_get(f, "upload"));
        const char *sha = json_string_value(json_object_get(f, "sha256"));
        int seen = 0; /* a file two survey shots name is listed once */
        for (size_t k = 0; name && k < json_array_size(out); k++)
            seen |= !strcmp(name, json_string_value(json_object_get(json_array_get(out, k),
                                                                    "name")));
        if (name && sha && !seen)
            json_array_append_new(out, json_pack("{s:s, s:s}", "name", name, "sha256", sha));
    }
    json_decref(files);
    return out;
}

json_t *job_json_of(fdwd_app *app, const job_record *r, int with_spec)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "id", json_integer(r->id));
    json_object_set_new(j, "name", json_string(r->name ? r->name : ""));
    json_object_set_new(j, "owner", json_string(r->owner));
    json_object_set_new(j, "kind", json_string(r->kind));
    /* The uploaded model it names, with the SHA-256 of the content it was checked
     * against, kept with the job: a later re-upload of the name does not change it. */
    json_object_set_new(j, "model", r->model_name ? json_pack("{s:s, s:s?}", "name",
                                                              r->model_name, "sha256",
                                                              r->model_sha256)
                                                  : json_null());
    json_object_set_new(j, "data", data_read(r));
    json_object_set_new(j, "state", json_string(r->state));
    json_object_set_new(j, "reason", reason(r));
    json_object_set_new(j, "priority", json_integer(r->priority));
    json_object_set_new(j, "attempts", json_integer(r->attempts));
    json_object_set_new(j, "devices_requested", json_integer(r->devices_requested));
    json_object_set_new(j, "devices", parsed_or(r->devices, json_array()));
    json_object_set_new(j, "created_at", time_or_null(r->created_at));
    json_object_set_new(j, "started_at", time_or_null(r->started_at));
    json_object_set_new(j, "finished_at", time_or_null(r->finished_at));
    json_object_set_new(j, "queue_position",
                        strcmp(r->state, "queued") == 0 && r->queue_position >= 0
                            ? json_integer(r->queue_position)
                            : json_null());
    json_object_set_new(j, "progress", parsed_or(r->progress, json_null()));
    json_object_set_new(j, "warnings", parsed_or(r->warnings, json_array()));
    json_object_set_new(j, "cancel_requested", json_boolean(r->cancel_requested));
    /* memory, wall_time, checkpoint, usage, outputs_removed: a job just stored has run
     * nothing, its estimates are what it was submitted with (no read). */
    if (r->fresh) {
        const job_runs none = {.host_bytes = r->fresh->host_bytes,
                               .device_bytes = r->fresh->device_bytes,
                               .wall_time = r->fresh->wall_time,
                               .checkpoint_step = -1,
                               .removed_at = -1};
        jobruns_render(&none, j);
    } else {
        jobruns_json(app, r->id, j);
    }
    json_object_set_new(j, "links", links(r->id));
    if (with_spec)
        json_object_set_new(j, "spec", parsed_or(r->spec_json, json_null()));
    return j;
}

typedef struct render_one {
    fdwd_app *app;
    int with_spec;
    json_t *job;
} render_one;

static void keep_one(void *user, const job_record *job)
{
    render_one *o = user;
    o->job = job_json_of(o->app, job, o->with_spec);
}

json_t *job_json_get(fdwd_app *app, int64_t id, const identity *who, int with_spec)
{
    render_one o = {.app = app, .with_spec = with_spec, .job = NULL};
    if (jobs_read(app, id, who, keep_one, &o) != 1) {
        json_decref(o.job);
        return NULL;
    }
    return o.job;
}

typedef struct render_page {
    fdwd_app *app;
    json_t *jobs;
    int64_t last;
} render_page;

static void append_one(void *user, const job_record *job)
{
    render_page *p = user;
    json_array_append_new(p->jobs, job_json_of(p->app, job, 1));
    p->last = job->id;
}

/* s percent-encoded for a query value (RFC 3986 unreserved characters kept) into out,
 * which holds at least 3 * strlen(s) + 1 bytes. */
static void query_escape(const char *s, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
            *out++ = (char)ch;
        } else {
            *out++ = '%';
            *out++ = hex[ch >> 4];
            *out++ = hex[ch & 15];
        }
    }
    *out = '\0';
}

json_t *job_json_page(fdwd_app *app, const identity *who, const char *state, const char *name,
                      int limit, int64_t before)
{
    render_page p = {.app = app, .jobs = json_array(), .last = 0};
    int more = 0;
    if (!p.jobs || jobs_page(app, who, state, name, limit, before, append_one, &p, &more) < 0) {
        json_decref(p.jobs);
        return NULL;
    }
    json_t *next = json_null();
    if (more) {
        char *esc = malloc(name ? 3 * strlen(name) + 1 : 1);
        if (!esc) {
            json_decref(p.jobs);
            return NULL;
        }
        query_escape(name ? name : "", esc);
        json_decref(next);
        next = json_sprintf("/v1/jobs?%s%s%s%s%s%slimit=%d&before=%lld", state ? "state=" : "",
                            state ? state : "", state ? "&" : "", name ? "name=" : "", esc,
                            name ? "&" : "", limit, (long long)p.last);
        free(esc);
    }
    return json_pack("{s:o, s:o}", "jobs", p.jobs, "next", next);
}
