/* worker.c — one job's run (see worker.h). The job runs in a runner process
 * (runner.c): its callbacks arrive on this thread and only format JSON and hand it to the
 * event queue (events_post), so a slow database or slow watchers never slow the run.
 * Before the final state is committed, events_flush() makes sure every progress/snapshot
 * event is stored, so "end" is always a job's last event; the commit is retried with
 * back-off, the disk reserve given up when the disk is full (diskguard.h), until it is
 * recorded. The spec is the normalised one stored at submission, which the runner parses
 * with its recorded facts; the files it names are checked again with the submitter's
 * rights as they are now. How the runner ended decides
 * the job's state: its result; a crash or an abort fails the job; a SIGKILL (the OOM
 * killer without a cgroup to say so, an operator) re-queues it to resume from its
 * checkpoint, up to max-attempts runs; an OOM kill at its memory limit fails it. A runner
 * an earlier daemon left is waited for (the job's runner lock) before the outputs so far
 * are kept or cleared. */
#include "sched/worker.h"
#include "auth/access.h"
#include "auth/admission.h"
#include "core/app.h"
#include "core/datadir.h"
#include "core/db.h"
#include "core/diskguard.h"
#include "events/events.h"
#include "store/jobruns.h"
#include "store/jobs.h"
#include "core/log.h"
#include "sched/runfile.h"
#include "sched/runner.h"
#include "sched/slurm_follow.h"
#include "sched/slurm_run.h"
#include "auth/sharing.h"
#include "auth/specs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
    fdwd_app *app = w->app;
    w->mpts = p->mpts;
    w->last_step = p->step;
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
    if (d && p->nshots > 0) { /* a survey: shots done / total, the shot the steps are of */
        json_object_set_new(d, "nshots", json_integer(p->nshots));
        json_object_set_new(d, "shots_done", json_integer(p->shots_done));
        json_object_set_new(d, "shot", json_integer(p->shot));
    }
    if (d)
        events_post(app, w->job_id, "progress", d, 1);
    return w->stop != WORKER_RUN;
}

static void on_snapshot(void *user, const fdw_snapshot_info *s)
{
    worker_job *w = user;
    fdwd_app *app = w->app;
    json_t *files = json_array();
    for (int i = 0; i < s->nfiles; i++) {
        char url[512];
        snprintf(url, sizeof url, "/v1/jobs/%lld/outputs/%s", (long long)w->job_id,
                 s->files[i]);
        json_array_append_new(files, json_pack("{s:s, s:s, s:s}", "name", s->files[i], "url",
                                               url, "format", format_of(s->files[i])));
    }
    events_post(app, w->job_id, "snapshot",
                json_pack("{s:i, s:I, s:f, s:o}", "index", s->index, "step",
                          (json_int_t)s->step, "time", s->time, "files", files),
                0);
}

/* Is msg one of the spec's warnings (already stored as "warning" events at submission)? */
static int known_warning(const worker_job *w, const char *msg)
{
    size_t i;
    json_t *v;
    json_array_foreach(w->warnings, i, v) {
        const char *known = json_string_value(v);
        if (known && !strcmp(known, msg))
            return 1;
    }
    return 0;
}

static void on_log(void *user, int level, const char *msg)
{
    worker_job *w = user;
    fdwd_app *app = w->app;
    static const char *const names[] = {"debug", "info", "warn", "error"};
    if (level < FDW_LOG_INFO)
        return;
    int l = level > FDW_LOG_ERROR ? FDW_LOG_ERROR : level;
    if (l >= FDW_LOG_WARN && known_warning(w, msg))
        return; /* stored and streamed once already, at submission */
    if (l >= FDW_LOG_WARN)
        events_post(app, w->job_id, "warning", json_pack("{s:s}", "message", msg), 0);
    events_post(app, w->job_id, "log", json_pack("{s:s, s:s}", "level", names[l], "message", msg),
                l < FDW_LOG_WARN);
    log_msg(l, "job %lld: %s", (long long)w->job_id, msg);
}

