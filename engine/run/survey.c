/* survey.c — fdw_run of a survey (survey.h): the model read once; the devices split into
 * groups (survey_plan.c); each group runs one shot at a time, taking the next unfinished
 * shot in shot order, as a single-shot run (fdw_run_single) of a spec derived from the
 * survey's: that shot's source and receivers, its number (the gathers' FFID), the model
 * read once, its own working directory and checkpoint directory. One group runs on the
 * calling thread; more run on a thread each. The caller's callbacks are called under one
 * mutex, whichever thread calls: progress reports the survey (shots done / total, the
 * current shot's steps), logs name the shot, a cancellation or suspension reaches every
 * shot under way. A shot that completes has its files moved into place and recorded at
 * once (survey_out.c), so a cancelled survey keeps its finished shots and a restarted one
 * resumes at the first unfinished shot (and within a shot from its checkpoint).
 *
 * A survey in parts (fdw_run_opts.survey_parts) runs one part's shots alone, as above
 * but over [first, last) only, reporting that part's progress; or, in the combining run,
 * no shot at all: the finished shots' files make the survey's outputs (survey_out.c). */
#include "run/survey.h"

#include "core/error.h"
#include "kinds/kind.h"
#include "model/model_io.h"
#include "run/backend.h"
#include "run/progress.h"
#include "run/run_state.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

typedef struct survey_run survey_run;

/* One group of devices and the shot it runs. */
typedef struct group {
    survey_run *sr;
    int index;
    const int *ids;            /* its devices */
    int ndev;
    int threads;               /* CPU threads of its runs (0: default) */
    int shot;                  /* index of the shot under way; -1: none */
    long step, nsteps;         /* of that shot, as last reported */
    double mpts;
    int ndevs_seen;
    fdw_device_progress devs[FDW_MAX_DEVICES];
    pthread_t thread;
} group;

struct survey_run {
    const fdw_spec *spec;
    const fdw_run_opts *opts;
    const fdw_callbacks *cb;
    int ids[FDW_MAX_DEVICES], ndev;
    fdw_survey_layout lay;
    group groups[FDW_MAX_DEVICES];
    float *model;
    void *kind_cache;          /* the kind's share (kind.h), or NULL */
    unsigned char *done;
    fdw_survey_mode mode;      /* the whole survey, one part, or the combining run */
    int first, last;           /* the shots of this run: [first, last) */
    fdw_survey_out *out;
    pthread_mutex_t mu;        /* everything below, and every call of the caller's callbacks */
    int next;                  /* the first shot no group has taken */
    int ndone, ndone_start;    /* shots finished; of them, found finished at the start */
    int logged_shot;           /* the shot whose run's own log lines are passed on (-1: none yet) */
    int stop;                  /* no new shot: cancelled, suspended or failed */
    int cancel;                /* the shots under way are asked to stop (progress said so,
                                  or a shot failed) */
    int suspended;
    fdw_status st;             /* the first failure */
    fdw_error err;
    long steps;                /* steps run by this process */
    long shot_steps;           /* a shot's run loop (its kind's count; nt until a shot says) */
    double t0, t_report;
    char backend[16];
};

/* ---- the caller's callbacks, for every shot (under sr->mu) ---- */

