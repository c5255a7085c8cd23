/* jobs.c — the durable queue (see jobs.h). All writes use BEGIN IMMEDIATE; the accept
 * and finish transactions commit with synchronous=FULL, so a job that got its 201 (or
 * its final state) survives a crash or power cut. */
#include "jobs.h"
#include "db.h"
#include "events.h"
#include "log.h"
#include "sse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const jobs_states[5] = {"queued", "running", "succeeded", "failed", "cancelled"};

#define JOB_COLS                                                                            \
    "id, owner, name, kind, state, reason, priority, attempts, devices_requested, devices, " \
    "created_at, started_at, finished_at, progress, warnings, spec_json, cancel_requested"

static const char *state_static(const char *s)
{
    for (int i = 0; i < 5; i++)
        if (s && strcmp(s, jobs_states[i]) == 0)
            return jobs_states[i];
    return "unknown";
}

static json_t *time_or_null(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return json_null();
    char buf[32];
    fmt_time(sqlite3_column_int64(st, col), buf);
    return json_string(buf);
}

static json_t *parsed_or(sqlite3_stmt *st, int col, json_t *fallback)
{
    const char *text = (const char *)sqlite3_column_text(st, col);
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    if (v) {
        json_decref(fallback);
        return v;
    }
    return fallback;
}

/* One integer from a query with up to three integer parameters; -1 on error. sql must
 * be a string literal (the statement stays prepared, see db_stmt). */
static int64_t query_int3(sqlite3 *c, const char *sql, int64_t a, int64_t b, int64_t d)
{
    sqlite3_stmt *st = db_stmt(c, sql);
    int64_t v = -1;
    if (!st)
        return -1;
    int np = sqlite3_bind_parameter_count(st);
    sqlite3_bind_int64(st, 1, a);
    if (np >= 2)
        sqlite3_bind_int64(st, 2, b);
    if (np >= 3)
        sqlite3_bind_int64(st, 3, d);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    return v;
}

/* Number of queued jobs that will run before this one (0 = next), ignoring aging.
 * Higher priorities come from the trigger-kept queue_counts table; within the job's own
 * priority, the newest queued job (the usual case: a submit) is "all the others", and
 * only a job in the middle of its level needs an index range count. */
