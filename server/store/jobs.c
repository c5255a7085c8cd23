/* jobs.c — the job store (see jobs.h). All writes use BEGIN IMMEDIATE; the accept and
 * finish transactions commit with synchronous=FULL, so a job that got its 201 (or its
 * final state) survives a crash or power cut. Rows go out as job_record visits; what a
 * client sees of them is job_json.c's business. */
#include "store/jobs.h"
#include "core/db.h"
#include "events/events.h"
#include "store/idempotency.h"
#include "core/log.h"
#include "core/notify.h"
#include "events/outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const jobs_states[5] = {"queued", "running", "succeeded", "failed", "cancelled"};

#define JOB_COLS                                                                            \
    "id, owner, name, kind, state, reason, priority, attempts, devices_requested, devices, " \
    "created_at, started_at, finished_at, progress, warnings, spec_json, cancel_requested, " \
    "model_name, model_sha256, waiting, spec_files"

static const char *state_static(const char *s)
{
    for (int i = 0; i < 5; i++)
        if (s && strcmp(s, jobs_states[i]) == 0)
            return jobs_states[i];
    return "unknown";
}

/* Number of queued jobs that will run before this one (0 = next), ignoring aging.
 * Higher priorities come from the trigger-kept queue_counts table; within the job's own
 * priority, the newest queued job (the usual case: a submit) is "all the others", and
 * only a job in the middle of its level needs an index range count. */
static int64_t queue_position(sqlite3 *c, int64_t id, int priority)
{
    int64_t higher = db_int(c, "SELECT coalesce(sum(n), 0) FROM queue_counts WHERE priority > ?1",
                            -1, "n", priority);
    int64_t newest = db_int(
        c, "SELECT coalesce(max(id), 0) FROM jobs WHERE state = 'queued' AND priority = ?1", -1,
        "n", priority);
    int64_t same =
        id >= newest
            ? db_int(c, "SELECT n - 1 FROM queue_counts WHERE priority = ?1", -1, "n", priority)
            : db_int(c, "SELECT count(*) FROM jobs WHERE state = 'queued' AND priority = ?1 "
                        "AND id < ?2", -1, "ni", priority, id);
    return higher < 0 || same < 0 ? -1 : higher + same;
}

/* Column c of st as a time in ms, -1 when NULL. */
static int64_t time_or_unset(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, col);
}

/* Visit one row of JOB_COLS. */
static void visit_row(sqlite3 *c, sqlite3_stmt *st, job_visitor fn, void *user)
{
    job_record r;
    r.id = sqlite3_column_int64(st, 0);
    r.owner = (const char *)sqlite3_column_text(st, 1);
    r.name = (const char *)sqlite3_column_text(st, 2);
    r.kind = (const char *)sqlite3_column_text(st, 3);
    r.state = state_static((const char *)sqlite3_column_text(st, 4));
    r.reason = (const char *)sqlite3_column_text(st, 5);
    r.priority = sqlite3_column_int(st, 6);
    r.attempts = sqlite3_column_int(st, 7);
    r.devices_requested = sqlite3_column_int(st, 8);
    r.devices = (const char *)sqlite3_column_text(st, 9);
    r.created_at = sqlite3_column_int64(st, 10);
    r.started_at = time_or_unset(st, 11);
    r.finished_at = time_or_unset(st, 12);
    r.progress = (const char *)sqlite3_column_text(st, 13);
    r.warnings = (const char *)sqlite3_column_text(st, 14);
    r.spec_json = (const char *)sqlite3_column_text(st, 15);
    r.cancel_requested = sqlite3_column_int(st, 16);
    r.model_name = (const char *)sqlite3_column_text(st, 17);
    r.model_sha256 = (const char *)sqlite3_column_text(st, 18);
    r.waiting = (const char *)sqlite3_column_text(st, 19);
    r.spec_files = (const char *)sqlite3_column_text(st, 20);
    r.fresh = NULL;
    r.queue_position = strcmp(r.state, "queued") == 0 ? queue_position(c, r.id, r.priority) : -1;
    fn(user, &r);
}

