/* runner_proto.c — encoding and decoding the runner's lines (see runner_proto.h). The
 * decoder trusts nothing: every member is type- and range-checked, so a runner that
 * writes garbage (a crash mid-line, a library printing to stdout) costs its job, never
 * the daemon. */
#include "runner/runner_proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dump(json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

char *proto_hello(long pid, int ranks)
{
    return dump(json_pack("{s:s, s:I, s:i}", "t", "hello", "pid", (json_int_t)pid, "ranks",
                          ranks));
}

char *proto_progress(const fdw_progress *p)
{
    json_t *devs = json_array();
    for (int i = 0; devs && i < p->ndevices; i++)
        json_array_append_new(devs, json_pack("{s:i, s:i, s:i, s:f, s:I}", "device",
                                              p->devices[i].device, "z0", p->devices[i].z0,
                                              "nz", p->devices[i].nz, "mpts",
                                              p->devices[i].mpts, "mem_bytes",
                                              (json_int_t)p->devices[i].mem_bytes));
    json_t *o = json_pack("{s:s, s:I, s:I, s:f, s:f, s:f, s:f, s:o}", "t", "progress", "step",
                          (json_int_t)p->step, "nsteps", (json_int_t)p->nsteps, "percent",
                          p->percent, "mpts", p->mpts, "eta_s", p->eta_s, "elapsed_s",
                          p->elapsed_s, "devices", devs);
    if (o && p->has_change) {
        json_object_set_new(o, "change", json_real(p->change));
        json_object_set_new(o, "changed", json_integer((json_int_t)p->changed));
    }
    if (o && p->nshots > 0) { /* a survey */
        json_object_set_new(o, "nshots", json_integer(p->nshots));
        json_object_set_new(o, "shots_done", json_integer(p->shots_done));
        json_object_set_new(o, "shot", json_integer(p->shot));
    }
    return dump(o);
}

char *proto_snapshot(const fdw_snapshot_info *s)
{
    json_t *files = json_array();
    for (int i = 0; files && i < s->nfiles; i++)
        json_array_append_new(files, json_string(s->files[i]));
    return dump(json_pack("{s:s, s:i, s:I, s:f, s:o}", "t", "snapshot", "index", s->index,
                          "step", (json_int_t)s->step, "time", s->time, "files", files));
}

char *proto_log(int level, const char *msg)
{
    return dump(json_pack("{s:s, s:i, s:s}", "t", "log", "level", level, "message",
                          msg ? msg : ""));
}

char *proto_checkpoint(const fdw_checkpoint_info *c)
{
    return dump(json_pack("{s:s, s:i, s:I, s:I, s:I, s:f}", "t", "checkpoint", "resumed",
                          c->resumed, "step", (json_int_t)c->step, "nsteps",
                          (json_int_t)c->nsteps, "bytes", (json_int_t)c->bytes, "seconds",
                          c->seconds));
}

char *proto_result(fdw_status st, const fdw_error *err, const fdw_result *res,
                   uint64_t peak_rss)
{
    const char *status = st == FDW_OK ? "ok" : st == FDW_ERR_CANCELLED ? "cancelled" : "error";
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:I, s:f, s:f, s:s, s:f, s:I, s:I, s:b, s:I}", "t",
        "result", "status", status, "code", fdw_status_name(st), "field",
        err ? err->field : "", "message", err ? err->message : "", "steps_done",
        (json_int_t)res->steps_done, "elapsed_s", res->elapsed_s, "mpts", res->mpts,
        "backend", res->backend, "max_abs_error", res->max_abs_error, "resumed_step",
        (json_int_t)res->resumed_step, "checkpoint_step", (json_int_t)res->checkpoint_step,
        "suspended", res->suspended, "peak_rss", (json_int_t)peak_rss);
    if (o && res->nshots > 0) { /* a survey */
        json_object_set_new(o, "nshots", json_integer(res->nshots));
        json_object_set_new(o, "shots_done", json_integer(res->shots_done));
        json_object_set_new(o, "shots_resumed", json_integer(res->shots_resumed));
    }
    return dump(o);
}

/* ---- decoding -------------------------------------------------------------------- */

