/* jobruns.c — the facts a job's runs leave (see jobruns.h). */
#include "store/jobruns.h"
#include "core/db.h"
#include "core/log.h"

#include <stdio.h>
#include <string.h>

static json_t *time_or_null(int64_t ms)
{
    if (ms <= 0)
        return json_null();
    char buf[32];
    fmt_time(ms, buf);
    return json_string(buf);
}

int jobruns_estimates(fdwd_app *app, int64_t id, uint64_t *host_bytes, uint64_t *device_bytes,
                      double *wall_time)
{
    sqlite3_stmt *st = db_row(db(app->db), "SELECT coalesce(host_bytes, 0), coalesce("
                                           "device_bytes, 0), coalesce(wall_time, 0) FROM jobs "
                                           "WHERE id = ?1", "i", id);
    if (!st)
        return -1;
    *host_bytes = (uint64_t)sqlite3_column_int64(st, 0);
    *device_bytes = (uint64_t)sqlite3_column_int64(st, 1);
    *wall_time = sqlite3_column_double(st, 2);
    db_stmt_done(st);
    return 0;
}

/* One UPDATE of jobs by id with an optional integer and text parameter. */
static int update(fdwd_app *app, const char *sql, int64_t id, int64_t a, const char *text)
{
    sqlite3 *c = db(app->db);
    /* in a transaction of its own: its commit moves the database's generation, so GET
     * /v1/jobs/ID's cached answers (jobcache.c) show the change at once */
    if (!c || db_begin(c, 1) != SQLITE_OK)
        return -1;
    if (db_run(c, sql, "iit", id, a, text) != SQLITE_DONE) {
        log_warn("jobs: %s: %s", sql, sqlite3_errmsg(c));
        db_rollback(c);
        return -1;
    }
    return db_commit(c) == SQLITE_OK ? 0 : -1;
}

int jobruns_checkpoint(fdwd_app *app, int64_t id, long step)
{
    return db_run(db(app->db), "UPDATE jobs SET checkpoint_step = ?2, checkpoint_at = ?3 WHERE id = ?1",
                  "iii", id, (int64_t)step, now_ms()) == SQLITE_DONE
               ? 0
               : -1;
}

int jobruns_checkpoint_clear(fdwd_app *app, int64_t id)
{
    return update(app, "UPDATE jobs SET checkpoint_step = NULL, checkpoint_at = NULL WHERE id = ?1",
                  id, 0, NULL);
}

int jobruns_outputs_removed(fdwd_app *app, int64_t id, const char *by)
{
    return update(app, "UPDATE jobs SET outputs_removed_at = ?2, outputs_removed_by = ?3 "
                  "WHERE id = ?1 AND outputs_removed_at IS NULL", /* the first removal */
                  id, now_ms(), by);
}

int jobruns_record_usage(fdwd_app *app, const run_usage *u)
{
    sqlite3 *c = db(app->db);
    int rc = db_run(c, "INSERT INTO usage (job_id, owner, devices, started_at, ended_at, "
                       "wall_seconds, device_seconds, peak_host_bytes, peak_device_bytes, "
                       "outcome) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    "itniiffiit", u->job_id, u->owner, u->devices, u->started_at, u->ended_at,
                    u->wall_seconds, u->wall_seconds * u->devices, (int64_t)u->peak_host_bytes,
                    (int64_t)u->peak_device_bytes, u->outcome) == SQLITE_DONE
                 ? 0
                 : -1;
    if (rc && c)
        log_warn("usage: recording job %lld's run failed: %s", (long long)u->job_id,
                 sqlite3_errmsg(c));
    return rc;
}

double jobruns_wall_used(fdwd_app *app, int64_t id)
{
    sqlite3_stmt *st = db_row(db(app->db), "SELECT coalesce(sum(wall_seconds), 0) FROM usage "
                                           "WHERE job_id = ?1", "i", id);
    double v = st ? sqlite3_column_double(st, 0) : 0;
    db_stmt_done(st);
    return v;
}

void jobruns_render(const job_runs *r, json_t *j)
{
    json_object_set_new(j, "memory", json_pack("{s:I, s:I}", "host_bytes",
                                               (json_int_t)r->host_bytes, "device_bytes",
                                               (json_int_t)r->device_bytes));
    json_object_set_new(j, "wall_time", r->wall_time > 0 ? json_real(r->wall_time) : json_null());
    json_object_set_new(j, "checkpoint",
                        r->checkpoint_step < 0
                            ? json_null()
                            : json_pack("{s:I, s:o}", "step", (json_int_t)r->checkpoint_step,
                                        "at", time_or_null(r->checkpoint_at)));
    json_object_set_new(j, "outputs_removed",
                        r->removed_at < 0 ? json_null()
                                          : json_pack("{s:o, s:s}", "at",
                                                      time_or_null(r->removed_at), "by",
                                                      r->removed_by ? r->removed_by : ""));
    json_object_set_new(j, "usage",
                        json_pack("{s:I, s:f, s:f, s:I, s:I}", "runs", (json_int_t)r->runs,
                                  "device_seconds", r->device_seconds, "wall_seconds",
                                  r->wall_seconds, "peak_host_bytes",
                                  (json_int_t)r->peak_host_bytes, "peak_device_bytes",
                                  (json_int_t)r->peak_device_bytes));
}

void jobruns_json(fdwd_app *app, int64_t id, json_t *j)
{
    sqlite3_stmt *st =
        db_row(db(app->db), "SELECT host_bytes, device_bytes, wall_time, checkpoint_step, "
                   "checkpoint_at, outputs_removed_at, outputs_removed_by, "
                   "(SELECT count(*) FROM usage WHERE job_id = ?1), "
                   "(SELECT coalesce(sum(device_seconds), 0) FROM usage WHERE job_id = ?1), "
                   "(SELECT coalesce(sum(wall_seconds), 0) FROM usage WHERE job_id = ?1), "
                   "(SELECT coalesce(max(peak_host_bytes), 0) FROM usage WHERE job_id = ?1), "
                   "(SELECT coalesce(max(peak_device_bytes), 0) FROM usage WHERE job_id = ?1) "
                   "FROM jobs WHERE id = ?1", "i", id);
    if (st) {
        const job_runs r = {
            .host_bytes = (uint64_t)sqlite3_column_int64(st, 0),
            .device_bytes = (uint64_t)sqlite3_column_int64(st, 1),
            .wall_time = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0
                                                                   : sqlite3_column_double(st, 2),
            .checkpoint_step = sqlite3_column_type(st, 3) == SQLITE_NULL
                                   ? -1
                                   : (long)sqlite3_column_int64(st, 3),
            .checkpoint_at = sqlite3_column_int64(st, 4),
            .removed_at = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1
                                                                    : sqlite3_column_int64(st, 5),
            .removed_by = (const char *)sqlite3_column_text(st, 6),
            .runs = (long)sqlite3_column_int64(st, 7),
            .device_seconds = sqlite3_column_double(st, 8),
            .wall_seconds = sqlite3_column_double(st, 9),
            .peak_host_bytes = (uint64_t)sqlite3_column_int64(st, 10),
            .peak_device_bytes = (uint64_t)sqlite3_column_int64(st, 11)};
        jobruns_render(&r, j);
    }
    db_stmt_done(st);
}