static void log_line(survey_run *sr, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void log_line(survey_run *sr, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fdw_log_via(sr->cb, level, fmt, ap);
    va_end(ap);
}

/* The survey's progress: the lowest-numbered shot under way (its steps), the share of all
 * shots' steps done, the rate of every group. Returns what the progress callback does. */
static int report(survey_run *sr)
{
    const fdw_spec *spec = sr->spec;
    const int nshots = sr->last - sr->first;
    fdw_progress p;
    memset(&p, 0, sizeof p);
    fdw_device_progress devs[FDW_MAX_DEVICES];
    const group *cur = NULL;
    double running = 0.0;
    for (int g = 0; g < sr->lay.ngroups; g++) {
        const group *G = &sr->groups[g];
        if (G->shot < 0)
            continue;
        running += (double)G->step;
        p.mpts += G->mpts;
        for (int d = 0; d < G->ndevs_seen && p.ndevices < FDW_MAX_DEVICES; d++)
            devs[p.ndevices++] = G->devs[d];
        if (!cur || G->shot < cur->shot)
            cur = G;
    }
    const double nt = (double)(sr->shot_steps > 0 ? sr->shot_steps : 1);
    const double all = nt * nshots, before = nt * sr->ndone_start;
    const double done = nt * sr->ndone + running;
    p.nshots = nshots;
    p.shots_done = sr->ndone;
    p.shot = cur ? spec->survey->shots[cur->shot].number : 0;
    p.step = cur ? cur->step : 0;
    p.nsteps = cur ? cur->nsteps : sr->shot_steps;
    p.percent = 100.0 * done / all;
    p.elapsed_s = fdw_now() - sr->t0;
    p.eta_s = done > before ? p.elapsed_s * (all - done) / (done - before) : 0.0;
    p.devices = devs;
    sr->t_report = fdw_now();
    return sr->cb && sr->cb->progress && sr->cb->progress(sr->cb->user, &p) != 0;
}

static int on_progress(void *user, const fdw_progress *p)
{
    group *G = user;
    survey_run *sr = G->sr;
    pthread_mutex_lock(&sr->mu);
    G->step = p->step;
    G->nsteps = p->nsteps;
    sr->shot_steps = p->nsteps;
    G->mpts = p->mpts;
    G->ndevs_seen = p->ndevices < FDW_MAX_DEVICES ? p->ndevices : FDW_MAX_DEVICES;
    memcpy(G->devs, p->devices, (size_t)G->ndevs_seen * sizeof *G->devs);
    const double every = sr->cb->progress_interval_s > 0 ? sr->cb->progress_interval_s : 0.5;
    if (fdw_now() - sr->t_report >= every && report(sr))
        sr->cancel = sr->stop = 1;
    const int stop = sr->cancel;
    pthread_mutex_unlock(&sr->mu);
    return stop;
}

/* A shot's run logs: warnings and errors always, naming the shot; its set-up lines (the
 * backend, the slabs, the memory) only for the first shot this process runs. */
static void on_log(void *user, int level, const char *msg)
{
    group *G = user;
    survey_run *sr = G->sr;
    pthread_mutex_lock(&sr->mu);
    if (sr->logged_shot < 0)
        sr->logged_shot = G->shot;
    if (level >= FDW_LOG_WARN || sr->logged_shot == G->shot)
        log_line(sr, level, "shot %d: %s", sr->spec->survey->shots[G->shot].number, msg);
    pthread_mutex_unlock(&sr->mu);
}

static int on_cancelled(void *user)
{
    group *G = user;
    survey_run *sr = G->sr;
    pthread_mutex_lock(&sr->mu);
    if (!sr->cancel && sr->cb->cancelled && sr->cb->cancelled(sr->cb->user))
        sr->cancel = sr->stop = 1;
    const int stop = sr->cancel;
    pthread_mutex_unlock(&sr->mu);
    return stop;
}

static int on_suspend(void *user)
{
    group *G = user;
    survey_run *sr = G->sr;
    pthread_mutex_lock(&sr->mu);
    const int s = sr->cb->suspend && sr->cb->suspend(sr->cb->user);
    pthread_mutex_unlock(&sr->mu);
    return s;
}

static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    group *G = user;
    survey_run *sr = G->sr;
    pthread_mutex_lock(&sr->mu);
    if (c->resumed)
        log_line(sr, FDW_LOG_INFO, "shot %d resumed at step %ld of %ld",
                 sr->spec->survey->shots[G->shot].number, c->step, c->nsteps);
    if (sr->cb->checkpoint)
        sr->cb->checkpoint(sr->cb->user, c);
    pthread_mutex_unlock(&sr->mu);
}

/* A stack's partial slices after count shots (survey_out.c, under its lock): the
 * caller's snapshot, index count - 1. */