typedef struct reader {
    json_t *o;
    char *why;
    size_t whylen;
    int bad;
} reader;

static void fail(reader *r, const char *key, const char *what)
{
    if (!r->bad)
        snprintf(r->why, r->whylen, "member \"%s\" %s", key, what);
    r->bad = 1;
}

static long long get_int(reader *r, json_t *o, const char *key, long long lo, long long hi)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        fail(r, key, "is missing or not an integer in range");
        return lo;
    }
    return json_integer_value(v);
}

static double get_num(reader *r, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v))) {
        fail(r, key, "is missing or not a finite number");
        return 0;
    }
    return json_number_value(v);
}

static const char *get_str(reader *r, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) {
        fail(r, key, "is missing or not a string");
        return "";
    }
    return json_string_value(v);
}

#define BIG 9000000000000000000LL

static void decode_progress(reader *r, proto_msg *m)
{
    fdw_progress *p = &m->progress;
    p->step = (long)get_int(r, r->o, "step", 0, BIG);
    p->nsteps = (long)get_int(r, r->o, "nsteps", 0, BIG);
    p->percent = get_num(r, r->o, "percent");
    p->mpts = get_num(r, r->o, "mpts");
    p->eta_s = get_num(r, r->o, "eta_s");
    p->elapsed_s = get_num(r, r->o, "elapsed_s");
    json_t *devs = json_object_get(r->o, "devices");
    if (!json_is_array(devs) || json_array_size(devs) > PROTO_MAX_DEVICES) {
        fail(r, "devices", "is not a list of at most 64 devices");
        return;
    }
    size_t i;
    json_t *d;
    json_array_foreach(devs, i, d) {
        fdw_device_progress *dp = &m->devices[i];
        dp->device = (int)get_int(r, d, "device", 0, 1 << 20);
        dp->z0 = (int)get_int(r, d, "z0", 0, 1 << 30);
        dp->nz = (int)get_int(r, d, "nz", 0, 1 << 30);
        dp->mpts = get_num(r, d, "mpts");
        dp->mem_bytes = (uint64_t)get_int(r, d, "mem_bytes", 0, BIG);
    }
    p->ndevices = (int)json_array_size(devs);
    p->devices = m->devices;
    if (json_object_get(r->o, "change")) {
        p->has_change = 1;
        p->change = get_num(r, r->o, "change");
        p->changed = get_int(r, r->o, "changed", 0, BIG);
    }
    if (json_object_get(r->o, "nshots")) {
        p->nshots = (int)get_int(r, r->o, "nshots", 1, 1 << 30);
        p->shots_done = (int)get_int(r, r->o, "shots_done", 0, p->nshots);
        p->shot = (int)get_int(r, r->o, "shot", 0, INT32_MAX);
    }
}

static void decode_snapshot(reader *r, proto_msg *m)
{
    fdw_snapshot_info *s = &m->snapshot;
    s->index = (int)get_int(r, r->o, "index", 0, 1 << 30);
    s->step = (long)get_int(r, r->o, "step", 0, BIG);
    s->time = get_num(r, r->o, "time");
    json_t *files = json_object_get(r->o, "files");
    if (!json_is_array(files) || json_array_size(files) > PROTO_MAX_FILES) {
        fail(r, "files", "is not a list of at most 512 names");
        return;
    }
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f) {
        const char *name = json_string_value(f);
        /* a file of the job's output directory: a plain name */
        if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
            fail(r, "files", "holds something that is not a file name");
            return;
        }
        m->files[i] = name;
    }
    s->nfiles = (int)json_array_size(files);
    s->files = m->files;
}

static fdw_status status_named(const char *name)
{
    for (int s = FDW_OK; s <= FDW_ERR_INTERNAL; s++)
        if (strcmp(name, fdw_status_name((fdw_status)s)) == 0)
            return (fdw_status)s;
    return FDW_ERR_INTERNAL;
}

