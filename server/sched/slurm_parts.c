/* slurm_parts.c — a survey's parts as the tasks of one Slurm job array (see
 * slurm_parts.h). Each part has its own protocol file and line reader, whose callbacks
 * come here: logs and checkpoints go on to the worker's as they are, progress is kept per
 * part and summed into the survey's (posted at most twice a second, and whenever a shot
 * finishes). A part has ended when its result line has arrived or Slurm says its task
 * ended (or no longer knows it) and its file has been read to the end. */
#include "sched/slurm_parts.h"
#include "core/log.h"
#include "sched/slurm_cli.h"
#include "sched/slurm_follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PART_DEVICES 8 /* devices of a part's progress kept for the survey's */

struct slurm_part {
    slurm_parts *sp;
    int index, first, count;   /* its shots: [first, first + count) */
    int finished;              /* its successful result has arrived */
    int ended;                 /* its result has arrived, or Slurm ended its task */
    char proto[CFG_PATH + 32], log[CFG_PATH + 32];
    off_t at, log_start;       /* read so far; where this attempt's log starts */
    supervise s;
    runner_outcome out;
    fdw_callbacks cb;          /* its lines' callbacks (below), user: the part */
    int has_progress;
    fdw_progress last;
    fdw_device_progress devs[PART_DEVICES];
};

/* ---- the survey's progress from its parts' ---- */

/* The survey's progress: shots done of all its parts (finished parts whole), percent
 * weighted by each part's shots, the lowest-numbered shot under way with its steps and
 * devices, the rates of the parts running summed. Posted when a shot has finished since
 * the last, at most every half second otherwise (force: now). */
static void post_progress(slurm_parts *sp, int force)
{
    fdw_progress p;
    memset(&p, 0, sizeof p);
    const slurm_part *low = NULL;
    double percent = 0.0;
    for (int k = 0; k < sp->nparts; k++) {
        const slurm_part *P = &sp->part[k];
        if (P->finished) {
            p.shots_done += P->count;
            percent += 100.0 * P->count;
            continue;
        }
        if (!P->has_progress)
            continue;
        p.shots_done += P->last.shots_done;
        percent += P->last.percent * P->count;
        if (P->ended)
            continue;
        p.mpts += P->last.mpts;
        p.eta_s = P->last.eta_s > p.eta_s ? P->last.eta_s : p.eta_s;
        if (P->last.shot > 0 && (!low || P->last.shot < low->last.shot))
            low = P;
    }
    const double now = slurm_mono_s();
    if (!force && p.shots_done == sp->posted_done && now - sp->t_post < 0.5)
        return;
    p.nshots = sp->job->shots;
    p.percent = percent / (sp->job->shots > 0 ? sp->job->shots : 1);
    p.elapsed_s = now - sp->t0;
    if (low) {
        p.shot = low->last.shot;
        p.step = low->last.step;
        p.nsteps = low->last.nsteps;
        p.ndevices = low->last.ndevices;
        p.devices = low->devs;
    }
    sp->t_post = now;
    sp->posted_done = p.shots_done;
    if (sp->cb->progress)
        sp->cb->progress(sp->cb->user, &p);
}

/* ---- a part's lines ---- */

static int on_progress(void *user, const fdw_progress *p)
{
    slurm_part *P = user;
    P->last = *p;
    P->last.ndevices = p->ndevices < PART_DEVICES ? p->ndevices : PART_DEVICES;
    if (P->last.ndevices > 0)
        memcpy(P->devs, p->devices, (size_t)P->last.ndevices * sizeof *P->devs);
    P->last.devices = P->devs;
    P->has_progress = 1;
    post_progress(P->sp, 0);
    return 0;
}

static void on_log(void *user, int level, const char *msg)
{
    const slurm_part *P = user;
    if (P->sp->cb->log)
        P->sp->cb->log(P->sp->cb->user, level, msg);
}

static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    const slurm_part *P = user;
    if (P->sp->cb->checkpoint)
        P->sp->cb->checkpoint(P->sp->cb->user, c);
}

/* ---- the parts ---- */

