/* slurm_record.c — a Slurm job recorded before and after its sbatch (see slurm_record.h). */
#include "sched/slurm_record.h"
#include "core/log.h"
#include "sched/slurm_cli.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void slurm_record_name(int64_t job_id, int attempt, const char *role, char *name, size_t len)
{
    if (strcmp(role, "job") == 0)
        snprintf(name, len, "fdwave-%lld-%d", (long long)job_id, attempt);
    else
        snprintf(name, len, "fdwave-%lld-%d-%s", (long long)job_id, attempt, role);
}

/* The Slurm job named name: squeue asked up to six times, five seconds apart, while it
 * cannot answer (Slurm's controller restarting). As slurm_find_named. */
static int find_named(const char *name, int64_t *id, char *why, size_t len)
{
    for (int tries = 0;; tries++) {
        const int found = slurm_find_named(name, id, why, len);
        if (found >= 0 || tries == 5)
            return found;
        struct timespec ts = {5, 0};
        nanosleep(&ts, NULL);
    }
}

int slurm_record_find(fdwd_app *app, int64_t job_id, slurm_row *row, int *adopted, char *why,
                      size_t len)
{
    *adopted = 0;
    const int rc = slurmjobs_get(app, job_id, row);
    if (rc != 1 || row->slurm_id > 0)
        return rc;
    const int found = find_named(row->name, &row->slurm_id, why, len);
    if (found < 0)
        return -1;
    if (found == 0) { /* sbatch never reached Slurm: the caller submits it */
        log_info("job %lld: no Slurm job named %s (its sbatch did not reach Slurm)",
                 (long long)job_id, row->name);
        slurmjobs_drop(app, job_id);
        return 0;
    }
    *adopted = 1;
    log_info("job %lld: adopted Slurm job %lld (%s), submitted before the daemon stopped and "
             "not yet recorded", (long long)job_id, (long long)row->slurm_id, row->name);
    if (slurmjobs_put(app, job_id, row) != 0)
        log_warn("job %lld: cannot record Slurm job %lld yet", (long long)job_id,
                 (long long)row->slurm_id);
    return 1;
}

int slurm_record_submit(fdwd_app *app, int64_t job_id, const char *role, const slurm_batch *b,
                        slurm_row *row, char *why, size_t len)
{
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", b->name);
    snprintf(row->role, sizeof row->role, "%s", role);
    if (slurmjobs_put(app, job_id, row) != 0) { /* the name first: see slurm_record.h */
        snprintf(why, len, "cannot record Slurm job %s in the database", b->name);
        return -1;
    }
    if (slurm_submit(app, b, &row->slurm_id, why, len) != 0) {
        slurmjobs_drop(app, job_id);
        return -1;
    }
    if (slurmjobs_put(app, job_id, row) != 0) {
        char ignored[400];
        slurm_cancel(row->slurm_id, ignored, sizeof ignored); /* never one nobody knows */
        slurmjobs_drop(app, job_id);
        snprintf(why, len, "cannot record Slurm job %lld in the database",
                 (long long)row->slurm_id);
        return -1;
    }
    log_info("job %lld: submitted as Slurm job %lld (%s)", (long long)job_id,
             (long long)row->slurm_id, b->name);
    return 0;
}