void jobs_new_record(const job_new *j, const job_stored *st, job_record *out)
{
    *out = (job_record){.id = st->id,
                        .owner = j->owner,
                        .name = j->name ? j->name : "",
                        .kind = j->kind,
                        .state = jobs_states[0],
                        .reason = NULL,
                        .priority = j->priority,
                        .attempts = 0,
                        .devices_requested = j->devices_requested,
                        .devices = "[]",
                        .created_at = st->created_at,
                        .started_at = -1,
                        .finished_at = -1,
                        .queue_position = st->queue_position,
                        .progress = NULL,
                        .warnings = j->warnings ? j->warnings : "[]",
                        .spec_json = j->spec_json,
                        .cancel_requested = 0,
                        .model_name = j->model_name,
                        .model_sha256 = j->model_name ? j->model_sha256 : NULL,
                        .waiting = NULL,
                        .spec_files = j->spec_files,
                        .fresh = j};
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

/* Commit the caller's transaction and tell the notifier that job id has new events.
 * Returns 0, or -1 when the commit failed. */
static int commit_notify(fdwd_app *app, sqlite3 *c, int64_t id)
{
    if (db_commit(c) != SQLITE_OK)
        return -1;
    notify_job(&app->notify, id);
    return 0;
}

/* One change of a job's state in the caller's transaction: sql, with the reason as ?1,
 * the time as ?2, the job as ?3 and, where it has them, n as ?4 and the state as ?5,
 * changes the job's row; when it did, the state event is appended. Returns the rows
 * changed (0 or 1), or -1 on an error. */
static int change_state(sqlite3 *c, const char *sql, int64_t id, const char *state,
                        const char *reason, int64_t n)
{
    if (db_run(c, sql, "tiiit", reason, now_ms(), id, n, state) != SQLITE_DONE)
        return -1;
    const int changed = sqlite3_changes(c);
    return changed == 1 && append_state(c, id, state, reason) ? -1 : changed;
}

int jobs_insert_tx(sqlite3 *c, const job_new *j, job_stored *out)
{
    out->existed = 0;
    out->key_reused = 0;
    out->queue_position = -1;
    char hash[DIGEST_HEX_LEN + 1];
    const char *request_hash = j->request_hash;
    if (j->idempotency_key && !request_hash) { /* a caller that did not fingerprint it */
        idem_fingerprint(j->spec_body, strlen(j->spec_body), hash);
        request_hash = hash;
    }
    if (j->idempotency_key) {
        /* Again inside the accepting transaction: two submissions with one key in a
         * batch, or racing the route's early look-up, store one job. */
        idem_match m = idem_lookup(c, j->owner, j->idempotency_key, request_hash, &out->id);
        if (m == IDEM_ERROR)
            goto fail;
        if (m != IDEM_NEW) {
            out->existed = 1;
            out->key_reused = m == IDEM_OTHER;
            return 0;
        }
    }
    out->created_at = now_ms();
    sqlite3_stmt *st = db_bind(
        db_stmt(c, "INSERT INTO jobs (owner, name, kind, state, priority, "
                   "devices_requested, devices_wanted, idempotency_key, spec_body, "
                   "spec_json, warnings, created_at, host_bytes, device_bytes, wall_time, "
                   "request_hash, model_name, model_sha256, spec_files, shots) "
                   "VALUES (?1, ?2, ?3, 'queued', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                   "?13, ?14, ?15, ?16, ?17, ?18, ?19)"),
        "tttnntttttiii-ttttn", j->owner, j->name ? j->name : "", j->kind, j->priority,
        j->devices_requested, j->devices_wanted, j->idempotency_key, j->spec_body, j->spec_json,
        j->warnings ? j->warnings : "[]", out->created_at, (int64_t)j->host_bytes,
        (int64_t)j->device_bytes, j->idempotency_key ? request_hash : NULL, j->model_name,
        j->model_name ? j->model_sha256 : NULL, j->spec_files, j->shots);
    if (st && j->wall_time > 0)
        sqlite3_bind_double(st, 14, j->wall_time);
    int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        goto fail;
    out->id = sqlite3_last_insert_rowid(c);
    /* Its queue position: the job is the newest of its priority (ids only grow), so every
     * queued job of its priority or higher comes first (see queue_position). */
    out->queue_position =
        db_int(c, "SELECT coalesce(sum(n), 0) - 1 FROM queue_counts WHERE priority >= ?1", -1,
               "n", j->priority);
    /* append_state(c, id, "queued", why) without building JSON: the reason is the place
     * in the queue when jobs are ahead of it (what the scheduler finds comes later). */
    char data[160];
    if (out->queue_position > 0) {
        char why[96];
        jobs_place_reason(out->queue_position, why, sizeof why);
        snprintf(data, sizeof data, "{\"state\":\"queued\",\"reason\":\"%s\"}", why);
    } else {
        snprintf(data, sizeof data, "{\"state\":\"queued\"}");
    }
    if (events_append_text(c, out->id, "state", data) < 0)
        goto fail;
    /* Each warning is also an event, so a watcher sees it in order. */
    json_t *warnings = j->warnings ? json_loads(j->warnings, 0, NULL) : NULL;
    size_t i;
    json_t *w;
    int bad = 0;
    json_array_foreach(warnings, i, w) {
        json_t *d = json_pack("{s:O}", "message", w);
        bad |= events_append(c, out->id, "warning", d) < 0;
        json_decref(d);
    }
    json_decref(warnings);
    if (bad)
        goto fail;
    return 0;
fail:
    log_error("jobs: submit failed: %s", sqlite3_errmsg(c));
    return -1;
}

/* May who see a job owned by owner? */
static int may_see(const identity *who, const char *owner)
{
    return who->admin || (owner && strcmp(owner, who->user) == 0);
}

int jobs_read(fdwd_app *app, int64_t id, const identity *who, job_visitor fn, void *user)
{
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st = db_bind(db_stmt(c, "SELECT " JOB_COLS " FROM jobs WHERE id = ?1"), "i", id);
    if (!st)
        return -1;
    int found = 0;
    if (sqlite3_step(st) == SQLITE_ROW && may_see(who, (const char *)sqlite3_column_text(st, 1))) {
        visit_row(c, st, fn, user);
        found = 1;
    }
    db_stmt_done(st);
    return found;
}

int jobs_visible(fdwd_app *app, int64_t id, const identity *who, const char **state)
{
    sqlite3_stmt *st =
        db_row(db(app->db), "SELECT owner, state FROM jobs WHERE id = ?1", "i", id);
    const int ok = st && may_see(who, (const char *)sqlite3_column_text(st, 0));
    if (ok && state)
        *state = state_static((const char *)sqlite3_column_text(st, 1));
    db_stmt_done(st);
    return ok;
}

int jobs_page(fdwd_app *app, const identity *who, const char *state, const char *name, int limit,
              int64_t before, job_visitor fn, void *user, int *more)
{
    sqlite3 *c = db(app->db);
    *more = 0;
    /* instr() rather than LIKE: a name filter holding % or _ means those characters. */
    sqlite3_stmt *st = db_bind(db_stmt(c, "SELECT " JOB_COLS " FROM jobs WHERE (?1 OR owner = ?2) "
                                          "AND (?3 IS NULL OR state = ?3) AND (?4 <= 0 OR id < ?4) "
                                          "AND (?6 IS NULL OR instr(lower(name), lower(?6)) > 0) "
                                          "ORDER BY id DESC LIMIT ?5"),
                               "nttint", who->admin, who->user, state, before, limit + 1, name);
    if (!st)
        return -1;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == limit) {
            *more = 1;
            break;
        }
        visit_row(c, st, fn, user);
        n++;
    }
    db_stmt_done(st);
    return n;
}