static void on_partial(void *user, int count, int nfiles, const char *const *files)
{
    survey_run *sr = user;
    pthread_mutex_lock(&sr->mu);
    if (sr->cb->snapshot) {
        const fdw_snapshot_info si = {.index = count - 1, .step = sr->spec->nt,
                                      .time = (double)sr->spec->nt * sr->spec->dt,
                                      .nfiles = nfiles, .files = files};
        sr->cb->snapshot(sr->cb->user, &si);
    }
    log_line(sr, FDW_LOG_INFO, "survey: the first %d of %d shots stacked", count,
             sr->spec->survey->nshots);
    pthread_mutex_unlock(&sr->mu);
}

/* ---- one shot ---- */

/* The single-shot spec of shot i: the survey's with that source, receivers and number,
 * the model read once, the group's device count. Fills *recs (owned, for a moving
 * layout) and *json (owned). */
static fdw_status shot_spec(survey_run *sr, const group *G, int i, fdw_spec *s, fdw_source *src,
                            fdw_receiver **recs, char **json, fdw_error *err)
{
    const fdw_spec *spec = sr->spec;
    const fdw_survey *sv = spec->survey;
    const fdw_shot *S = &sv->shots[i];
    *s = *spec;
    s->survey = NULL;
    s->shot_number = S->number;
    s->shot_trace0 = 0;
    for (int q = 0; q < i; q++)
        s->shot_trace0 += sv->shots[q].nreceivers;
    s->model_cache = sr->model;
    s->kind_cache = sr->kind_cache;
    *src = sv->wavelets[S->wavelet];
    memcpy(src->pos, S->pos, sizeof src->pos);
    s->nsources = 1;
    s->sources = src;
    s->nwarnings = 0; /* the survey's were logged once */
    s->warnings = NULL;
    *recs = NULL;
    if (sv->moving) {
        *recs = malloc((size_t)S->nreceivers * sizeof **recs);
        if (!*recs)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for shot %d's "
                            "receivers", S->number);
        s->nreceivers = fdw_survey_receivers(spec, i, *recs);
        s->receivers = *recs;
    }
    /* its own text, so that a checkpoint of one shot is never resumed by another */
    const size_t len = strlen(spec->json ? spec->json : "") + 32;
    *json = malloc(len);
    if (!*json)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory");
    snprintf(*json, len, "%s\nshot %d", spec->json ? spec->json : "", S->number);
    s->json = *json;
    s->ndevices = G->ndev;
    s->device_ids_given = 1;
    memcpy(s->device_ids, G->ids, (size_t)G->ndev * sizeof(int));
    return fdw_plan_slabs(spec->nz, spec->radius, G->ndev, G->ids, &s->plan, err);
}

/* Run shot i on group G; its files into place when it completes. */
static fdw_status run_shot(survey_run *sr, group *G, int i, fdw_result *res, fdw_error *err)
{
    fdw_spec s;
    fdw_source src;
    fdw_receiver *recs = NULL;
    char *json = NULL, dir[FDW_PATH_MAX + 64], ckdir[FDW_PATH_MAX + 64];
    fdw_status st = shot_spec(sr, G, i, &s, &src, &recs, &json, err);
    fdw_run_opts o = *sr->opts;
    fdw_checkpoint_opts ck;
    fdw_survey_out_shot_dir(sr->out, i, dir, sizeof dir);
    o.out_dir = dir;
    o.device_ids = G->ids;
    o.ndevice_ids = G->ndev;
    o.threads = G->threads;
    if (sr->opts->checkpoint && sr->opts->checkpoint->dir) {
        ck = *sr->opts->checkpoint;
        snprintf(ckdir, sizeof ckdir, "%s/shot_%d", sr->opts->checkpoint->dir,
                 sr->spec->survey->shots[i].number);
        ck.dir = ckdir;
        o.checkpoint = &ck;
    }
    fdw_callbacks cb = {.progress = on_progress,
                        .log = on_log,
                        .cancelled = on_cancelled,
                        .suspend = on_suspend,
                        .checkpoint = on_checkpoint,
                        .user = G,
                        .progress_interval_s = sr->cb ? sr->cb->progress_interval_s : 0};
    if (st == FDW_OK)
        st = fdw_run_single(&s, &o, &cb, res, err);
    if (st == FDW_OK)
        st = fdw_survey_out_shot_done(sr->out, i, err);
    if (st == FDW_OK && o.checkpoint)
        rmdir(ckdir); /* its run removed the checkpoint files */
    free(recs);
    free(json);
    return st;
}

