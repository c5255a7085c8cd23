/* worker.c — one job's run (see worker.h). The engine's callbacks only format JSON and
 * hand it to the event queue (events_post), so a slow database or slow watchers never
 * slow the time loop. Before the final state is committed, events_flush() makes sure
 * every progress/snapshot event is stored, so "end" is always a job's last event.
 * A CPU-backend simulation runs on a thread of its own at low priority (--cpu-job-sched)
 * so the HTTP side stays responsive; the job's database work stays on the worker thread
 * at normal priority, so a starved simulation never sits on SQLite's write lock.
 * The spec is the normalised one stored at submission, re-parsed with its recorded
 * facts, so a model file is read once per job: by the run itself. */
#include "worker.h"
#include "access.h"
#include "app.h"
#include "db.h"
#include "events.h"
#include "jobs.h"
#include "log.h"
#include "specs.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *format_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return "unknown";
    if (!strcmp(dot, ".png"))
        return "png";
    if (!strcmp(dot, ".f32") || !strcmp(dot, ".raw") || !strcmp(dot, ".bin"))
        return "raw-f32";
    if (!strcmp(dot, ".segy") || !strcmp(dot, ".sgy"))
        return "segy";
    if (!strcmp(dot, ".json"))
        return "json";
    if (!strcmp(dot, ".rsf"))
        return "rsf";
    return "unknown";
}

static int on_progress(void *user, const fdw_progress *p)
{
    worker_job *w = user;
    w->mpts = p->mpts;
    json_t *devs = json_array();
    for (int i = 0; i < p->ndevices; i++)
        json_array_append_new(devs, json_pack("{s:i, s:f, s:I}", "device", p->devices[i].device,
                                              "mpts", p->devices[i].mpts, "mem_bytes",
                                              (json_int_t)p->devices[i].mem_bytes));
    json_t *d = json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:o}", "step", (json_int_t)p->step,
                          "nsteps", (json_int_t)p->nsteps, "percent", p->percent, "mpts",
                          p->mpts, "eta_s", p->eta_s, "elapsed_s", p->elapsed_s, "devices",
                          devs);
    if (d && p->has_change) { /* kinds that converge (sweep): what the last step changed */
        json_object_set_new(d, "change", json_real(p->change));
        json_object_set_new(d, "changed", json_integer((json_int_t)p->changed));
    }
    if (d)
        events_post(w->job_id, "progress", d, 1);
    return w->stop != WORKER_RUN;
}

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    worker_job *w = user;
    json_t *files = json_array();
    for (int i = 0; i < s->nfiles; i++) {
        char url[512];
        snprintf(url, sizeof url, "/v1/jobs/%lld/outputs/%s", (long long)w->job_id,
                 s->files[i]);
        json_array_append_new(files, json_pack("{s:s, s:s, s:s}", "name", s->files[i], "url",
                                               url, "format", format_of(s->files[i])));
    }
    events_post(w->job_id, "snapshot",
                json_pack("{s:i, s:I, s:f, s:o}", "index", s->index, "step",
                          (json_int_t)s->step, "time", s->time, "files", files),
                0);
}

/* Is msg one of the spec's warnings (already stored as "warning" events at submission)? */
static int known_warning(const worker_job *w, const char *msg)
{
    for (int i = 0; w->spec && i < fdw_spec_warning_count(w->spec); i++)
        if (!strcmp(fdw_spec_warning(w->spec, i), msg))
            return 1;
    return 0;
}

static void on_log(void *user, int level, const char *msg)
{
    worker_job *w = user;
    static const char *const names[] = {"debug", "info", "warn", "error"};
    if (level < FDW_LOG_INFO)
        return;
    int l = level > FDW_LOG_ERROR ? FDW_LOG_ERROR : level;
    if (l >= FDW_LOG_WARN && known_warning(w, msg))
        return; /* stored and streamed once already, at submission */
    if (l >= FDW_LOG_WARN)
        events_post(w->job_id, "warning", json_pack("{s:s}", "message", msg), 0);
    events_post(w->job_id, "log", json_pack("{s:s, s:s}", "level", names[l], "message", msg),
                l < FDW_LOG_WARN);
    log_msg(l, "job %lld: %s", (long long)w->job_id, msg);
}

static int on_cancelled(void *user)
{
    worker_job *w = user;
    return w->stop != WORKER_RUN;
}