int jobs_cancel(fdwd_app *app, int64_t id, const identity *who)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return 500;
    const char *state = NULL;
    if (!jobs_visible(app, id, who, &state)) {
        db_rollback(c);
        return 404;
    }
    int status;
    if (strcmp(state, "queued") == 0) {
        char reason[200];
        snprintf(reason, sizeof reason, "cancelled by %s while queued", who->user);
        if (change_state(c, "UPDATE jobs SET state = 'cancelled', reason = ?1, finished_at = "
                            "?2 WHERE id = ?3 AND state = 'queued'",
                         id, "cancelled", reason, 0) != 1)
            goto fail;
        status = 200;
    } else if (strcmp(state, "running") == 0) {
        if (db_run(c, "UPDATE jobs SET cancel_requested = 1 WHERE id = ?1", "i", id) !=
            SQLITE_DONE)
            goto fail;
        status = 202;
    } else {
        db_rollback(c);
        return 409;
    }
    return commit_notify(app, c, id) ? 500 : status;
fail:
    log_error("jobs: cancel %lld failed: %s", (long long)id, sqlite3_errmsg(c));
    db_rollback(c);
    return 500;
}

int jobs_claim(fdwd_app *app, int64_t id, const int *devices, int ndevices)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 0) != SQLITE_OK)
        return -1;
    json_t *arr = json_array();
    for (int i = 0; i < ndevices; i++)
        json_array_append_new(arr, json_integer(devices[i]));
    char *devs = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    int changed = db_run(c, "UPDATE jobs SET state = 'running', attempts = attempts + 1, "
                            "started_at = ?1, finished_at = NULL, reason = NULL, devices = ?2, "
                            "progress = NULL, cancel_requested = 0, waiting = NULL "
                            "WHERE id = ?3 AND state = 'queued'",
                         "iti", now_ms(), devs ? devs : "[]", id) == SQLITE_DONE
                      ? sqlite3_changes(c)
                      : 0;
    free(devs);
    if (changed != 1 || append_state(c, id, "running", NULL)) {
        db_rollback(c);
        return -1;
    }
    return commit_notify(app, c, id);
}