slurm_parts *slurm_parts_new(fdwd_app *app, const runner_job *job, const fdw_callbacks *cb,
                             int nparts)
{
    slurm_parts *sp = calloc(1, sizeof *sp);
    slurm_part *part = calloc((size_t)nparts, sizeof *part);
    slurm_state *states = calloc((size_t)nparts, sizeof *states);
    if (!sp || !part || !states) {
        free(sp);
        free(part);
        free(states);
        return NULL;
    }
    *sp = (slurm_parts){.app = app, .job = job, .cb = cb, .nparts = nparts, .part = part,
                        .states = states};
    for (int k = 0; k < nparts; k++) {
        slurm_part *P = &part[k];
        P->sp = sp;
        P->index = k;
        fdw_survey_part_shots(job->shots, nparts, k, &P->first, &P->count);
        snprintf(P->proto, sizeof P->proto, "%s/part_%d.proto", job->job_dir, k);
        snprintf(P->log, sizeof P->log, "%s/part_%d.log", job->job_dir, k);
        P->cb = (fdw_callbacks){.progress = on_progress, .log = on_log,
                                .checkpoint = on_checkpoint, .user = P};
        if (runlines_init(&P->s, job->job_id, &P->cb, &P->out)) {
            sp->nparts = k;
            slurm_parts_free(sp);
            return NULL;
        }
        P->out.res.checkpoint_step = -1;
        slurm_read_quietly(P->proto, &P->at, &P->s);
        P->finished = P->ended = P->out.have_result && P->out.st == FDW_OK;
        struct stat sb;
        P->log_start = stat(P->log, &sb) == 0 ? sb.st_size : 0;
    }
    return sp;
}

void slurm_parts_free(slurm_parts *sp)
{
    if (!sp)
        return;
    for (int k = 0; k < sp->nparts; k++)
        runlines_free(&sp->part[k].s);
    free(sp->part);
    free(sp->states);
    free(sp);
}

int slurm_parts_unfinished(const slurm_parts *sp, int k)
{
    if (k >= 0)
        return !sp->part[k].finished;
    int n = 0;
    for (int q = 0; q < sp->nparts; q++)
        n += !sp->part[q].finished;
    return n;
}

void slurm_parts_restart(slurm_parts *sp)
{
    for (int k = 0; k < sp->nparts; k++) {
        slurm_part *P = &sp->part[k];
        if (P->finished)
            continue;
        unlink(P->proto); /* this attempt's lines only */
        P->at = 0;
        P->ended = P->has_progress = 0;
        memset(&P->out, 0, sizeof P->out);
        P->out.res.checkpoint_step = -1;
    }
}

char *slurm_parts_array(const slurm_parts *sp)
{
    char *list = malloc((size_t)sp->nparts * 12 + 1);
    if (!list)
        return NULL;
    size_t n = 0;
    list[0] = '\0';
    for (int k = 0; k < sp->nparts; k++) {
        if (sp->part[k].finished)
            continue;
        int last = k; /* a run of unfinished parts as one range */
        while (last + 1 < sp->nparts && !sp->part[last + 1].finished)
            last++;
        n += (size_t)sprintf(list + n, n ? ",%d" : "%d", k);
        if (last > k)
            n += (size_t)sprintf(list + n, "-%d", last);
        k = last;
    }
    return list;
}

/* Whether part P's end fails the survey (not one the attempt rules run again, nor a
 * cancellation): the others then stop. */
static int part_failed(const slurm_part *P)
{
    if (P->out.have_result)
        return P->out.st != FDW_OK && P->out.st != FDW_ERR_CANCELLED;
    char reason[64];
    return slurm_ending(&P->out, 0, 0, reason, sizeof reason) == SLURM_END_FAILED;
}

/* Part P has ended: said on the job's stream with its array task and how. */
static void end_part(slurm_parts *sp, slurm_part *P)
{
    P->ended = 1;
    P->finished = P->out.have_result && P->out.st == FDW_OK;
    P->out.slurm_id = sp->array_id;
    snprintf(P->out.slurm_job, sizeof P->out.slurm_job, "%lld_%d", (long long)sp->array_id,
             P->index);
    runlines_tail(P->log, P->log_start, P->out.tail, sizeof P->out.tail);
    char msg[900], how[700];
    if (P->finished)
        snprintf(how, sizeof how, "finished: %d shots (%d found done) in %.2f s",
                 P->out.res.shots_done, P->out.res.shots_resumed, P->out.res.elapsed_s);
    else if (P->out.have_result)
        snprintf(how, sizeof how, "ended: %.200s%s%.400s", P->out.err.field,
                 P->out.err.field[0] ? ": " : "", P->out.err.message);
    else
        snprintf(how, sizeof how, "ended %s without its result", P->out.slurm_state);
    snprintf(msg, sizeof msg, "survey part %d of %d (its shots %d-%d of %d), Slurm job %s, %s",
             P->index + 1, sp->nparts, P->first + 1, P->first + P->count, sp->job->shots,
             P->out.slurm_job, how);
    if (sp->cb->log)
        sp->cb->log(sp->cb->user, P->finished ? FDW_LOG_INFO : FDW_LOG_WARN, msg);
    post_progress(sp, 1);
}

/* The tasks' states from Slurm (once a second): the parts whose task ended, or that Slurm
 * no longer knows, end once their files are read. */