/* The runner is told "cancel" for a cancellation or the end of its wall time. */
static int on_cancelled(void *user)
{
    worker_job *w = user;
    if (w->deadline > 0 && mono_s() > w->deadline) {
        int expected = WORKER_RUN;
        atomic_compare_exchange_strong(&w->stop, &expected, WORKER_WALL_TIME);
    }
    const int stop = atomic_load(&w->stop);
    return stop == WORKER_CANCEL || stop == WORKER_WALL_TIME;
}

/* ... and "suspend" (a checkpoint, then stop) at shutdown or to make room. */
static int on_suspend(void *user)
{
    worker_job *w = user;
    const int stop = atomic_load(&w->stop);
    return stop == WORKER_REQUEUE || stop == WORKER_PREEMPT;
}

/* A checkpoint written is recorded with the job; a resume is said on the job's stream
 * ("resumed at step N") with a progress event at that step, so a watcher's progress goes
 * on from there instead of from 0. */
static void on_checkpoint(void *user, const fdw_checkpoint_info *c)
{
    worker_job *w = user;
    fdwd_app *app = w->app;
    char msg[200];
    if (c->resumed) { /* the engine's own log line says "resumed at step N of M" */
        w->last_step = c->step;
        events_post(app, w->job_id, "progress",
                    json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:[], s:b}", "step",
                              (json_int_t)c->step, "nsteps", (json_int_t)c->nsteps, "percent",
                              c->nsteps > 0 ? 100.0 * (double)c->step / (double)c->nsteps : 0.0,
                              "mpts", 0.0, "eta_s", 0.0, "elapsed_s", 0.0, "devices",
                              "resumed", 1),
                    0);
        return;
    }
    snprintf(msg, sizeof msg, "checkpoint at step %ld of %ld (%.1f MiB, %.2f s)", c->step,
             c->nsteps, (double)c->bytes / (1024.0 * 1024.0), c->seconds);
    jobruns_checkpoint(app, w->job_id, c->step);
    events_post(app, w->job_id, "log", json_pack("{s:s, s:s}", "level", "info", "message", msg), 1);
    log_info("job %lld: %s", (long long)w->job_id, msg);
}

/* Whether the job has a checkpoint to resume from (the engine checks whether it fits):
 * its own, or under the Slurm back end one of its survey's parts' or its combining run's
 * (slurm_survey.h: checkpoint/part_<k>, checkpoint/combine). */
static int has_checkpoint(const char *ckpt_dir)
{
    char cur[CFG_PATH + 320];
    snprintf(cur, sizeof cur, "%s/current", ckpt_dir);
    int found = access(cur, F_OK) == 0;
    DIR *d = found ? NULL : opendir(ckpt_dir);
    struct dirent *e;
    while (d && !found && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "part_", 5) != 0 && strcmp(e->d_name, "combine") != 0)
            continue;
        snprintf(cur, sizeof cur, "%s/%s/current", ckpt_dir, e->d_name);
        found = access(cur, F_OK) == 0;
    }
    if (d)
        closedir(d);
    return found;
}

/* A runner of an earlier attempt may still be finishing (a daemon that was killed left
 * it: its stdin ended, it writes a checkpoint and exits): wait for the job's runner lock,
 * up to runner-stop-timeout, before deciding from its checkpoint whether the outputs so
 * far are kept. Returns the lock's descriptor (closed just before the new runner starts,
 * which takes the lock itself), or -1 when it stays held (outputs are then kept; the new
 * runner fails to take the lock and says so). */
static int wait_previous_runner(fdwd_app *app, const char *job_dir)
{
    char path[CFG_PATH + 48];
    snprintf(path, sizeof path, "%s/runner.lock", job_dir);
    if (mkdir(job_dir, 0750) != 0 && errno != EEXIST)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return -1;
    const double until = mono_s() + app->cfg.runner_stop_timeout;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK || mono_s() > until) {
            close(fd);
            return -1;
        }
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    return fd;
}

/* mkdir -p for data/jobs/<id>/out, emptying an out dir left by an earlier attempt unless
 * the job resumes from a checkpoint (whose outputs so far are kept). */