/* The next shot for a group: the first unfinished one no group has taken, unless the
 * survey stops (or is asked to, between shots). -1: none. Under sr->mu. */
static int take_shot(survey_run *sr)
{
    const fdw_callbacks *cb = sr->cb;
    if (!sr->stop && cb && cb->cancelled && cb->cancelled(cb->user))
        sr->stop = 1;
    if (!sr->stop && cb && cb->suspend && cb->suspend(cb->user))
        sr->stop = sr->suspended = 1;
    while (!sr->stop && sr->next < sr->last && sr->done[sr->next])
        sr->next++;
    if (sr->stop || sr->next >= sr->last)
        return -1;
    return sr->next++;
}

static void *group_main(void *arg)
{
    group *G = arg;
    survey_run *sr = G->sr;
    if (G->threads > 0)
        omp_set_num_threads(G->threads);
    for (;;) {
        pthread_mutex_lock(&sr->mu);
        const int i = take_shot(sr);
        G->shot = i;
        G->step = 0;
        G->nsteps = sr->shot_steps;
        G->ndevs_seen = 0;
        pthread_mutex_unlock(&sr->mu);
        if (i < 0)
            break;
        fdw_result res;
        fdw_error err;
        memset(&res, 0, sizeof res);
        fdw_error_clear(&err);
        const double t = fdw_now();
        fdw_status st = run_shot(sr, G, i, &res, &err);
        const fdw_shot *S = &sr->spec->survey->shots[i];
        pthread_mutex_lock(&sr->mu);
        sr->steps += res.steps_done - res.resumed_step;
        snprintf(sr->backend, sizeof sr->backend, "%s", res.backend);
        G->shot = -1;
        if (st == FDW_OK) {
            sr->ndone++;
            log_line(sr, FDW_LOG_INFO, "shot %d (%d of %d) done in %.2f s: source (%g, %g, %g) "
                     "m, %d receivers", S->number, sr->ndone, sr->last - sr->first,
                     fdw_now() - t, S->pos[0], S->pos[1], S->pos[2], S->nreceivers);
            if (report(sr))
                sr->cancel = sr->stop = 1;
        } else {
            sr->stop = 1;
            if (st == FDW_ERR_CANCELLED) {
                sr->suspended |= res.suspended;
            } else {
                sr->cancel = 1; /* the other shots under way stop too */
            }
            if (sr->st == FDW_OK || (sr->st == FDW_ERR_CANCELLED && st != FDW_ERR_CANCELLED)) {
                sr->st = st;
                sr->err = err;
                if (st != FDW_ERR_CANCELLED) {
                    const size_t cap = sizeof sr->err.message;
                    snprintf(sr->err.message, cap, "shot %d: %.*s", S->number,
                             (int)(cap - 16), err.message);
                }
            }
        }
        pthread_mutex_unlock(&sr->mu);
    }
    return NULL;
}

/* ---- the survey ---- */

/* The job's devices, as fdw_run uses them: the caller's list, the spec's, or 0..n-1. */
static void device_list(survey_run *sr)
{
    const fdw_run_opts *o = sr->opts;
    const fdw_spec *spec = sr->spec;
    if (o->device_ids && o->ndevice_ids > 0) {
        sr->ndev = o->ndevice_ids < FDW_MAX_DEVICES ? o->ndevice_ids : FDW_MAX_DEVICES;
        memcpy(sr->ids, o->device_ids, (size_t)sr->ndev * sizeof(int));
        return;
    }
    sr->ndev = spec->ndevices >= 1 ? spec->ndevices : 1;
    for (int d = 0; d < sr->ndev; d++)
        sr->ids[d] = spec->device_ids_given ? spec->device_ids[d] : d;
}

/* The groups: GPUs (when the run will use them) by their free memory, CPU virtual devices
 * by the host's budget; a forced count from the tuning. */
