/* slurm_follow.c — following a Slurm job (see slurm_follow.h). Four times a second the
 * new bytes of its protocol file go through runlines.h into the worker's callbacks, as a
 * local runner's pipe does; once a second scontrol says whether the Slurm job has ended.
 * The run is over when the runner's result line has arrived, or when Slurm says the job
 * ended (or no longer knows it) and the file has been read to its end. A Slurm job that
 * ended without the result is judged by its final state (slurm_ending). */
#include "sched/slurm_follow.h"
#include "core/log.h"
#include "sched/slurm_cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double slurm_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void slurm_read_new(const char *path, off_t *at, supervise *s)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* not there until the Slurm job starts */
    char chunk[65536];
    ssize_t n;
    while ((n = pread(fd, chunk, sizeof chunk, *at)) > 0) {
        runlines_take(s, chunk, (size_t)n);
        *at += n;
    }
    close(fd);
}

void slurm_read_quietly(const char *path, off_t *at, supervise *s)
{
    const fdw_callbacks *cb = s->cb, none = {0};
    s->cb = &none;
    slurm_read_new(path, at, s);
    s->cb = cb;
}

void slurm_tell(const char *job_dir, const char *word)
{
    char path[CFG_PATH + 32];
    snprintf(path, sizeof path, "%s/control", job_dir);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s\n", word);
        fclose(f);
    }
}

/* Has Slurm job slurm_id ended (its state into out: slurm_state, "GONE" when Slurm no
 * longer knows it, slurm_exit, slurm_signal)? Asks scontrol at most once a second
 * (*next_ask). */
static int slurm_job_ended(int64_t slurm_id, double *next_ask, runner_outcome *out)
{
    if (slurm_mono_s() < *next_ask)
        return 0;
    *next_ask = slurm_mono_s() + 1.0;
    slurm_state st;
    char why[400];
    if (slurm_query(slurm_id, &st, why, sizeof why) != 0) {
        log_warn("slurm job %lld: %s", (long long)slurm_id, why);
        return 0; /* asked again in a second; Slurm's controller may be restarting */
    }
    if (st.known && !st.ended)
        return 0;
    snprintf(out->slurm_state, sizeof out->slurm_state, "%s", st.known ? st.state : "GONE");
    out->slurm_exit = st.exit_code;
    out->slurm_signal = st.signal;
    return 1;
}

void slurm_follow(fdwd_app *app, const runner_job *job, supervise *s, const char *proto,
                  off_t at)
{
    runner_outcome *out = s->out;
    const fdw_callbacks *cb = s->cb;
    int told_cancel = 0, told_suspend = 0;
    double next_ask = 0;
    for (;;) {
        slurm_read_new(proto, &at, s);
        if (out->have_result)
            return;
        if (atomic_load(&app->shutting_down)) {
            out->detached = 1;
            return;
        }
        if (!told_cancel && cb->cancelled && cb->cancelled(cb->user)) {
            char why[400];
            if (slurm_cancel(out->slurm_id, why, sizeof why) == 0)
                told_cancel = 1;
            else
                log_warn("job %lld: %s", (long long)job->job_id, why);
        } else if (!told_suspend && cb->suspend && cb->suspend(cb->user)) {
            slurm_tell(job->job_dir, "suspend"); /* preemption: a checkpoint, then its result */
            told_suspend = 1;
        }
        if (slurm_job_ended(out->slurm_id, &next_ask, out)) {
            slurm_read_new(proto, &at, s); /* what it wrote before it ended */
            return;
        }
        struct timespec ts = {0, 250000000};
        nanosleep(&ts, NULL);
    }
}

slurm_end slurm_ending(const runner_outcome *o, int cancelled, int wall_time, char *reason,
                       size_t len)
{
    char id[48];
    snprintf(id, sizeof id, "%s", o->slurm_job);
    if (!id[0])
        snprintf(id, sizeof id, "%lld", (long long)o->slurm_id);
    if (o->detached) {
        snprintf(reason, len, "re-queued at shutdown: Slurm job %s goes on, and the daemon's "
                 "next start follows it again", id);
        return SLURM_END_REQUEUE;
    }
    if (cancelled) {
        snprintf(reason, len, "cancelled while running (at step %ld; Slurm job %s "
                 "scancelled)", o->last_step, id);
        return SLURM_END_CANCELLED;
    }
    if (wall_time) {
        snprintf(reason, len, "wall-time limit reached at step %ld (Slurm job %s "
                 "scancelled)", o->last_step, id);
        return SLURM_END_FAILED;
    }
    const char *st = o->slurm_state;
    if (!strcmp(st, "TIMEOUT")) {
        snprintf(reason, len, "Slurm's time limit ended Slurm job %s at step %ld", id,
                 o->last_step);
        return SLURM_END_FAILED;
    }
    if (!strcmp(st, "OUT_OF_MEMORY")) {
        snprintf(reason, len, "out of memory: Slurm job %s went over its --mem at step %ld",
                 id, o->last_step);
        return SLURM_END_FAILED;
    }
    if (!strcmp(st, "CANCELLED") || !strcmp(st, "NODE_FAIL") || !strcmp(st, "PREEMPTED") ||
        !strcmp(st, "BOOT_FAIL") || !strcmp(st, "DEADLINE") || !strcmp(st, "GONE")) {
        snprintf(reason, len, "Slurm job %s ended %s at step %ld (scancel from outside, a "
                 "node failure or Slurm's preemption): it runs again from its checkpoint",
                 id, st, o->last_step);
        return SLURM_END_RETRY;
    }
    snprintf(reason, len, "the runner (Slurm job %s) ended %s, exit code %d:%d, at step %ld "
             "without reporting an end; its runner.log ends: %.600s", id, st, o->slurm_exit,
             o->slurm_signal, o->last_step, o->tail[0] ? o->tail : "(nothing)");
    return SLURM_END_FAILED;
}