static int prepare_out_dir(const char *job_dir, const char *out_dir, int resume)
{
    if (mkdir(job_dir, 0750) != 0 && errno != EEXIST)
        return -1;
    if (mkdir(out_dir, 0750) != 0 && errno != EEXIST)
        return -1;
    if (!resume)
        datadir_empty(out_dir);
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

static const char *signal_words(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault";
    case SIGABRT: return "SIGABRT, an abort";
    case SIGBUS: return "SIGBUS, a bus error";
    case SIGFPE: return "SIGFPE, an arithmetic fault";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return strsignal(sig);
    }
}

/* How the job ends after its runner ended: the state ("failed" etc.), its reason, and
 * whether it goes back to the queue (requeue: the attempt is given back; retry: it is
 * counted, up to max-attempts). */
typedef struct ending {
    const char *state;
    char reason[1400];
    int requeue, retry;
} ending;

static void judge(fdwd_app *app, const worker_job *w, const runner_outcome *o, ending *e)
{
    const int stop = atomic_load(&w->stop);
    e->state = "failed";
    e->requeue = e->retry = 0;
    const char *tail = o->tail[0] ? o->tail : "(nothing)";
    if (o->have_result && o->st == FDW_OK) {
        e->state = "succeeded";
        char resumed[64] = "";
        if (o->res.resumed_step > 0)
            snprintf(resumed, sizeof resumed, ", resumed at step %ld", o->res.resumed_step);
        if (o->res.nshots > 0) { /* a survey: its shots first */
            if (o->res.shots_resumed > 0)
                snprintf(resumed, sizeof resumed, ", %d found done at the start",
                         o->res.shots_resumed);
            snprintf(e->reason, sizeof e->reason,
                     "completed %d shots (%ld steps) in %.2f s (%.1f Mpoints/s, %s)%s",
                     o->res.shots_done, o->res.steps_done, o->res.elapsed_s, o->res.mpts,
                     o->res.backend, resumed);
        } else {
            snprintf(e->reason, sizeof e->reason,
                     "completed %ld steps in %.2f s (%.1f Mpoints/s, %s)%s", o->res.steps_done,
                     o->res.elapsed_s, o->res.mpts, o->res.backend, resumed);
        }
    } else if (o->have_result && o->st == FDW_ERR_CANCELLED && o->res.suspended &&
               (stop == WORKER_REQUEUE || stop == WORKER_PREEMPT)) {
        e->requeue = 1;
        char at[120];
        if (o->res.checkpoint_step >= 0)
            snprintf(at, sizeof at, "resumes at step %ld", o->res.checkpoint_step);
        else
            snprintf(at, sizeof at, "no checkpoint: starts again");
        if (stop == WORKER_PREEMPT)
            snprintf(e->reason, sizeof e->reason, "preempted by job %lld (%s)",
                     (long long)w->preempted_by, at);
        else
            snprintf(e->reason, sizeof e->reason, "re-queued at shutdown (%s)", at);
    } else if (o->have_result && o->st == FDW_ERR_CANCELLED) {
        e->state = stop == WORKER_WALL_TIME ? "failed" : "cancelled";
        if (stop == WORKER_WALL_TIME)
            snprintf(e->reason, sizeof e->reason, "wall-time limit reached at step %ld",
                     o->res.steps_done);
        else
            snprintf(e->reason, sizeof e->reason, "cancelled while running (at step %ld)",
                     o->res.steps_done);
    } else if (o->have_result) {
        snprintf(e->reason, sizeof e->reason, "%s%s: %s%s%s",
                 diskguard_is_full_message(o->err.message) ? "disk full: " : "",
                 fdw_status_name(o->st), o->err.field, o->err.field[0] ? ": " : "",
                 o->err.message);
    } else if (o->slurm_id) {
        const slurm_end k = slurm_ending(o, stop == WORKER_CANCEL, stop == WORKER_WALL_TIME,
                                         e->reason, sizeof e->reason);
        e->state = k == SLURM_END_CANCELLED ? "cancelled" : "failed";
        e->requeue = k == SLURM_END_REQUEUE;
        e->retry = k == SLURM_END_RETRY;
    } else if (o->stop_timed_out && (stop == WORKER_REQUEUE || stop == WORKER_PREEMPT)) {
        e->requeue = 1;
        snprintf(e->reason, sizeof e->reason, "%s; its runner did not stop within %d s and "
                 "was killed (resumes from its last checkpoint)",
                 stop == WORKER_PREEMPT ? "preempted" : "re-queued at shutdown",
                 app->cfg.runner_stop_timeout);
    } else if (o->stop_timed_out) {
        e->state = stop == WORKER_CANCEL ? "cancelled" : "failed";
        snprintf(e->reason, sizeof e->reason, "%s at step %ld; its runner did not stop within "
                 "%d s and was killed",
                 stop == WORKER_CANCEL ? "cancelled while running" : "wall-time limit reached",
                 o->last_step, app->cfg.runner_stop_timeout);
    } else if (o->oom_killed) {
        snprintf(e->reason, sizeof e->reason, "out of memory: the runner was killed by the "
                 "kernel's OOM killer at its limit of %.3g GiB (the job's estimate and %.3g "
                 "GiB for the runner) at step %ld",
                 (double)admission_job_host_bytes(app, w->host_bytes) / (1u << 30),
                 (double)app->cfg.runner_memory_overhead / (1u << 30), o->last_step);
    } else if (o->signal == SIGKILL) {
        e->retry = 1;
        snprintf(e->reason, sizeof e->reason, "the runner was killed (SIGKILL: the kernel's "
                 "OOM killer, or an operator) at step %ld", o->last_step);
    } else if (o->signal) {
        snprintf(e->reason, sizeof e->reason, "the runner crashed (%s) at step %ld; its "
                 "runner.log ends: %.600s", signal_words(o->signal), o->last_step, tail);
    } else {
        snprintf(e->reason, sizeof e->reason, "the runner exited with status %d at step %ld "
                 "without reporting an end; its runner.log ends: %.600s", o->exit_code,
                 o->last_step, tail);
    }
}