static void plan_groups(survey_run *sr)
{
    const fdw_spec *spec = sr->spec;
    const fdw_run_opts *o = sr->opts;
    const int forced = o->tuning ? o->tuning->survey_groups : 0;
    const int ngpu = fdw_kind_on_cuda(spec->kind) && fdw_cuda_backend() ? fdw_gpu_count() : 0;
    int max_id = 0;
    for (int d = 0; d < sr->ndev; d++)
        max_id = sr->ids[d] > max_id ? sr->ids[d] : max_id;
    const int gpu = o->backend == FDW_BACKEND_CUDA ||
                    (o->backend == FDW_BACKEND_AUTO && ngpu >= sr->ndev && max_id < ngpu);
    uint64_t cap[FDW_MAX_DEVICES];
    for (int d = 0; gpu && d < sr->ndev; d++) {
        fdw_device_info info;
        fdw_error e;
        cap[d] = fdw_gpu_info(sr->ids[d], &info, &e) == FDW_OK ? info.free_bytes : 0;
    }
    fdw_survey_layout_make(spec, sr->ndev, gpu ? cap : NULL, fdw_survey_host_budget(), forced,
                           &sr->lay);
    const int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    for (int g = 0; g < sr->lay.ngroups; g++) {
        group *G = &sr->groups[g];
        G->sr = sr;
        G->index = g;
        G->ids = &sr->ids[sr->lay.first[g]];
        G->ndev = sr->lay.count[g];
        G->shot = -1;
        /* CPU: the threads shared out among the groups running at once */
        G->threads = sr->lay.ngroups > 1 ? (threads / sr->lay.ngroups > 0
                                                ? threads / sr->lay.ngroups
                                                : 1)
                                         : o->threads;
    }
    fdw_spec view;
    fdw_survey_shot_view(spec, sr->lay.count[0], &view);
    char what[96] = "survey";
    if (sr->mode == FDW_SURVEY_PART)
        snprintf(what, sizeof what, "survey part %d of %d (shots %d-%d of %d)",
                 sr->opts->survey_part + 1, sr->opts->survey_parts,
                 spec->survey->shots[sr->first].number,
                 spec->survey->shots[sr->last - 1].number, spec->survey->nshots);
    log_line(sr, FDW_LOG_INFO,
             "%s: %d shots on %d device%s: %s (a shot needs %.1f MiB on each of %d "
             "device%s)",
             what, sr->last - sr->first, sr->ndev, sr->ndev == 1 ? "" : "s",
             sr->lay.ngroups > 1 ? "in parallel" : "one after another",
             (double)fdw_spec_device_bytes_max(&view) / (1024.0 * 1024.0), sr->lay.count[0],
             sr->lay.count[0] == 1 ? "" : "s");
    if (sr->lay.ngroups > 1)
        log_line(sr, FDW_LOG_INFO, "survey: %d groups of %d device%s, one shot each at a time",
                 sr->lay.ngroups, sr->lay.count[0], sr->lay.count[0] == 1 ? "" : "s");
}

/* Read the model once for every shot, and make what the kind shares between shots. */
static fdw_status read_model(survey_run *sr, fdw_error *err)
{
    const size_t n = (size_t)fdw_spec_points(sr->spec);
    sr->model = malloc(n * sizeof(float));
    if (!sr->model)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the model (%.1f MiB)",
                        (double)n * 4.0 / (1024.0 * 1024.0));
    fdw_status st = fdw_model_load(sr->spec, sr->model, err);
    const fdw_kind_ops *k = sr->spec->kind;
    if (st == FDW_OK && k->problem.share)
        st = k->problem.share(sr->spec, sr->model, &sr->kind_cache, err);
    return st;
}