static void ask_slurm(slurm_parts *sp)
{
    slurm_state *st = sp->states;
    char why[400];
    if (slurm_query_tasks(sp->array_id, sp->nparts, st, why, sizeof why) != 0) {
        log_warn("job %lld: %s", (long long)sp->job->job_id, why);
        return; /* asked again in a second; Slurm's controller may be restarting */
    }
    for (int k = 0; k < sp->nparts; k++) {
        slurm_part *P = &sp->part[k];
        if (P->ended || (st[k].known && !st[k].ended))
            continue;
        slurm_read_new(P->proto, &P->at, &P->s); /* what it wrote before it ended */
        snprintf(P->out.slurm_state, sizeof P->out.slurm_state, "%s",
                 st[k].known ? st[k].state : "GONE");
        P->out.slurm_exit = st[k].exit_code;
        P->out.slurm_signal = st[k].signal;
        end_part(sp, P);
    }
}

/* How the parts ended, into out: 1 when every part finished; else 0 and the outcome of the
 * part that says most: a failure it reported, one Slurm ended that fails the job, one
 * Slurm ended otherwise (run again by the attempt rules), a suspended one. A cancelled
 * survey (the worker's cancel or wall time) ended by scancel of the whole array. */
static int outcome(const slurm_parts *sp, int cancelled, runner_outcome *out)
{
    const slurm_part *pick = NULL;
    int rank = 0;
    for (int k = 0; k < sp->nparts; k++) {
        const slurm_part *P = &sp->part[k];
        if (P->finished)
            continue;
        const int r = P->out.have_result ? (P->out.st == FDW_ERR_CANCELLED ? 1 : 4)
                      : part_failed(P)    ? 3
                                          : 2;
        if (r > rank)
            rank = r, pick = P;
    }
    if (!pick)
        return 1;
    *out = pick->out;
    out->started = 1;
    if (cancelled) { /* slurm_ending: "... Slurm job <array> scancelled" */
        out->have_result = 0;
        snprintf(out->slurm_job, sizeof out->slurm_job, "%lld", (long long)sp->array_id);
    }
    return 0;
}

int slurm_parts_follow(slurm_parts *sp, runner_outcome *out)
{
    const fdw_callbacks *cb = sp->cb;
    int told_cancel = 0, told_suspend = 0, stopped = 0;
    double next_ask = 0;
    sp->t0 = slurm_mono_s();
    for (;;) {
        int open = 0, failed = 0;
        for (int k = 0; k < sp->nparts; k++) {
            slurm_part *P = &sp->part[k];
            if (!P->ended)
                slurm_read_new(P->proto, &P->at, &P->s);
            if (!P->ended && P->out.have_result)
                end_part(sp, P);
            open += !P->ended;
            failed |= P->ended && !P->finished && part_failed(P);
        }
        if (!open)
            break;
        if (atomic_load(&sp->app->shutting_down)) {
            memset(out, 0, sizeof *out);
            out->started = out->detached = 1;
            out->slurm_id = sp->array_id;
            return 0;
        }
        char why[400];
        if (!told_cancel && cb->cancelled && cb->cancelled(cb->user)) {
            told_cancel = slurm_cancel(sp->array_id, why, sizeof why) == 0;
            if (!told_cancel)
                log_warn("job %lld: %s", (long long)sp->job->job_id, why);
        } else if (failed && !stopped) { /* the others stop, as a whole run's shots do */
            stopped = slurm_cancel(sp->array_id, why, sizeof why) == 0;
            if (!stopped)
                log_warn("job %lld: %s", (long long)sp->job->job_id, why);
        } else if (!told_suspend && cb->suspend && cb->suspend(cb->user)) {
            slurm_tell(sp->job->job_dir, "suspend"); /* every part: a checkpoint, its result */
            told_suspend = 1;
        }
        if (slurm_mono_s() >= next_ask) {
            next_ask = slurm_mono_s() + 1.0;
            ask_slurm(sp);
        }
        struct timespec ts = {0, 250000000};
        nanosleep(&ts, NULL);
    }
    return outcome(sp, told_cancel, out);
}

void slurm_parts_result(const slurm_parts *sp, runner_outcome *out)
{
    fdw_result *r = &out->res;
    long steps = 0;
    int resumed = 0;
    double work = 0.0; /* Mpoints done: each part's rate times its time */
    for (int k = 0; k < sp->nparts; k++) {
        const slurm_part *P = &sp->part[k]; /* as its result line says, whenever it ran */
        steps += P->out.res.steps_done;
        resumed += P->out.res.shots_resumed;
        work += P->out.res.mpts * P->out.res.elapsed_s;
        if (P->out.peak_rss > out->peak_rss)
            out->peak_rss = P->out.peak_rss;
        if (P->out.res.backend[0])
            snprintf(r->backend, sizeof r->backend, "%s", P->out.res.backend);
    }
    r->steps_done = steps;
    r->elapsed_s = out->wall_s;
    r->mpts = out->wall_s > 0 ? work / out->wall_s : 0.0;
    r->nshots = r->shots_done = sp->job->shots;
    r->shots_resumed = resumed;
}
