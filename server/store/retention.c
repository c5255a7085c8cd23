/* retention.c — removing finished jobs' outputs (see retention.h). */
#include "store/retention.h"
#include "core/app.h"
#include "core/datadir.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "store/jobruns.h"
#include "store/jobs.h"
#include "core/log.h"
#include "core/notify.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files of a finished job, and its outputs rows; then the record says so. */
static int remove_outputs(fdwd_app *app, int64_t id, const char *by)
{
    char dir[CFG_PATH + 64];
    snprintf(dir, sizeof dir, "%s/%lld/out", app->jobs_dir, (long long)id);
    datadir_remove(dir);
    snprintf(dir, sizeof dir, "%s/%lld/checkpoint", app->jobs_dir, (long long)id);
    datadir_remove(dir);
    snprintf(dir, sizeof dir, "%s/%lld/run.json", app->jobs_dir, (long long)id);
    unlink(dir);
    int rc = db_run(db(app->db), "DELETE FROM outputs WHERE job_id = ?1", "i", id) == SQLITE_DONE
                 ? 0
                 : -1;
    if (rc == 0)
        rc = jobruns_outputs_removed(app, id, by);
    if (rc == 0)
        notify_job(&app->notify, id);
    return rc;
}

int retention_remove(fdwd_app *app, int64_t id, const identity *who, const char **state)
{
    *state = "unknown";
    if (!jobs_visible(app, id, who, state))
        return 404;
    if (!strcmp(*state, "queued") || !strcmp(*state, "running"))
        return 409;
    if (remove_outputs(app, id, who->user) != 0)
        return 500;
    log_info("job %lld: outputs removed by %s", (long long)id, who->user);
    diskguard_maintain(app);
    return 200;
}

int retention_sweep(fdwd_app *app, int retention_s)
{
    if (retention_s <= 0)
        return 0;
    sqlite3_stmt *st = db_bind(db_stmt(db(app->db), "SELECT id FROM jobs WHERE state IN "
                                                    "('succeeded', 'failed', 'cancelled') AND "
                                                    "outputs_removed_at IS NULL AND finished_at "
                                                    "< ?1 ORDER BY id LIMIT 1000"),
                               "i", now_ms() - (int64_t)retention_s * 1000);
    if (!st)
        return 0;
    int64_t ids[1000];
    int n = 0;
    while (n < 1000 && sqlite3_step(st) == SQLITE_ROW)
        ids[n++] = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    int removed = 0;
    for (int i = 0; i < n; i++)
        removed += remove_outputs(app, ids[i], "retention") == 0;
    if (removed)
        log_info("retention: removed the outputs of %d job(s) finished over %d s ago", removed,
                 retention_s);
    return removed;
}
