/* slurm_run.c — a job's run as Slurm jobs (see slurm_run.h). A job runs as one Slurm job
 * followed to its end (slurm_follow.h); a survey whose shots make more than one part runs
 * as an array of parts and a combining run (slurm_survey.h). Every Slurm job is recorded
 * before its sbatch and with its id after (slurm_record.h). A daemon following a job
 * again after a restart reads what the runner wrote meanwhile without posting it again
 * (its events were posted by the daemon before, or are lost with it: progress only;
 * outputs come from the manifest at the end), then follows as usual. */
#include "sched/slurm_run.h"
#include "core/log.h"
#include "sched/runlines.h"
#include "sched/slurm_cli.h"
#include "sched/slurm_follow.h"
#include "sched/slurm_record.h"
#include "sched/slurm_survey.h"
#include "store/slurmjobs.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int slurm_enabled(const fdwd_app *app)
{
    return strcmp(app->cfg.job_backend, "slurm") == 0;
}

int slurm_submitted(fdwd_app *app, int64_t job_id)
{
    slurm_row row;
    return slurm_enabled(app) && slurmjobs_get(app, job_id, &row) == 1;
}

/* Submit job as a new Slurm job and record it; or find the one recorded (adopting one
 * whose sbatch answered after the last record), reading what its runner wrote so far into
 * out without the callbacks (*at: where that ends). */
static int start_or_find(fdwd_app *app, const runner_job *job, double time_limit_s,
                         supervise *s, const char *proto, off_t *at)
{
    runner_outcome *out = s->out;
    slurm_row row;
    int adopted = 0;
    const int found = slurm_record_find(app, job->job_id, &row, &adopted, out->why,
                                        sizeof out->why);
    if (found < 0)
        return -1;
    if (found == 1) {
        out->slurm_id = row.slurm_id;
        slurm_read_quietly(proto, at, s);
        char msg[300];
        snprintf(msg, sizeof msg, "following Slurm job %lld %s, at step %ld",
                 (long long)out->slurm_id,
                 adopted ? "(submitted before the daemon stopped, not yet recorded)"
                         : "again (the daemon restarted)",
                 out->last_step);
        if (s->cb->log)
            s->cb->log(s->cb->user, FDW_LOG_INFO, msg);
        return 0;
    }
    char control[CFG_PATH + 32], script[CFG_PATH + 32], log[CFG_PATH + 32], name[96];
    snprintf(control, sizeof control, "%s/control", job->job_dir);
    snprintf(script, sizeof script, "%s/slurm.sh", job->job_dir);
    snprintf(log, sizeof log, "%s/runner.log", job->job_dir);
    unlink(control); /* an earlier attempt's words */
    unlink(proto);   /* this attempt's lines only */
    slurm_record_name(job->job_id, job->attempt, "job", name, sizeof name);
    const slurm_batch b = {.job_id = job->job_id,
                           .name = name,
                           .job_dir = job->job_dir,
                           .script = script,
                           .run_file = job->run_file,
                           .output = proto,
                           .error = log,
                           .ndevices = job->ndevices,
                           .gpus = !job->cpu,
                           .memory_limit = job->memory_limit,
                           .time_limit_s = time_limit_s};
    if (slurm_record_submit(app, job->job_id, "job", &b, &row, out->why, sizeof out->why))
        return -1;
    out->slurm_id = row.slurm_id;
    return 0;
}

/* The whole job as one Slurm job (slurm_run without parts). */
static int run_whole(fdwd_app *app, const runner_job *job, double time_limit_s,
                     const fdw_callbacks *cb, runner_outcome *out)
{
    char proto[CFG_PATH + 32], log[CFG_PATH + 32];
    snprintf(proto, sizeof proto, "%s/runner.proto", job->job_dir);
    snprintf(log, sizeof log, "%s/runner.log", job->job_dir);
    struct stat sb; /* where this attempt's part of runner.log starts */
    const off_t log_start = stat(log, &sb) == 0 ? sb.st_size : 0;
    supervise s;
    if (runlines_init(&s, job->job_id, cb, out)) {
        snprintf(out->why, sizeof out->why, "out of memory");
        return -1;
    }
    off_t at = 0;
    const double t0 = slurm_mono_s();
    if (start_or_find(app, job, time_limit_s, &s, proto, &at)) {
        runlines_free(&s);
        return -1;
    }
    out->started = 1;
    slurm_follow(app, job, &s, proto, at);
    out->wall_s = slurm_mono_s() - t0;
    runlines_tail(log, log_start, out->tail, sizeof out->tail);
    runlines_free(&s);
    return 0;
}

int slurm_run(fdwd_app *app, const runner_job *job, const runfile_job *rf, double time_limit_s,
              const fdw_callbacks *cb, runner_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->res.checkpoint_step = -1;
    slurm_row row; /* a run followed again goes on as it was submitted */
    const int recorded = slurmjobs_get(app, job->job_id, &row) == 1;
    const int parts = slurm_survey_parts(app, job);
    if (recorded ? strcmp(row.role, "job") != 0 : parts > 1)
        return slurm_survey_run(app, job, rf, parts, time_limit_s, cb, out);
    return run_whole(app, job, time_limit_s, cb, out);
}

void slurm_forget(fdwd_app *app, int64_t job_id)
{
    if (slurm_enabled(app))
        slurmjobs_drop(app, job_id);
}

void slurm_sweep(fdwd_app *app)
{
    int64_t jobs[32];
    slurm_row rows[32];
    const int n = slurm_enabled(app) ? slurmjobs_orphans(app, jobs, rows, 32) : 0;
    for (int i = 0; i < n; i++) {
        char why[400];
        slurm_state st;
        int64_t id = rows[i].slurm_id;
        if (id == 0 && slurm_find_named(rows[i].name, &id, why, sizeof why) < 0) {
            log_warn("job %lld: %s", (long long)jobs[i], why);
            continue; /* tried again at the next pass */
        }
        if (id > 0 && slurm_query(id, &st, why, sizeof why) == 0 && st.known && !st.ended &&
            slurm_cancel(id, why, sizeof why) != 0) {
            log_warn("job %lld: %s", (long long)jobs[i], why);
            continue;
        }
        log_info("job %lld: its Slurm job %lld (%s) is no longer followed (the job ended)",
                 (long long)jobs[i], (long long)id, rows[i].name);
        slurmjobs_drop(app, jobs[i]);
    }
}