/* The manifest's result, fdw_result. */
static void finish_result(survey_run *sr, int completed, double wall, fdw_result *result)
{
    const fdw_spec *spec = sr->spec;
    const double mpts = wall > 0 ? (double)fdw_spec_points(spec) * (double)sr->steps / wall / 1e6
                                 : 0.0;
    char json[768];
    snprintf(json, sizeof json,
             "{\"completed\": %s, \"nshots\": %d, \"shots_done\": %d, \"shots_resumed\": %d, "
             "\"nsteps\": %ld, \"steps\": %ld, \"elapsed_s\": %.6f, \"mpts\": %.3f, "
             "\"backend\": \"%s\", \"devices\": %d, \"groups\": %d}",
             completed ? "true" : "false", sr->last - sr->first, sr->ndone, sr->ndone_start,
             spec->nt, sr->steps, wall, mpts, sr->backend[0] ? sr->backend : "none", sr->ndev,
             sr->lay.ngroups);
    fdw_error ignored;
    fdw_error_clear(&ignored);
    if (sr->out && fdw_survey_out_finish(sr->out, completed, json, &ignored) != FDW_OK &&
        sr->st == FDW_OK) {
        sr->st = ignored.code;
        sr->err = ignored;
    }
    if (!result)
        return;
    result->steps_done = sr->steps;
    result->elapsed_s = wall;
    result->mpts = mpts;
    snprintf(result->backend, sizeof result->backend, "%s", sr->backend[0] ? sr->backend : "cpu");
    /* what a resume starts from: the shots recorded as finished, in steps */
    result->checkpoint_step =
        sr->opts->checkpoint && sr->opts->checkpoint->dir ? (long)sr->ndone * spec->nt : -1;
    result->suspended = sr->suspended;
    result->nshots = sr->last - sr->first;
    result->shots_done = sr->ndone;
    result->shots_resumed = sr->ndone_start;
    result->groups = sr->lay.ngroups;
}

/* Which shots this run has and what it makes of them (fdw_run_opts.survey_parts): the
 * whole survey; one part's shots (fdw_survey_part_shots); or none, the combining run. */
static fdw_status survey_range(survey_run *sr, fdw_error *err)
{
    const fdw_run_opts *o = sr->opts;
    const int nshots = sr->spec->survey->nshots;
    sr->mode = FDW_SURVEY_WHOLE;
    sr->first = 0;
    sr->last = nshots;
    if (o->survey_parts <= 1)
        return FDW_OK;
    if (o->survey_part == FDW_SURVEY_COMBINE) {
        sr->mode = FDW_SURVEY_JOIN;
        return FDW_OK;
    }
    const int nparts = fdw_survey_nparts(nshots, o->survey_parts);
    if (o->survey_part < 0 || o->survey_part >= nparts)
        return fdw_fail(err, FDW_ERR_SPEC, "survey_part",
                        "survey part %d does not exist: a survey of %d shots in %d parts has "
                        "parts 0 to %d", o->survey_part, nshots, o->survey_parts, nparts - 1);
    int count = 0;
    fdw_survey_part_shots(nshots, nparts, o->survey_part, &sr->first, &count);
    sr->mode = FDW_SURVEY_PART;
    sr->next = sr->first;
    sr->last = sr->first + count;
    return FDW_OK;
}

/* The shots of this run on every group of devices, group 0 on the calling thread. */
static void run_groups(survey_run *sr)
{
    int started = 0;
    const int threads = omp_get_max_threads(); /* group 0 runs on this thread */
    for (int g = 1; g < sr->lay.ngroups; g++)
        if (pthread_create(&sr->groups[g].thread, NULL, group_main, &sr->groups[g]) == 0)
            started = g;
        else
            break; /* the groups started share the shots */
    group_main(&sr->groups[0]);
    for (int g = 1; g <= started; g++)
        pthread_join(sr->groups[g].thread, NULL);
    omp_set_num_threads(threads);
    const int nshots = sr->last - sr->first;
    if (sr->st == FDW_OK && sr->ndone < nshots) /* stopped between shots */
        sr->st = fdw_fail(&sr->err, FDW_ERR_CANCELLED, NULL, "%s after %d of %d shots",
                          sr->suspended ? "suspended" : "cancelled", sr->ndone, nshots);
}

/* The combining run: no shot run; every shot's files taken into the survey's outputs. */
static void join_parts(survey_run *sr)
{
    sr->st = fdw_survey_out_join(sr->out, &sr->err);
    if (sr->st == FDW_OK) {
        sr->ndone = sr->last - sr->first;
        sr->ndone_start = 0;
        log_line(sr, FDW_LOG_INFO, "survey: the %d shots of its parts combined", sr->ndone);
    }
}

