/* slurm_survey.c — a survey as a Slurm job array of its parts, then a combining run (see
 * slurm_survey.h). One attempt goes through two phases: the parts (an array of the parts
 * not finished by an earlier attempt, followed together: each part's new lines four
 * times a second, every task's state with one scontrol a second), then the combining run
 * (one Slurm job, followed as a whole job is). What is recorded in the database says
 * where a daemon that restarts takes up: the array ("shots") or the combining run
 * ("combine"); what each part's runner wrote is read back from its protocol file, a part
 * that wrote its result counting as finished. */
#include "sched/slurm_survey.h"
#include "core/log.h"
#include "sched/slurm_cli.h"
#include "sched/slurm_follow.h"
#include "sched/slurm_parts.h"
#include "sched/slurm_record.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int slurm_survey_parts(fdwd_app *app, const runner_job *job)
{
    if (job->shots < 2)
        return 1;
    char path[CFG_PATH + 32];
    snprintf(path, sizeof path, "%s/run.part_0.json", job->job_dir);
    json_t *run = json_load_file(path, 0, NULL);
    const json_int_t was =
        json_integer_value(json_object_get(json_object_get(run, "survey_part"), "parts"));
    json_decref(run);
    if (was >= 2) /* an earlier attempt's split */
        return (int)was;
    return fdw_survey_nparts(job->shots, app->cfg.slurm_survey_tasks);
}

/* A log line of the daemon's on the job's stream. */
static void say(const fdw_callbacks *cb, const char *msg)
{
    if (cb->log)
        cb->log(cb->user, FDW_LOG_INFO, msg);
}

/* The files of one of the survey's Slurm jobs, in the job's directory. */
typedef struct batch_files {
    char name[96], script[CFG_PATH + 32], run[CFG_PATH + 32], proto[CFG_PATH + 32];
    char log[CFG_PATH + 32];
} batch_files;

/* The sbatch of the survey's Slurm job of role ("shots": the array, stem "part_%a" with
 * Slurm's %a for each task; "combine"): slurm_<role>.sh running run.<stem>.json, its lines
 * in <stem>.proto and <stem>.log, named for the job's attempt; the job's devices and
 * limits. */
static slurm_batch batch_of(const runner_job *job, const char *role, const char *stem,
                            double time_limit_s, batch_files *f)
{
    slurm_record_name(job->job_id, job->attempt, role, f->name, sizeof f->name);
    snprintf(f->script, sizeof f->script, "%s/slurm_%s.sh", job->job_dir, role);
    snprintf(f->run, sizeof f->run, "%s/run.%s.json", job->job_dir, stem);
    snprintf(f->proto, sizeof f->proto, "%s/%s.proto", job->job_dir, stem);
    snprintf(f->log, sizeof f->log, "%s/%s.log", job->job_dir, stem);
    return (slurm_batch){.job_id = job->job_id,
                         .name = f->name,
                         .job_dir = job->job_dir,
                         .script = f->script,
                         .run_file = f->run,
                         .output = f->proto,
                         .error = f->log,
                         .ndevices = job->ndevices,
                         .gpus = !job->cpu,
                         .memory_limit = job->memory_limit,
                         .time_limit_s = time_limit_s};
}

/* The run file of one Slurm job of the survey: rf's, with its tag (part_<k>, combine), its
 * own checkpoint directory under the job's and its part. 0, or -1 with why. */
static int write_run_file(fdwd_app *app, const runfile_job *rf, const char *tag, int nparts,
                          int part, char *why, size_t len)
{
    char ckpt[CFG_PATH + 96], path[CFG_PATH + 96];
    snprintf(ckpt, sizeof ckpt, "%s/%s", rf->checkpoint_dir, tag);
    runfile_job j = *rf;
    j.tag = tag;
    j.checkpoint_dir = ckpt;
    j.survey_parts = nparts;
    j.survey_part = part;
    return runfile_write(app, &j, path, sizeof path, why, len);
}

/* Submit the array of the parts that have not finished (their lines and run files made
 * anew). 0, or -1 with out->why. */