void jobs_place_reason(int64_t ahead, char *out, size_t cap)
{
    snprintf(out, cap, "waits for its place in the queue: %lld job%s ahead of it",
             (long long)ahead, ahead == 1 ? "" : "s");
}

int jobs_set_waiting(fdwd_app *app, int64_t id, const char *why)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 0) != SQLITE_OK)
        return -1;
    int changed = db_run(c, "UPDATE jobs SET waiting = ?1 WHERE id = ?2 AND "
                            "state = 'queued' AND waiting IS NOT ?1", "ti", why, id) == SQLITE_DONE
                      ? sqlite3_changes(c)
                      : -1;
    char place[96];
    if (changed == 1 && !why) { /* back to its place: say how many jobs are ahead */
        int priority = (int)db_int(c, "SELECT priority FROM jobs WHERE id = ?1", -1, "i", id);
        jobs_place_reason(queue_position(c, id, priority), place, sizeof place);
    }
    if (changed < 0 || (changed == 1 && append_state(c, id, "queued", why ? why : place))) {
        log_error("jobs: recording why %lld waits failed: %s", (long long)id, sqlite3_errmsg(c));
        db_rollback(c);
        return -1;
    }
    if (db_commit(c) != SQLITE_OK)
        return -1;
    if (changed == 1)
        notify_job(&app->notify, id);
    return changed;
}

/* Column i of st as a new string; NULL when NULL (or out of memory). */
static char *text_dup(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t ? strdup(t) : NULL;
}

int jobs_load_for_run(fdwd_app *app, int64_t id, job_run_facts *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = db_row(db(app->db), "SELECT owner, spec_json, spec_files, warnings, "
                                           "shots, attempts FROM jobs WHERE id = ?1", "i", id);
    if (!st)
        return -1;
    *out = (job_run_facts){.owner = text_dup(st, 0), .spec_json = text_dup(st, 1),
                           .spec_files = text_dup(st, 2), .warnings = text_dup(st, 3),
                           .shots = sqlite3_column_int(st, 4),
                           .attempts = sqlite3_column_int(st, 5)};
    db_stmt_done(st);
    if (out->owner && out->spec_json)
        return 0;
    jobs_run_facts_free(out);
    return -1;
}

void jobs_run_facts_free(job_run_facts *f)
{
    free(f->owner);
    free(f->spec_json);
    free(f->spec_files);
    free(f->warnings);
    memset(f, 0, sizeof *f);
}