/* Record the job's end (or its return to the queue), retrying with back-off: a full disk
 * gives up its reserve first; the retries go on for runner-stop-timeout x 5 at most (at
 * shutdown a few seconds), then the job stays "running" in the database and the next
 * start's recovery re-queues it. */
static int record_end(fdwd_app *app, const worker_job *w, ending *e, const json_t *files)
{
    double delay = 0.05, waited = 0;
    const double most = 5.0 * app->cfg.runner_stop_timeout;
    for (int attempt = 0;; attempt++) {
        int rc;
        if (e->retry) {
            rc = jobs_retry(app, w->job_id, e->reason, app->cfg.max_attempts);
            if (rc >= 0) {
                if (rc == 0) /* out of attempts: it failed */
                    e->state = "failed", e->retry = 0;
                return 0;
            }
        } else if (jobs_finish(app, w->job_id, e->state, e->reason, e->requeue, files) == 0) {
            return 0;
        }
        disk_status ds;
        if (diskguard_status(app, &ds) == 0 && ds.free_bytes < (1u << 20))
            diskguard_release(app);
        if (waited > most || (atomic_load(&app->shutting_down) && waited > 3.0))
            return -1;
        if (attempt == 0)
            log_warn("job %lld: could not record its end yet (%s); retrying",
                     (long long)w->job_id, e->reason);
        struct timespec ts = {(time_t)delay, (long)((delay - (time_t)delay) * 1e9)};
        nanosleep(&ts, NULL);
        waited += delay;
        delay = delay * 2 > 5.0 ? 5.0 : delay * 2;
    }
}

/* Where one job's files go: data/jobs/<id>/, its outputs and its checkpoint. */
typedef struct job_paths {
    char job_dir[CFG_PATH + 32], out_dir[CFG_PATH + 40], ckpt_dir[CFG_PATH + 48];
} job_paths;

/* Before the run: the job as stored, the files its spec names checked again with its
 * submitter's rights as they stand now (an admin's job may use another user's model; a
 * user's, only their own), a runner an earlier daemon left waited for (its lock, into
 * *lock_fd), the output directory ready. The spec was parsed once, at submission; its
 * runner parses the stored normalised spec, whose recorded facts stand for the model
 * file, so the run's load is the only read of it. Returns 0, or -1 with e's reason. */