static json_t *queue_position(sqlite3 *c, int64_t id, int priority)
{
    int64_t higher = query_int3(
        c, "SELECT coalesce(sum(n), 0) FROM queue_counts WHERE priority > ?1", priority, 0, 0);
    int64_t newest = query_int3(
        c, "SELECT coalesce(max(id), 0) FROM jobs WHERE state = 'queued' AND priority = ?1",
        priority, 0, 0);
    int64_t same;
    if (id >= newest)
        same = query_int3(c, "SELECT n - 1 FROM queue_counts WHERE priority = ?1", priority, 0,
                          0);
    else
        same = query_int3(c,
                          "SELECT count(*) FROM jobs WHERE state = 'queued' AND "
                          "priority = ?1 AND id < ?2",
                          priority, id, 0);
    if (higher < 0 || same < 0)
        return json_null();
    return json_integer(higher + same);
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

/* One row of JOB_COLS as the API's job object. */
static json_t *row_to_json(sqlite3 *c, sqlite3_stmt *st, int with_spec)
{
    int64_t id = sqlite3_column_int64(st, 0);
    const char *state = state_static((const char *)sqlite3_column_text(st, 4));
    int priority = sqlite3_column_int(st, 6);
    json_t *j = json_object();
    json_object_set_new(j, "id", json_integer(id));
    json_object_set_new(j, "name", json_string((const char *)sqlite3_column_text(st, 2)));
    json_object_set_new(j, "owner", json_string((const char *)sqlite3_column_text(st, 1)));
    json_object_set_new(j, "kind", json_string((const char *)sqlite3_column_text(st, 3)));
    json_object_set_new(j, "state", json_string(state));
    const char *reason = (const char *)sqlite3_column_text(st, 5);
    json_object_set_new(j, "reason", reason ? json_string(reason) : json_null());
    json_object_set_new(j, "priority", json_integer(priority));
    json_object_set_new(j, "attempts", json_integer(sqlite3_column_int(st, 7)));
    json_object_set_new(j, "devices_requested", json_integer(sqlite3_column_int(st, 8)));
    json_object_set_new(j, "devices", parsed_or(st, 9, json_array()));
    json_object_set_new(j, "created_at", time_or_null(st, 10));
    json_object_set_new(j, "started_at", time_or_null(st, 11));
    json_object_set_new(j, "finished_at", time_or_null(st, 12));
    json_object_set_new(j, "queue_position", strcmp(state, "queued") == 0
                                                  ? queue_position(c, id, priority)
                                                  : json_null());
    json_object_set_new(j, "progress", parsed_or(st, 13, json_null()));
    json_object_set_new(j, "warnings", parsed_or(st, 14, json_array()));
    json_object_set_new(j, "cancel_requested", json_boolean(sqlite3_column_int(st, 16)));
    json_object_set_new(j, "links", links(id));
    if (with_spec)
        json_object_set_new(j, "spec", parsed_or(st, 15, json_null()));
    return j;
}

/* s as a JSON string, exactly as json_dumps writes it (the text must equal the read-back
 * answer byte for byte): as it is between quotes when nothing in it needs escaping (names,
 * owners and kinds nearly always), else through jansson. Returns 0, or -1 when jansson
 * cannot write it (not UTF-8, out of memory). */
static int put_str(FILE *f, const char *s)
{
    const char *c = s;
    while (*c && (unsigned char)*c >= 0x20 && *c != '"' && *c != '\\')
        c++;
    if (!*c) {
        fprintf(f, "\"%s\"", s);
        return 0;
    }
    json_t *v = json_string(s);
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    const int rc = text ? 0 : -1;
    if (text)
        fputs(text, f);
    free(text);
    json_decref(v);
    return rc;
}

char *jobs_new_text(const job_new *j, const job_stored *st)
{
    char *text = NULL, created[32];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    const long long id = (long long)st->id;
    fmt_time(st->created_at, created);
    fprintf(f, "{\"id\":%lld,\"name\":", id);
    int bad = put_str(f, j->name ? j->name : "");
    fputs(",\"owner\":", f);
    bad |= put_str(f, j->owner);
    fputs(",\"kind\":", f);
    bad |= put_str(f, j->kind);
    fprintf(f,
            ",\"state\":\"queued\",\"reason\":null,\"priority\":%d,\"attempts\":0,"
            "\"devices_requested\":%d,\"devices\":[],\"created_at\":\"%s\","
            "\"started_at\":null,\"finished_at\":null,\"queue_position\":",
            j->priority, j->devices_requested, created);
    if (st->queue_position >= 0)
        fprintf(f, "%lld", (long long)st->queue_position);
    else
        fputs("null", f);
    fputs(",\"progress\":null,\"warnings\":[", f);
    size_t i;
    json_t *w;
    json_array_foreach(j->warnings, i, w) {
        if (i)
            fputc(',', f);
        bad |= put_str(f, json_string_value(w) ? json_string_value(w) : "");
    }
    fprintf(f,
            "],\"cancel_requested\":false,\"links\":{\"self\":\"/v1/jobs/%lld\","
            "\"events\":\"/v1/jobs/%lld/events\",\"outputs\":\"/v1/jobs/%lld/outputs\","
            "\"cancel\":\"/v1/jobs/%lld/cancel\"}}",
            id, id, id, id);
    bad |= ferror(f);
    if (fclose(f) != 0 || bad) {
        free(text);
        return NULL;
    }
    return text;
}

static json_t *state_data(const char *state, const char *reason)
{
    return json_pack("{s:s, s:s?}", "state", state, "reason", reason);
}

/* Append the state event, plus "end" for terminal states. */
static int append_state(sqlite3 *c, int64_t id, const char *state, const char *reason)
{
    json_t *d = state_data(state, reason);
    int64_t e = events_append(c, id, "state", d);
    if (e > 0 && strcmp(state, "queued") && strcmp(state, "running"))
        e = events_append(c, id, "end", d);
    json_decref(d);
    return e > 0 ? 0 : -1;
}

int jobs_insert_tx(sqlite3 *c, const job_new *j, job_stored *out)
{
    sqlite3_stmt *st;
    out->existed = 0;
    out->queue_position = -1;
    if (j->idempotency_key) {
        st = db_stmt(c, "SELECT id FROM jobs WHERE owner = ?1 AND idempotency_key = ?2");
        if (!st)
            goto fail;
        sqlite3_bind_text(st, 1, j->owner, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, j->idempotency_key, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            out->id = sqlite3_column_int64(st, 0);
            out->existed = 1;
        }
        db_stmt_done(st);
        if (out->existed)
            return 0;
    }
    char *warnings = j->warnings ? json_dumps(j->warnings, JSON_COMPACT) : NULL;
    st = db_stmt(c, "INSERT INTO jobs (owner, name, kind, state, priority, "
                    "devices_requested, devices_wanted, idempotency_key, spec_body, "
                    "spec_json, warnings, created_at) VALUES (?1, ?2, ?3, 'queued', "
                    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    if (!st) {
        free(warnings);
        goto fail;
    }
    sqlite3_bind_text(st, 1, j->owner, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, j->name ? j->name : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, j->kind, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, j->priority);
    sqlite3_bind_int(st, 5, j->devices_requested);
    if (j->devices_wanted)
        sqlite3_bind_text(st, 6, j->devices_wanted, -1, SQLITE_STATIC);
    if (j->idempotency_key)
        sqlite3_bind_text(st, 7, j->idempotency_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, j->spec_body, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, j->spec_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 10, warnings ? warnings : "[]", -1, SQLITE_STATIC);
    out->created_at = now_ms();
    sqlite3_bind_int64(st, 11, out->created_at);
    int rc = sqlite3_step(st);
    db_stmt_done(st);
    free(warnings);
    if (rc != SQLITE_DONE)
        goto fail;
    out->id = sqlite3_last_insert_rowid(c);
    /* The constant data of append_state(c, id, "queued", NULL), without building it. */
    if (events_append_text(c, out->id, "state", "{\"state\":\"queued\"}") < 0)
        goto fail;
    /* Its queue position: the job is the newest of its priority (ids only grow), so every
     * queued job of its priority or higher comes first (see queue_position). */
    out->queue_position =
        query_int3(c, "SELECT coalesce(sum(n), 0) - 1 FROM queue_counts WHERE priority >= ?1",
                   j->priority, 0, 0);
    size_t i;
    json_t *w;
    json_array_foreach(j->warnings, i, w) {
        json_t *d = json_pack("{s:O}", "message", w);
        int64_t e = events_append(c, out->id, "warning", d);
        json_decref(d);
        if (e < 0)
            goto fail;
    }
    return 0;
fail:
    log_error("jobs: submit failed: %s", sqlite3_errmsg(c));
    return -1;
}

json_t *jobs_get(int64_t id, const identity *who) { return jobs_get_ex(id, who, 1); }

json_t *jobs_get_ex(int64_t id, const identity *who, int with_spec)
{
    sqlite3 *c = db();
    sqlite3_stmt *st = c ? db_stmt(c, "SELECT " JOB_COLS " FROM jobs WHERE id = ?1") : NULL;
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    json_t *j = NULL;
    if (sqlite3_step(st) == SQLITE_ROW &&
        (who->admin || strcmp((const char *)sqlite3_column_text(st, 1), who->user) == 0))
        j = row_to_json(c, st, with_spec);
    db_stmt_done(st);
    return j;
}

int jobs_visible(int64_t id, const identity *who, const char **state)
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    int ok = 0;
    if (!c || sqlite3_prepare_v2(c, "SELECT owner, state FROM jobs WHERE id = ?1", -1, &st,
                                 NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW &&
        (who->admin || strcmp((const char *)sqlite3_column_text(st, 0), who->user) == 0)) {
        ok = 1;
        if (state)
            *state = state_static((const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    return ok;
}

json_t *jobs_list(const identity *who, const char *state, int limit, int64_t before)
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    if (!c || sqlite3_prepare_v2(c,
                                 "SELECT " JOB_COLS " FROM jobs WHERE (?1 OR owner = ?2) AND "
                                 "(?3 IS NULL OR state = ?3) AND (?4 <= 0 OR id < ?4) "
                                 "ORDER BY id DESC LIMIT ?5",
                                 -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int(st, 1, who->admin);
    sqlite3_bind_text(st, 2, who->user, -1, SQLITE_STATIC);
    if (state)
        sqlite3_bind_text(st, 3, state, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, before);
    sqlite3_bind_int(st, 5, limit + 1);
    json_t *jobs = json_array();
    int n = 0;
    int64_t last = 0;
    int more = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == limit) {
            more = 1;
            break;
        }
        last = sqlite3_column_int64(st, 0);
        json_array_append_new(jobs, row_to_json(c, st, 1));
        n++;
    }
    sqlite3_finalize(st);
    json_t *next = json_null();
    if (more) {
        char buf[160];
        snprintf(buf, sizeof buf, "/v1/jobs?%s%s%slimit=%d&before=%lld", state ? "state=" : "",
                 state ? state : "", state ? "&" : "", limit, (long long)last);
        json_decref(next);
        next = json_string(buf);
    }
    return json_pack("{s:o, s:o}", "jobs", jobs, "next", next);
}

int jobs_cancel(int64_t id, const identity *who, json_t **job)
{
    sqlite3 *c = db();
    *job = NULL;
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return 500;
    const char *state = NULL;
    if (!jobs_visible(id, who, &state)) {
        db_rollback(c);
        return 404;
    }
    int status;
    sqlite3_stmt *st;
    if (strcmp(state, "queued") == 0) {
        char reason[200];
        snprintf(reason, sizeof reason, "cancelled by %s while queued", who->user);
        if (sqlite3_prepare_v2(c,
                               "UPDATE jobs SET state = 'cancelled', reason = ?1, "
                               "finished_at = ?2 WHERE id = ?3 AND state = 'queued'",
                               -1, &st, NULL) != SQLITE_OK)
            goto fail;
        sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, now_ms());
        sqlite3_bind_int64(st, 3, id);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE || append_state(c, id, "cancelled", reason))
            goto fail;
        status = 200;
    } else if (strcmp(state, "running") == 0) {
        if (sqlite3_prepare_v2(c, "UPDATE jobs SET cancel_requested = 1 WHERE id = ?1", -1,
                               &st, NULL) != SQLITE_OK)
            goto fail;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_step(st);
        sqlite3_finalize(st);
        status = 202;
    } else {
        db_rollback(c);
        return 409;
    }
    if (db_commit(c) != SQLITE_OK)
        return 500;
    sse_notify(id);
    *job = jobs_get(id, who);
    return *job ? status : 500;
fail:
    log_error("jobs: cancel %lld failed: %s", (long long)id, sqlite3_errmsg(c));
    db_rollback(c);
    return 500;
}

int jobs_head(int64_t aging_ms, int64_t *id, int *devices_requested, int *wanted,
              int *nwanted, int maxwanted, int64_t *rank)
{
    sqlite3 *c = db();
    /* Within one priority level the oldest queued job (smallest id) has waited longest,
     * so only the oldest of each of the 21 levels can be the head: 21 index look-ups
     * instead of sorting the whole queue, which cost O(queue) on every sched_kick. */
    sqlite3_stmt *st =
        c ? db_stmt(c, "SELECT j.id, j.devices_requested, j.devices_wanted, "
                       "j.priority + (?1 - j.created_at) / ?2 "
                       "FROM queue_counts q JOIN jobs j ON j.id = (SELECT min(id) FROM jobs "
                       "WHERE state = 'queued' AND priority = q.priority) "
                       "ORDER BY j.priority + (?1 - j.created_at) / ?2 DESC, j.id ASC LIMIT 1")
          : NULL;
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, now_ms());
    sqlite3_bind_int64(st, 2, aging_ms > 0 ? aging_ms : 1);
    int found = 0;
    *nwanted = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        found = 1;
        *id = sqlite3_column_int64(st, 0);
        *devices_requested = sqlite3_column_int(st, 1);
        *rank = sqlite3_column_int64(st, 3);
        const char *w = (const char *)sqlite3_column_text(st, 2);
        json_t *arr = w ? json_loads(w, 0, NULL) : NULL;
        size_t i;
        json_t *v;
        json_array_foreach(arr, i, v) {
            if (*nwanted < maxwanted)
                wanted[(*nwanted)++] = (int)json_integer_value(v);
        }
        json_decref(arr);
    }
    db_stmt_done(st);
    return found;
}

