/* usage.c — accounting read back (see usage.h). */
#include "store/usage.h"
#include "core/db.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Device-seconds of running jobs so far, per owner: devices x (now - started_at). */
#define RUNNING_SQL                                                                          \
    "SELECT owner, coalesce(sum(json_array_length(devices) * (?1 - started_at) / 1000.0), 0) " \
    "FROM jobs WHERE state = 'running' AND started_at IS NOT NULL"

double usage_device_seconds(fdwd_app *app, const char *user, int64_t since_ms)
{
    sqlite3_stmt *st =
        db_row(db(app->db), "SELECT (SELECT coalesce(sum(device_seconds), 0) FROM usage "
                   "WHERE owner = ?2 AND ended_at >= ?3) + "
                   "(SELECT coalesce(sum(json_array_length(devices) * "
                   "(?1 - max(started_at, ?3)) / 1000.0), 0) FROM jobs "
                   "WHERE state = 'running' AND owner = ?2 AND started_at IS NOT NULL)",
               "iti", now_ms(), user, since_ms);
    double v = st ? sqlite3_column_double(st, 0) : -1;
    db_stmt_done(st);
    return v;
}

/* Add amount to user's entry of out (n entries, at most cap). */
static int add_to(usage_user *out, int n, int cap, const char *user, double amount)
{
    for (int i = 0; i < n; i++)
        if (strcmp(out[i].user, user) == 0) {
            out[i].decayed += amount;
            return n;
        }
    if (n >= cap)
        return n;
    snprintf(out[n].user, sizeof out[n].user, "%s", user);
    out[n].decayed = amount;
    return n + 1;
}

int usage_decayed(fdwd_app *app, double halflife_s, usage_user *out, int cap)
{
    sqlite3 *c = db(app->db);
    const int64_t now = now_ms();
    const double hl_ms = halflife_s > 0 ? halflife_s * 1000.0 : 1.0;
    sqlite3_stmt *st = db_stmt(c, "SELECT owner, device_seconds, ended_at FROM usage "
                                  "WHERE ended_at >= ?1");
    if (!db_bind(st, "i", now - (int64_t)(20.0 * hl_ms)))
        return -1;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *owner = (const char *)sqlite3_column_text(st, 0);
        const double age = (double)(now - sqlite3_column_int64(st, 2));
        n = add_to(out, n, cap, owner ? owner : "",
                   sqlite3_column_double(st, 1) * exp2(-(age > 0 ? age : 0) / hl_ms));
    }
    db_stmt_done(st);
    st = db_bind(db_stmt(c, RUNNING_SQL " GROUP BY owner"), "i", now);
    if (!st)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *owner = (const char *)sqlite3_column_text(st, 0);
        n = add_to(out, n, cap, owner ? owner : "", sqlite3_column_double(st, 1));
    }
    db_stmt_done(st);
    return n;
}

int usage_standing(fdwd_app *app, const char *user, long *queued, int *running_devices,
                   uint64_t *disk)
{
    sqlite3_stmt *st =
        db_row(db(app->db), "SELECT (SELECT count(*) FROM jobs WHERE owner = ?1 AND state = "
                   "'queued'), (SELECT coalesce(sum(json_array_length(devices)), 0) FROM "
                   "jobs WHERE owner = ?1 AND state = 'running'), (SELECT "
                   "coalesce(sum(o.bytes), 0) FROM outputs o JOIN jobs j ON j.id = "
                   "o.job_id WHERE j.owner = ?1 AND j.outputs_removed_at IS NULL) + (SELECT "
                   "coalesce(sum(bytes), 0) FROM models WHERE owner = ?1) + (SELECT "
                   "coalesce(sum(bytes), 0) FROM datasets WHERE owner = ?1)", "t", user);
    if (!st)
        return -1;
    *queued = (long)sqlite3_column_int64(st, 0);
    *running_devices = sqlite3_column_int(st, 1);
    *disk = (uint64_t)sqlite3_column_int64(st, 2);
    db_stmt_done(st);
    return 0;
}

static json_t *time_text(int64_t ms)
{
    char buf[32];
    fmt_time(ms, buf);
    return json_string(buf);
}

json_t *usage_report(fdwd_app *app, const char *only_user, int64_t since_ms, int64_t until_ms)
{
    sqlite3 *c = db(app->db);
    sqlite3_stmt *st = db_bind(
        db_stmt(c, "SELECT owner, count(*), count(DISTINCT job_id), sum(device_seconds), "
                   "sum(wall_seconds), max(peak_host_bytes), max(peak_device_bytes) FROM usage "
                   "WHERE ended_at >= ?1 AND ended_at < ?2 AND (?3 IS NULL OR owner = ?3) "
                   "GROUP BY owner ORDER BY owner"),
        "iit", since_ms, until_ms, only_user);
    if (!st)
        return NULL;
    json_t *users = json_array();
    while (sqlite3_step(st) == SQLITE_ROW) {
        const double ds = sqlite3_column_double(st, 3);
        json_array_append_new(
            users, json_pack("{s:s, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:f}", "user",
                      (const char *)sqlite3_column_text(st, 0), "runs",
                      (json_int_t)sqlite3_column_int64(st, 1), "jobs",
                      (json_int_t)sqlite3_column_int64(st, 2), "device_seconds", ds,
                      "device_hours", ds / 3600.0, "wall_seconds",
                      sqlite3_column_double(st, 4), "peak_host_bytes",
                      (json_int_t)sqlite3_column_int64(st, 5), "peak_device_bytes",
                      (json_int_t)sqlite3_column_int64(st, 6), "running_device_seconds",
                      0.0));
    }
    db_stmt_done(st);
    /* The running jobs' part so far, when the window reaches now. */
    const int64_t now = now_ms();
    if (until_ms >= now &&
        (st = db_bind(db_stmt(c, RUNNING_SQL " AND (?2 IS NULL OR owner = ?2) GROUP BY owner"),
                      "it", now, only_user))) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *owner = (const char *)sqlite3_column_text(st, 0);
            json_t *row = NULL, *u;
            size_t i;
            json_array_foreach(users, i, u) {
                if (!strcmp(json_string_value(json_object_get(u, "user")), owner))
                    row = u;
            }
            if (!row) {
                row = json_pack("{s:s, s:i, s:i, s:f, s:f, s:f, s:i, s:i, s:f}", "user", owner,
                                "runs", 0, "jobs", 0, "device_seconds", 0.0, "device_hours",
                                0.0, "wall_seconds", 0.0, "peak_host_bytes", 0,
                                "peak_device_bytes", 0, "running_device_seconds", 0.0);
                json_array_append_new(users, row);
            }
            json_object_set_new(row, "running_device_seconds",
                                json_real(sqlite3_column_double(st, 1)));
        }
        db_stmt_done(st);
    }
    return json_pack("{s:o, s:o, s:o}", "since", time_text(since_ms), "until",
                     time_text(until_ms), "users", users);
}

int usage_totals(fdwd_app *app, void (*fn)(void *user_arg, const char *user, double device_seconds,
                            long runs),
                 void *user_arg)
{
    sqlite3_stmt *st = db_stmt(db(app->db), "SELECT owner, sum(device_seconds), count(*) FROM "
                                            "usage GROUP BY owner ORDER BY owner");
    if (!st)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW)
        fn(user_arg, (const char *)sqlite3_column_text(st, 0), sqlite3_column_double(st, 1),
           (long)sqlite3_column_int64(st, 2));
    db_stmt_done(st);
    return 0;
}