static int submit_parts(fdwd_app *app, slurm_parts *sp, const runfile_job *rf,
                        double time_limit_s, runner_outcome *out)
{
    const runner_job *job = sp->job;
    char control[CFG_PATH + 32], tag[32], msg[600];
    snprintf(control, sizeof control, "%s/control", job->job_dir);
    unlink(control); /* an earlier attempt's words */
    slurm_parts_restart(sp);
    for (int k = 0; k < sp->nparts; k++) {
        if (!slurm_parts_unfinished(sp, k))
            continue;
        snprintf(tag, sizeof tag, "part_%d", k);
        if (write_run_file(app, rf, tag, sp->nparts, k, out->why, sizeof out->why))
            return -1;
    }
    char *array = slurm_parts_array(sp);
    if (!array) {
        snprintf(out->why, sizeof out->why, "out of memory");
        return -1;
    }
    batch_files *f = malloc(sizeof *f);
    if (!f) {
        free(array);
        snprintf(out->why, sizeof out->why, "out of memory");
        return -1;
    }
    slurm_batch b = batch_of(job, "shots", "part_%a", time_limit_s, f);
    b.array = array;
    slurm_row row;
    const int rc = slurm_record_submit(app, job->job_id, "shots", &b, &row, out->why,
                                       sizeof out->why);
    if (rc == 0) {
        sp->array_id = row.slurm_id;
        snprintf(msg, sizeof msg, "survey: %d shots in %d parts as Slurm array job %lld "
                 "(tasks %.200s; %d of them finished before)", job->shots, sp->nparts,
                 (long long)row.slurm_id, array, sp->nparts - slurm_parts_unfinished(sp, -1));
        say(sp->cb, msg);
    }
    free(array);
    free(f);
    return rc;
}

/* The combining run: submitted (or the one recorded followed) to its end, its outcome
 * into out with the parts' figures. */
static int combine(fdwd_app *app, slurm_parts *sp, const runfile_job *rf, double time_limit_s,
                   const slurm_row *recorded, runner_outcome *out)
{
    const runner_job *job = sp->job;
    batch_files *f = malloc(sizeof *f);
    supervise s;
    if (!f || runlines_init(&s, job->job_id, sp->cb, out)) {
        free(f);
        snprintf(out->why, sizeof out->why, "out of memory");
        return -1;
    }
    slurm_batch b = batch_of(job, "combine", "combine", time_limit_s, f);
    b.ndevices = 1; /* it runs no shot: one CPU */
    b.gpus = 0;
    off_t at = 0;
    char msg[300];
    slurm_row row = recorded ? *recorded : (slurm_row){0};
    int rc = 0;
    if (recorded) {
        slurm_read_quietly(f->proto, &at, &s);
        snprintf(msg, sizeof msg, "following the survey's combining run, Slurm job %lld, "
                 "again", (long long)row.slurm_id);
    } else {
        unlink(f->proto);
        rc = write_run_file(app, rf, "combine", sp->nparts, FDW_SURVEY_COMBINE, out->why,
                            sizeof out->why) ||
             slurm_record_submit(app, job->job_id, "combine", &b, &row, out->why,
                                 sizeof out->why);
        snprintf(msg, sizeof msg, "survey: its %d parts finished; combining the shots as "
                 "Slurm job %lld", sp->nparts, (long long)row.slurm_id);
    }
    if (rc == 0) {
        say(sp->cb, msg);
        out->slurm_id = row.slurm_id;
        out->started = 1;
        slurm_follow(app, job, &s, f->proto, at);
        runlines_tail(f->log, 0, out->tail, sizeof out->tail);
    }
    runlines_free(&s);
    free(f);
    return rc ? -1 : 0;
}

int slurm_survey_run(fdwd_app *app, const runner_job *job, const runfile_job *rf, int nparts,
                     double time_limit_s, const fdw_callbacks *cb, runner_outcome *out)
{
    const double t0 = slurm_mono_s();
    slurm_parts *sp = slurm_parts_new(app, job, cb, nparts);
    if (!sp) {
        snprintf(out->why, sizeof out->why, "out of memory");
        return -1;
    }
    slurm_row row;
    int adopted = 0, rc = 0;
    const int found = slurm_record_find(app, job->job_id, &row, &adopted, out->why,
                                        sizeof out->why);
    const int combining = found == 1 && strcmp(row.role, "combine") == 0;
    if (found < 0) {
        rc = -1;
    } else if (found == 1 && !combining) { /* the array recorded: followed again */
        sp->array_id = row.slurm_id;
        char msg[300];
        snprintf(msg, sizeof msg, "following the survey's Slurm array job %lld %s",
                 (long long)row.slurm_id,
                 adopted ? "(submitted before the daemon stopped, not yet recorded)"
                         : "again (the daemon restarted)");
        say(cb, msg);
    } else if (!combining && slurm_parts_unfinished(sp, -1) > 0) {
        rc = submit_parts(app, sp, rf, time_limit_s, out);
    }
    int finished = rc == 0;
    if (rc == 0 && sp->array_id > 0) {
        out->started = 1;
        finished = slurm_parts_follow(sp, out);
    }
    if (finished) /* every part has: the combining run */
        rc = combine(app, sp, rf, time_limit_s, combining ? &row : NULL, out);
    out->wall_s = slurm_mono_s() - t0;
    if (rc == 0 && out->have_result && out->st == FDW_OK)
        slurm_parts_result(sp, out);
    slurm_parts_free(sp);
    return rc;
}