static int prepare_run(fdwd_app *app, worker_job *w, const job_paths *p, job_run_facts *job,
                       identity *who, int *lock_fd, ending *e)
{
    char why[600];
    if (jobs_load_for_run(app, w->job_id, job)) {
        snprintf(e->reason, sizeof e->reason, "internal: cannot read the job from the database");
        return -1;
    }
    access_rights_of(app, job->owner, who);
    if (specs_recheck(app, who, job->spec_files, why, sizeof why)) {
        snprintf(e->reason, sizeof e->reason, "the spec is no longer valid: %s", why);
        return -1;
    }
    w->warnings = job->warnings ? json_loads(job->warnings, 0, NULL) : NULL;
    /* A Slurm job a daemon before this one submitted is followed, its outputs kept. */
    *lock_fd = slurm_submitted(app, w->job_id) ? -1 : wait_previous_runner(app, p->job_dir);
    if (prepare_out_dir(p->job_dir, p->out_dir, *lock_fd < 0 || has_checkpoint(p->ckpt_dir))) {
        snprintf(e->reason, sizeof e->reason, "%scannot create the output directory %.900s: %s",
                 errno == ENOSPC ? "disk full: " : "", p->out_dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The host memory the run may hold (its estimate at submission; 0: none recorded, no
 * limit) and, with a wall-time limit, w's deadline (the limit counts every earlier run
 * too). */
static uint64_t run_limits(fdwd_app *app, worker_job *w)
{
    uint64_t host = 0, dev = 0;
    double wall_time = 0;
    if (jobruns_estimates(app, w->job_id, &host, &dev, &wall_time) != 0)
        return 0;
    if (wall_time > 0) {
        const double left = wall_time - jobruns_wall_used(app, w->job_id);
        w->deadline = mono_s() + (left > 0 ? left : 0);
    }
    return host;
}

/* A CPU job's OpenMP threads: its devices' share of the host's cores (at least 1). */
static int cpu_thread_share(const worker_job *w)
{
    const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const long share = ncpu * w->ndevices / (w->total_devices > 0 ? w->total_devices : 1);
    return share < 1 ? 1 : (int)share;
}

/* The run: its run file, then its runner until it ends (outcome into o; the job's lock
 * goes to the runner). Returns 0, or -1 with e's reason. */
static int run(fdwd_app *app, worker_job *w, const job_paths *p, const job_run_facts *job,
               const identity *who, int *lock_fd, runner_outcome *o, ending *e)
{
    const uint64_t host = run_limits(app, w);
    const int cpu = app->backend == FDW_BACKEND_CPU, slurm = slurm_enabled(app);
    int ids[64]; /* under Slurm: the devices Slurm gives the job, numbered from 0 */
    for (int d = 0; d < w->ndevices && d < 64; d++)
        ids[d] = slurm ? d : w->device_ids[d];
    char control[CFG_PATH + 48];
    snprintf(control, sizeof control, "%s/control", p->job_dir);
    runfile_job rj = {.job_id = w->job_id,
                      .who = who,
                      .spec_json = job->spec_json,
                      .job_dir = p->job_dir,
                      .out_dir = p->out_dir,
                      .checkpoint_dir = p->ckpt_dir,
                      .checkpoint_interval_s = app->cfg.checkpoint_interval,
                      .device_ids = ids,
                      .ndevices = w->ndevices,
                      .threads = !cpu ? 0
                                 : slurm ? app->cfg.slurm_cpus_per_device * w->ndevices
                                         : cpu_thread_share(w),
                      .control_file = slurm ? control : NULL};
    char run_file[CFG_PATH + 64], why[600];
    if (runfile_write(app, &rj, run_file, sizeof run_file, why, sizeof why)) {
        snprintf(e->reason, sizeof e->reason, "%s%s",
                 diskguard_is_full_message(why) ? "disk full: " : "", why);
        return -1;
    }
    log_info("job %lld: running on %d device(s)", (long long)w->job_id, w->ndevices);
    fdw_callbacks cb = {.progress = on_progress,
                        .snapshot = on_snapshot,
                        .log = on_log,
                        .cancelled = on_cancelled,
                        .suspend = on_suspend,
                        .checkpoint = on_checkpoint,
                        .user = w};
    runner_job rjob = {.job_id = w->job_id,
                       .job_dir = p->job_dir,
                       .run_file = run_file,
                       .ndevices = w->ndevices,
                       .device_ids = w->device_ids,
                       .cpu = cpu,
                       .memory_limit = host ? admission_job_host_bytes(app, host) : 0,
                       .attempt = job->attempts,
                       .shots = job->shots};
    w->host_bytes = host;
    if (*lock_fd >= 0) /* the runner takes it now */
        close(*lock_fd);
    *lock_fd = -1;
    const double left = w->deadline > 0 ? w->deadline - mono_s() : 0;
    if ((slurm ? slurm_run(app, &rjob, &rj, left > 1 ? left : (w->deadline > 0 ? 1 : 0), &cb, o)
               : runner_run(app, &rjob, &cb, o)) != 0) {
        snprintf(e->reason, sizeof e->reason, "internal: %s", o->why);
        return -1;
    }
    return 0;
}

/* After the run, whatever its end: its accounting (when a runner started), its end
 * recorded with the manifest's files, its checkpoint cleared once it ended for good. */
static void finish_run(fdwd_app *app, worker_job *w, const job_paths *p, const job_run_facts *job,
                       int64_t started, const runner_outcome *o, ending *e)
{
    const int again = e->requeue || e->retry;
    if (o->started) {
        run_usage u = {.job_id = w->job_id,
                       .owner = job->owner ? job->owner : "",
                       .devices = w->ndevices,
                       .started_at = started,
                       .ended_at = now_ms(),
                       .wall_seconds = o->wall_s,
                       .peak_host_bytes = o->peak_rss,
                       .peak_device_bytes = o->peak_device_bytes,
                       .outcome = again ? "requeued" : e->state};
        jobruns_record_usage(app, &u);
        sharing_usage_changed(app);
    }
    /* Its Slurm job has ended (unless the daemon is leaving it running): forgotten before
     * the end or re-queue is recorded, so that a next attempt, which may start as soon as
     * that is, submits a Slurm job of its own instead of following this one again. */
    if (!o->detached)
        slurm_forget(app, w->job_id);
    json_t *manifest = again ? NULL : manifest_files(p->out_dir);
    const int recorded = record_end(app, w, e, json_object_get(manifest, "files"));
    json_decref(manifest);
    if (recorded)
        log_error("job %lld: could not record its end (%s)", (long long)w->job_id, e->reason);
    else
        log_info("job %lld: %s: %s", (long long)w->job_id, again ? "queued" : e->state,
                 e->reason);
    /* its devices go back before the slower cleanup below */
    if (w->ended)
        w->ended(w);
    if (!recorded && !again) { /* it ended: its checkpoint is of no use */
        datadir_remove(p->ckpt_dir);
        jobruns_checkpoint_clear(app, w->job_id);
        diskguard_maintain(app);
    }
}

void worker_run(fdwd_app *app, worker_job *w)
{
    w->app = app;
    job_paths p;
    snprintf(p.job_dir, sizeof p.job_dir, "%s/%lld", app->jobs_dir, (long long)w->job_id);
    snprintf(p.out_dir, sizeof p.out_dir, "%s/out", p.job_dir);
    snprintf(p.ckpt_dir, sizeof p.ckpt_dir, "%s/checkpoint", p.job_dir);
    job_run_facts job;
    memset(&job, 0, sizeof job);
    identity who;
    ending e = {.state = "failed"};
    runner_outcome o;
    memset(&o, 0, sizeof o);
    const int64_t started = now_ms();
    int lock_fd = -1;
    if (prepare_run(app, w, &p, &job, &who, &lock_fd, &e) == 0 &&
        run(app, w, &p, &job, &who, &lock_fd, &o, &e) == 0)
        judge(app, w, &o, &e);
    if (lock_fd >= 0)
        close(lock_fd);
    events_flush(app);
    finish_run(app, w, &p, &job, started, &o, &e);
    json_decref(w->warnings);
    w->warnings = NULL;
    jobs_run_facts_free(&job);
}
