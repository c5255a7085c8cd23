/* outputs.c — rows of the outputs table (see outputs.h). */
#include "events/outputs.h"
#include "core/db.h"
#include "core/log.h"

int outputs_record_tx(sqlite3 *c, int64_t job_id, const json_t *files)
{
    sqlite3_stmt *st = db_stmt(c, "INSERT OR REPLACE INTO outputs (job_id, name, format, "
                                  "bytes, created_at) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!st)
        return -1;
    int rc = 0;
    const int64_t now = now_ms();
    size_t i;
    const json_t *f;
    json_array_foreach(files, i, f) {
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *fmt = json_string_value(json_object_get(f, "format"));
        const json_t *bytes = json_object_get(f, "bytes");
        if (!name)
            continue;
        sqlite3_bind_int64(st, 1, job_id);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, fmt ? fmt : "unknown", -1, SQLITE_TRANSIENT);
        if (json_is_integer(bytes))
            sqlite3_bind_int64(st, 4, json_integer_value(bytes));
        else
            sqlite3_bind_null(st, 4);
        sqlite3_bind_int64(st, 5, now);
        if (sqlite3_step(st) != SQLITE_DONE) {
            log_error("outputs: job %lld, %s: %s", (long long)job_id, name, sqlite3_errmsg(c));
            rc = -1;
        }
        sqlite3_reset(st);
    }
    db_stmt_done(st);
    return rc;
}