int jobs_claim(int64_t id, const int *devices, int ndevices)
{
    sqlite3 *c = db();
    if (!c || db_begin(c, 0) != SQLITE_OK)
        return -1;
    json_t *arr = json_array();
    for (int i = 0; i < ndevices; i++)
        json_array_append_new(arr, json_integer(devices[i]));
    char *devs = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    sqlite3_stmt *st;
    int changed = 0;
    if (sqlite3_prepare_v2(c,
                           "UPDATE jobs SET state = 'running', attempts = attempts + 1, "
                           "started_at = ?1, finished_at = NULL, reason = NULL, devices = ?2, "
                           "progress = NULL, cancel_requested = 0 "
                           "WHERE id = ?3 AND state = 'queued'",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, now_ms());
        sqlite3_bind_text(st, 2, devs ? devs : "[]", -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, id);
        if (sqlite3_step(st) == SQLITE_DONE)
            changed = sqlite3_changes(c);
        sqlite3_finalize(st);
    }
    free(devs);
    if (changed != 1 || append_state(c, id, "running", NULL)) {
        db_rollback(c);
        return -1;
    }
    if (db_commit(c) != SQLITE_OK)
        return -1;
    sse_notify(id);
    return 0;
}

int jobs_load_for_run(int64_t id, char **owner, char **spec_body)
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    if (!c || sqlite3_prepare_v2(c, "SELECT owner, spec_body FROM jobs WHERE id = ?1", -1, &st,
                                 NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *owner = strdup((const char *)sqlite3_column_text(st, 0));
        *spec_body = strdup((const char *)sqlite3_column_text(st, 1));
        rc = *owner && *spec_body ? 0 : -1;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Record the files the manifest lists (inside the caller's transaction). */
static void record_outputs(sqlite3 *c, int64_t id, const char *out_dir)
{
    if (!out_dir)
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s/manifest.json", out_dir);
    json_t *m = json_load_file(path, 0, NULL);
    if (!m)
        return;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c,
                           "INSERT OR REPLACE INTO outputs (job_id, name, format, bytes, "
                           "created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                           -1, &st, NULL) == SQLITE_OK) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(m, "files"), i, f) {
            const char *name = json_string_value(json_object_get(f, "name"));
            const char *fmt = json_string_value(json_object_get(f, "format"));
            if (!name)
                continue;
            json_t *b = json_object_get(f, "bytes");
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(st, 3, fmt ? fmt : "unknown", -1, SQLITE_TRANSIENT);
            if (json_is_integer(b))
                sqlite3_bind_int64(st, 4, json_integer_value(b));
            else
                sqlite3_bind_null(st, 4);
            sqlite3_bind_int64(st, 5, now_ms());
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    json_decref(m);
}

int jobs_finish(int64_t id, const char *state, const char *reason, int requeue,
                const char *out_dir)
{
    sqlite3 *c = db();
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    sqlite3_stmt *st;
    const char *sql =
        requeue ? "UPDATE jobs SET state = 'queued', attempts = max(attempts - 1, 0), "
                  "started_at = NULL, devices = '[]', reason = ?1, cancel_requested = 0 "
                  "WHERE id = ?3 AND state = 'running'"
                : "UPDATE jobs SET state = ?2, reason = ?1, finished_at = ?4 "
                  "WHERE id = ?3 AND state = 'running'";
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
    if (!requeue) {
        sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, now_ms());
    }
    sqlite3_bind_int64(st, 3, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        goto fail;
    if (sqlite3_changes(c) == 1) {
        if (append_state(c, id, requeue ? "queued" : state, reason))
            goto fail;
        if (!requeue)
            record_outputs(c, id, out_dir);
    }
    if (db_commit(c) != SQLITE_OK)
        return -1;
    sse_notify(id);
    return 0;
fail:
    log_error("jobs: finishing %lld failed: %s", (long long)id, sqlite3_errmsg(c));
    db_rollback(c);
    return -1;
}

int jobs_fail_queued(int64_t id, const char *reason)
{
    sqlite3 *c = db();
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    sqlite3_stmt *st;
    int changed = 0;
    if (sqlite3_prepare_v2(c,
                           "UPDATE jobs SET state = 'failed', reason = ?1, finished_at = ?2 "
                           "WHERE id = ?3 AND state = 'queued'",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, now_ms());
        sqlite3_bind_int64(st, 3, id);
        if (sqlite3_step(st) == SQLITE_DONE)
            changed = sqlite3_changes(c);
        sqlite3_finalize(st);
    }
    if (changed == 1 && append_state(c, id, "failed", reason)) {
        db_rollback(c);
        return -1;
    }
    if (db_commit(c) != SQLITE_OK)
        return -1;
    sse_notify(id);
    return 0;
}

int jobs_recover(int max_attempts)
{
    sqlite3 *c = db();
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c, "SELECT id, attempts FROM jobs WHERE state = 'running'", -1, &st,
                           NULL) != SQLITE_OK)
        goto fail;
    int64_t ids[256];
    int att[256], n = 0, more = 1;
    while (more) {
        n = 0;
        sqlite3_reset(st);
        while (n < 256 && sqlite3_step(st) == SQLITE_ROW) {
            ids[n] = sqlite3_column_int64(st, 0);
            att[n++] = sqlite3_column_int(st, 1);
        }
        more = n == 256;
        for (int i = 0; i < n; i++) {
            char reason[200];
            sqlite3_stmt *up;
            int fail = att[i] >= max_attempts;
            if (fail)
                snprintf(reason, sizeof reason,
                         "gave up after %d attempts: the daemon stopped during each run",
                         att[i]);
            else
                snprintf(reason, sizeof reason,
                         "re-queued: the daemon stopped while it ran (attempt %d of %d)",
                         att[i], max_attempts);
            if (sqlite3_prepare_v2(c,
                                   fail ? "UPDATE jobs SET state = 'failed', reason = ?1, "
                                          "finished_at = ?2 WHERE id = ?3"
                                        : "UPDATE jobs SET state = 'queued', reason = ?1, "
                                          "started_at = NULL, devices = '[]', "
                                          "cancel_requested = 0 WHERE id = ?3 AND ?2 >= 0",
                                   -1, &up, NULL) != SQLITE_OK) {
                sqlite3_finalize(st);
                goto fail;
            }
            sqlite3_bind_text(up, 1, reason, -1, SQLITE_STATIC);
            sqlite3_bind_int64(up, 2, now_ms());
            sqlite3_bind_int64(up, 3, ids[i]);
            sqlite3_step(up);
            sqlite3_finalize(up);
            append_state(c, ids[i], fail ? "failed" : "queued", reason);
            log_warn("job %lld: %s", (long long)ids[i], reason);
        }
    }
    sqlite3_finalize(st);
    return db_commit(c) == SQLITE_OK ? 0 : -1;
fail:
    log_error("jobs: recovery failed: %s", sqlite3_errmsg(c));
    db_rollback(c);
    return -1;
}

int jobs_count_by_state(int64_t counts[5])
{
    sqlite3 *c = db();
    sqlite3_stmt *st;
    memset(counts, 0, 5 * sizeof counts[0]);
    if (!c || sqlite3_prepare_v2(c, "SELECT state, count(*) FROM jobs GROUP BY state", -1, &st,
                                 NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; i < 5; i++)
            if (strcmp(s, jobs_states[i]) == 0)
                counts[i] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return 0;
}