static void decode_result(reader *r, proto_msg *m)
{
    const char *status = get_str(r, r->o, "status");
    m->status = status_named(get_str(r, r->o, "code"));
    if (strcmp(status, "ok") != 0 && strcmp(status, "cancelled") != 0 &&
        strcmp(status, "error") != 0)
        fail(r, "status", "is not ok, cancelled or error");
    if (!strcmp(status, "ok") != (m->status == FDW_OK))
        fail(r, "code", "does not agree with the status");
    m->error.code = m->status;
    snprintf(m->error.field, sizeof m->error.field, "%s", get_str(r, r->o, "field"));
    snprintf(m->error.message, sizeof m->error.message, "%s", get_str(r, r->o, "message"));
    fdw_result *res = &m->result;
    res->steps_done = (long)get_int(r, r->o, "steps_done", 0, BIG);
    res->elapsed_s = get_num(r, r->o, "elapsed_s");
    res->mpts = get_num(r, r->o, "mpts");
    snprintf(res->backend, sizeof res->backend, "%s", get_str(r, r->o, "backend"));
    res->max_abs_error = get_num(r, r->o, "max_abs_error");
    res->resumed_step = (long)get_int(r, r->o, "resumed_step", 0, BIG);
    res->checkpoint_step = (long)get_int(r, r->o, "checkpoint_step", -1, BIG);
    json_t *susp = json_object_get(r->o, "suspended");
    if (!json_is_boolean(susp))
        fail(r, "suspended", "is not true or false");
    res->suspended = json_is_true(susp);
    m->peak_rss = (uint64_t)get_int(r, r->o, "peak_rss", 0, BIG);
    if (json_object_get(r->o, "nshots")) { /* a survey */
        res->nshots = (int)get_int(r, r->o, "nshots", 1, 1 << 30);
        res->shots_done = (int)get_int(r, r->o, "shots_done", 0, res->nshots);
        res->shots_resumed = (int)get_int(r, r->o, "shots_resumed", 0, res->nshots);
    }
}

proto_type proto_decode(const char *line, size_t len, proto_msg *m, char *why, size_t whylen)
{
    memset(m, 0, sizeof *m);
    json_error_t jerr;
    m->json = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(m->json)) {
        snprintf(why, whylen, "not a JSON object");
        json_decref(m->json);
        m->json = NULL;
        return m->type = PROTO_BAD;
    }
    reader r = {.o = m->json, .why = why, .whylen = whylen};
    const char *t = get_str(&r, m->json, "t");
    if (!strcmp(t, "hello")) {
        m->type = PROTO_HELLO;
        m->pid = (long)get_int(&r, m->json, "pid", 1, 1LL << 40);
        m->ranks = (int)get_int(&r, m->json, "ranks", 1, 1 << 20);
    } else if (!strcmp(t, "progress")) {
        m->type = PROTO_PROGRESS;
        decode_progress(&r, m);
    } else if (!strcmp(t, "snapshot")) {
        m->type = PROTO_SNAPSHOT;
        decode_snapshot(&r, m);
    } else if (!strcmp(t, "log")) {
        m->type = PROTO_LOG;
        m->level = (int)get_int(&r, m->json, "level", FDW_LOG_DEBUG, FDW_LOG_ERROR);
        m->message = get_str(&r, m->json, "message");
    } else if (!strcmp(t, "checkpoint")) {
        m->type = PROTO_CHECKPOINT;
        fdw_checkpoint_info *c = &m->checkpoint;
        c->resumed = (int)get_int(&r, m->json, "resumed", 0, 1);
        c->step = (long)get_int(&r, m->json, "step", 0, BIG);
        c->nsteps = (long)get_int(&r, m->json, "nsteps", 0, BIG);
        c->bytes = (uint64_t)get_int(&r, m->json, "bytes", 0, BIG);
        c->seconds = get_num(&r, m->json, "seconds");
    } else if (!strcmp(t, "result")) {
        m->type = PROTO_RESULT;
        decode_result(&r, m);
    } else if (!r.bad) {
        snprintf(why, whylen, "unknown message type \"%.40s\"", t);
        r.bad = 1;
    }
    if (r.bad) {
        json_decref(m->json);
        m->json = NULL;
        m->type = PROTO_BAD;
    }
    return m->type;
}

void proto_msg_free(proto_msg *m)
{
    json_decref(m->json);
    m->json = NULL;
}