fdw_status fdw_survey_run(const fdw_spec *spec, const fdw_run_opts *opts,
                          const fdw_callbacks *cb, fdw_result *result, fdw_error *err)
{
    static const fdw_callbacks none;
    if (opts->comm && opts->comm->size > 1)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "survey",
                        "a survey runs in one process (its shots share the devices); run it "
                        "without MPI");
    survey_run *sr = calloc(1, sizeof *sr);
    const int nshots = spec->survey->nshots;
    unsigned char *done = calloc((size_t)nshots, 1);
    if (!sr || !done) {
        free(sr);
        free(done);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the survey");
    }
    sr->spec = spec;
    sr->opts = opts;
    sr->cb = cb ? cb : &none;
    sr->done = done;
    sr->logged_shot = -1;
    sr->shot_steps = spec->nt;
    sr->t0 = fdw_now();
    pthread_mutex_init(&sr->mu, NULL);
    fdw_status st = survey_range(sr, &sr->err);
    const int join = sr->mode == FDW_SURVEY_JOIN;
    for (int w = 0; st == FDW_OK && !join && w < fdw_spec_warning_count(spec); w++)
        log_line(sr, FDW_LOG_WARN, "%s", fdw_spec_warning(spec, w));
    if (st == FDW_OK && !join) {
        device_list(sr);
        plan_groups(sr);
    }
    const fdw_checkpoint_opts *ck = opts->checkpoint;
    const char *ckdir = ck && ck->dir ? ck->dir : NULL;
    if (st == FDW_OK)
        st = fdw_run_make_dirs(opts->out_dir, &sr->err);
    if (st == FDW_OK && ckdir)
        st = fdw_run_make_dirs(ckdir, &sr->err);
    if (st == FDW_OK) {
        sr->out = fdw_survey_out_new(spec, sr->mode, opts->out_dir, ckdir, ck && ck->resume,
                                     done);
        if (!sr->out)
            st = fdw_fail(&sr->err, FDW_ERR_NOMEM, NULL, "out of host memory for the survey");
        else
            fdw_survey_out_on_partial(sr->out, on_partial, sr);
    }
    if (st == FDW_OK && !join) {
        for (int i = sr->first; i < sr->last; i++)
            sr->ndone_start += done[i];
        sr->ndone = sr->ndone_start;
        if (sr->ndone_start > 0)
            log_line(sr, FDW_LOG_INFO, "survey resumed: %d of %d shots were finished",
                     sr->ndone_start, sr->last - sr->first);
        if (sr->ndone < sr->last - sr->first) /* a part whose shots are all done reads none */
            st = read_model(sr, &sr->err);
    }
    sr->st = st;
    if (st == FDW_OK && join)
        join_parts(sr);
    else if (st == FDW_OK)
        run_groups(sr);
    const int completed = sr->st == FDW_OK;
    if (sr->st == FDW_ERR_CANCELLED) /* the message says how far the survey got */
        snprintf(sr->err.message, sizeof sr->err.message, "%s after %d of %d shots",
                 sr->suspended ? "suspended" : "cancelled", sr->ndone, sr->last - sr->first);
    finish_result(sr, completed, fdw_now() - sr->t0, result);
    if (sr->st == FDW_OK && sr->out && !(ck && ck->keep))
        fdw_survey_out_forget(sr->out);
    if (sr->st != FDW_OK)
        log_line(sr, sr->st == FDW_ERR_CANCELLED ? FDW_LOG_INFO : FDW_LOG_ERROR, "survey %s",
                 sr->err.message);
    st = sr->st;
    *err = sr->err;
    fdw_survey_out_free(sr->out);
    pthread_mutex_destroy(&sr->mu);
    free(sr->model);
    if (sr->kind_cache && spec->kind->problem.unshare)
        spec->kind->problem.unshare(sr->kind_cache);
    free(done);
    free(sr);
    return st;
}
