/* slurmjobs.c — the slurm_jobs table (see slurmjobs.h). */
#include "store/slurmjobs.h"
#include "core/db.h"

#include <sqlite3.h>
#include <stdio.h>

/* Columns 0-2 of a row (slurm_id, name, role) into r. */
static void read_row(sqlite3_stmt *st, int col, slurm_row *r)
{
    const unsigned char *name = sqlite3_column_text(st, col + 1);
    const unsigned char *role = sqlite3_column_text(st, col + 2);
    r->slurm_id = sqlite3_column_int64(st, col);
    snprintf(r->name, sizeof r->name, "%s", name ? (const char *)name : "");
    snprintf(r->role, sizeof r->role, "%s", role ? (const char *)role : "job");
}

int slurmjobs_put(fdwd_app *app, int64_t job, const slurm_row *r)
{
    return db_run(db(app->db), "INSERT OR REPLACE INTO slurm_jobs (job_id, slurm_id, "
                               "submitted_at, name, role) VALUES (?1, ?2, ?3, ?4, ?5)",
                  "iiitt", job, r->slurm_id, now_ms(), r->name, r->role) == SQLITE_DONE
               ? 0
               : -1;
}

int slurmjobs_get(fdwd_app *app, int64_t job, slurm_row *r)
{
    sqlite3_stmt *st = db_stmt(db(app->db), "SELECT slurm_id, name, role FROM slurm_jobs "
                                            "WHERE job_id = ?1");
    if (!db_bind(st, "i", job))
        return -1;
    const int step = sqlite3_step(st);
    const int rc = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
    if (rc == 1)
        read_row(st, 0, r);
    db_stmt_done(st);
    return rc;
}

int slurmjobs_drop(fdwd_app *app, int64_t job)
{
    return db_run(db(app->db), "DELETE FROM slurm_jobs WHERE job_id = ?1", "i", job) == SQLITE_DONE
               ? 0
               : -1;
}

int slurmjobs_orphans(fdwd_app *app, int64_t *jobs, slurm_row *rows, int max)
{
    sqlite3_stmt *st = db_stmt(db(app->db), "SELECT s.job_id, s.slurm_id, s.name, s.role "
                                            "FROM slurm_jobs s JOIN jobs j ON j.id = s.job_id "
                                            "WHERE j.state NOT IN ('queued', 'running') "
                                            "LIMIT ?1");
    if (!db_bind(st, "n", max))
        return -1;
    int n = 0;
    while (n < max && sqlite3_step(st) == SQLITE_ROW) {
        jobs[n] = sqlite3_column_int64(st, 0);
        read_row(st, 1, &rows[n++]);
    }
    db_stmt_done(st);
    return n;
}