int jobs_model(fdwd_app *app, int64_t id, char name[160], char hex[65])
{
    name[0] = hex[0] = '\0';
    sqlite3_stmt *st =
        db_row(db(app->db), "SELECT model_name, model_sha256 FROM jobs WHERE id = ?1", "i", id);
    if (!st)
        return -1;
    if (sqlite3_column_type(st, 0) == SQLITE_TEXT && sqlite3_column_type(st, 1) == SQLITE_TEXT) {
        snprintf(name, 160, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(hex, 65, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    db_stmt_done(st);
    return 0;
}

int jobs_finish(fdwd_app *app, int64_t id, const char *state, const char *reason, int requeue,
                const json_t *files)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    const int changed = change_state(
        c,
        requeue ? "UPDATE jobs SET state = 'queued', attempts = max(attempts - 1, 0), "
                  "started_at = NULL, devices = '[]', reason = ?1, cancel_requested = 0 "
                  "WHERE id = ?3 AND state = 'running' AND ?2 >= 0"
                : "UPDATE jobs SET state = ?5, reason = ?1, finished_at = ?2 "
                  "WHERE id = ?3 AND state = 'running'",
        id, requeue ? "queued" : state, reason, 0);
    if (changed < 0)
        goto fail;
    if (changed == 1 && !requeue && files) /* a missing row only hides a file from the index */
        outputs_record_tx(c, id, files);
    return commit_notify(app, c, id);
fail:
    log_error("jobs: finishing %lld failed: %s", (long long)id, sqlite3_errmsg(c));
    db_rollback(c);
    return -1;
}

int jobs_retry(fdwd_app *app, int64_t id, const char *reason, int max_attempts)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    int attempts = (int)db_int(c, "SELECT attempts FROM jobs WHERE id = ?1 AND state = 'running'",
                               -1, "i", id);
    if (attempts < 0) { /* not running any more: nothing to do */
        db_rollback(c);
        return 1;
    }
    const int give_up = attempts >= max_attempts;
    char text[1400];
    if (give_up)
        snprintf(text, sizeof text, "gave up after %d attempts: %s", attempts, reason);
    else
        snprintf(text, sizeof text, "%s; re-queued (attempt %d of %d)", reason, attempts,
                 max_attempts);
    if (change_state(c,
                     give_up ? "UPDATE jobs SET state = 'failed', reason = ?1, "
                               "finished_at = ?2 WHERE id = ?3 AND state = 'running'"
                             : "UPDATE jobs SET state = 'queued', reason = ?1, "
                               "started_at = NULL, devices = '[]', cancel_requested = 0 "
                               "WHERE id = ?3 AND state = 'running' AND ?2 >= 0",
                     id, give_up ? "failed" : "queued", text, 0) != 1)
        goto fail;
    return commit_notify(app, c, id) ? -1 : give_up ? 0 : 1;
fail:
    log_error("jobs: re-queueing %lld failed: %s", (long long)id, sqlite3_errmsg(c));
    db_rollback(c);
    return -1;
}

int jobs_fail_queued(fdwd_app *app, int64_t id, const char *reason)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    if (change_state(c, "UPDATE jobs SET state = 'failed', reason = ?1, finished_at = ?2 "
                        "WHERE id = ?3 AND state = 'queued'",
                     id, "failed", reason, 0) < 0) {
        db_rollback(c);
        return -1;
    }
    return commit_notify(app, c, id);
}

int jobs_recover(fdwd_app *app, int max_interruptions)
{
    sqlite3 *c = db(app->db);
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c, "SELECT id, interruptions + 1, checkpoint_step FROM jobs "
                              "WHERE state = 'running'", -1, &st, NULL) != SQLITE_OK)
        goto fail;
    int64_t ids[256], ckpt[256];
    int cnt[256], n = 0, more = 1;
    while (more) {
        n = 0;
        sqlite3_reset(st);
        while (n < 256 && sqlite3_step(st) == SQLITE_ROW) {
            ids[n] = sqlite3_column_int64(st, 0);
            cnt[n] = sqlite3_column_int(st, 1);
            ckpt[n++] = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1
                                                                  : sqlite3_column_int64(st, 2);
        }
        more = n == 256;
        for (int i = 0; i < n; i++) {
            char reason[300], from[96];
            int fail = cnt[i] >= max_interruptions;
            if (ckpt[i] >= 0)
                snprintf(from, sizeof from, "resumes from its last checkpoint, at step %lld "
                         "or later", (long long)ckpt[i]);
            else
                snprintf(from, sizeof from, "no checkpoint: starts again");
            if (fail)
                snprintf(reason, sizeof reason,
                         "gave up: the daemon stopped %d times while it ran", cnt[i]);
            else
                snprintf(reason, sizeof reason,
                         "re-queued: the daemon stopped while it ran (not counted as an "
                         "attempt; %s)", from);
            if (change_state(c,
                             fail ? "UPDATE jobs SET state = 'failed', reason = ?1, "
                                    "finished_at = ?2, interruptions = ?4 WHERE id = ?3"
                                  : "UPDATE jobs SET state = 'queued', reason = ?1, "
                                    "started_at = NULL, devices = '[]', attempts = "
                                    "max(attempts - 1, 0), interruptions = ?4, "
                                    "cancel_requested = 0 WHERE id = ?3 AND ?2 >= 0",
                             ids[i], fail ? "failed" : "queued", reason, cnt[i]) < 0) {
                sqlite3_finalize(st);
                goto fail;
            }
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

int jobs_count_by_state(fdwd_app *app, int64_t counts[5])
{
    memset(counts, 0, 5 * sizeof counts[0]);
    sqlite3_stmt *st = db_stmt(db(app->db), "SELECT state, count(*) FROM jobs GROUP BY state");
    if (!st)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; i < 5; i++)
            if (strcmp(s, jobs_states[i]) == 0)
                counts[i] = sqlite3_column_int64(st, 1);
    }
    db_stmt_done(st);
    return 0;
}