/* mkdir -p for data/jobs/<id>/out, emptying an out dir left by an earlier attempt. */
static int prepare_out_dir(const char *job_dir, const char *out_dir)
{
    if (mkdir(job_dir, 0750) != 0 && errno != EEXIST)
        return -1;
    if (mkdir(out_dir, 0750) != 0 && errno != EEXIST)
        return -1;
    DIR *d = opendir(out_dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[CFG_PATH + 300];
        snprintf(p, sizeof p, "%s/%s", out_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    return 0;
}

/* The run's manifest.json (its "files" are recorded as the job's outputs), or NULL when
 * the run wrote none. */
static json_t *manifest_files(const char *out_dir)
{
    char path[CFG_PATH + 64];
    snprintf(path, sizeof path, "%s/manifest.json", out_dir);
    return json_load_file(path, 0, NULL);
}

/* One fdw_run call, made on its own thread by run_low. */
typedef struct sim_call {
    const fdw_spec *spec;
    const fdw_run_opts *ro;
    const fdw_callbacks *cb;
    fdw_result *res;
    fdw_error *err;
    fdw_status st;
} sim_call;

/* Lower this thread for good (an unprivileged thread cannot raise itself back, which is
 * why the simulation gets a thread of its own), then run. SCHED_IDLE: the simulation
 * gets only CPU time no other thread wants, and any waking HTTP thread preempts it at
 * once; nice 10 only weights it down. The engine's OpenMP threads, created from this
 * thread, inherit the setting. */
static void *sim_main(void *arg)
{
    sim_call *c = arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (strcmp(g_app.cfg.cpu_job_sched, "nice") == 0) {
        setpriority(PRIO_PROCESS, (id_t)tid, 10);
    } else {
        struct sched_param sp = {.sched_priority = 0};
        if (sched_setscheduler(tid, SCHED_IDLE, &sp) != 0)
            setpriority(PRIO_PROCESS, (id_t)tid, 19);
    }
    c->st = fdw_run(c->spec, c->ro, c->cb, c->res, c->err);
    return NULL;
}

/* fdw_run at low priority on a thread of its own; inline (normal priority) if no thread
 * can be started. */
static fdw_status run_low(const fdw_spec *spec, const fdw_run_opts *ro,
                          const fdw_callbacks *cb, fdw_result *res, fdw_error *err)
{
    sim_call c = {.spec = spec, .ro = ro, .cb = cb, .res = res, .err = err, .st = FDW_OK};
    pthread_t t;
    if (pthread_create(&t, NULL, sim_main, &c) != 0)
        return fdw_run(spec, ro, cb, res, err);
    pthread_join(t, NULL);
    return c.st;
}

void worker_run(worker_job *w)
{
    char job_dir[CFG_PATH + 32], out_dir[CFG_PATH + 40], reason[1200];
    snprintf(job_dir, sizeof job_dir, "%s/%lld", g_app.jobs_dir, (long long)w->job_id);
    snprintf(out_dir, sizeof out_dir, "%s/out", job_dir);
    char *owner = NULL, *spec_json = NULL;
    fdw_spec *spec = NULL;
    fdw_error err = {0};
    const char *state = "failed";
    int requeue = 0;

    if (jobs_load_for_run(w->job_id, &owner, &spec_json)) {
        snprintf(reason, sizeof reason, "internal: cannot read the job from the database");
        goto done;
    }
    /* Checked again with the submitter's rights as they stand now (an admin's job may use
     * another user's model; a user's, only their own). The normalised spec stored at
     * submission: its recorded facts stand for the model file, so the run's load is the
     * only read of it. */
    identity who;
    access_rights_of(owner, &who);
    if (specs_parse(&who, spec_json, strlen(spec_json), 1, &spec, &err) != FDW_OK) {
        snprintf(reason, sizeof reason, "the spec is no longer valid: %s%s%s", err.field,
                 err.field[0] ? ": " : "", err.message);
        goto done;
    }
    if (prepare_out_dir(job_dir, out_dir)) {
        snprintf(reason, sizeof reason, "cannot create the output directory %.900s: %s", out_dir,
                 strerror(errno));
        goto done;
    }
    w->spec = spec;
    log_info("job %lld: running on %d device(s)", (long long)w->job_id, w->ndevices);
    fdw_callbacks cb = {.progress = on_progress,
                        .snapshot = on_snapshot,
                        .log = on_log,
                        .cancelled = on_cancelled,
                        .user = w,
                        .progress_interval_s = 0.5};
    fdw_run_opts ro = {0};
    ro.out_dir = out_dir;
    ro.backend = g_app.backend;
    ro.device_ids = w->device_ids;
    ro.ndevice_ids = w->ndevices;
    if (g_app.backend == FDW_BACKEND_CPU) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        long share = ncpu * w->ndevices / (w->total_devices > 0 ? w->total_devices : 1);
        ro.threads = share < 1 ? 1 : (int)share;
    }
    fdw_result res = {0};
    fdw_status st = g_app.backend == FDW_BACKEND_CPU ? run_low(spec, &ro, &cb, &res, &err)
                                                     : fdw_run(spec, &ro, &cb, &res, &err);
    if (st == FDW_OK) {
        state = "succeeded";
        snprintf(reason, sizeof reason, "completed %ld steps in %.2f s (%.1f Mpoints/s, %s)",
                 res.steps_done, res.elapsed_s, res.mpts, res.backend);
    } else if (st == FDW_ERR_CANCELLED || w->stop != WORKER_RUN) {
        if (w->stop == WORKER_REQUEUE) {
            requeue = 1;
            snprintf(reason, sizeof reason, "re-queued at shutdown");
        } else {
            state = "cancelled";
            snprintf(reason, sizeof reason, "cancelled while running (at step %ld)",
                     res.steps_done);
        }
    } else {
        snprintf(reason, sizeof reason, "%s: %s%s%s", fdw_status_name(st), err.field,
                 err.field[0] ? ": " : "", err.message);
    }
done:
    events_flush();
    json_t *manifest = requeue ? NULL : manifest_files(out_dir);
    int finished = jobs_finish(w->job_id, state, reason, requeue,
                               json_object_get(manifest, "files"));
    json_decref(manifest);
    if (finished)
        log_error("job %lld: could not record its end (%s)", (long long)w->job_id, reason);
    else
        log_info("job %lld: %s: %s", (long long)w->job_id, requeue ? "queued" : state, reason);
    fdw_spec_free(spec);
    free(owner);
    free(spec_json);
}
