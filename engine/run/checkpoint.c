/* checkpoint.c — a run's checkpoints (see checkpoint.h for the files and their order):
 * the directory made ready, resuming from the checkpoint "current" names when it fits the
 * run (ckpt_format.c says what fits), and the removal after a completed run. Taking them
 * is ckpt_save.c's. A run with a checkpoint directory continues an earlier one: the
 * temporaries of outputs that one was killed while writing are removed first. */
#include "run/checkpoint.h"
#include "core/error.h"
#include "core/limits.h"
#include "kinds/kind.h"
#include "run/ckpt_format.h"
#include "run/ckpt_io.h"
#include "run/run_state.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef fdw_run_state run;

static const fdw_checkpoint_opts *opts_of(const run *r)
{
    return r->opts ? r->opts->checkpoint : NULL;
}

/* Make the directory and its missing parents. */
static fdw_status make_dir(const char *dir, fdw_error *err)
{
    char path[FDW_PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return fdw_fail(err, FDW_ERR_IO, NULL, "checkpoint directory path is too long");
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0750) != 0 && errno != EEXIST)
            return fdw_fail(err, FDW_ERR_IO, NULL, "cannot create checkpoint directory %s: %s",
                            path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0750) != 0 && errno != EEXIST)
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot create checkpoint directory %s: %s",
                        path, strerror(errno));
    return FDW_OK;
}

/* What "current" names: the step and the number of processes; 0, or -1 when there is
 * none (or it is unreadable: why says so). */
static int read_current(const run *r, long *step, int *ranks, char *why, size_t len)
{
    char path[FDW_PATH_MAX + 16];
    fdw_ckpt_current_path(r, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno != ENOENT)
            snprintf(why, len, "cannot read %.600s: %s", path, strerror(errno));
        return -1;
    }
    char line[3][64] = {{0}};
    for (int i = 0; i < 3 && fgets(line[i], sizeof line[i], f); i++)
        ;
    fclose(f);
    if (strcmp(line[0], "fdwave checkpoint\n") != 0 || sscanf(line[1], "step %ld", step) != 1 ||
        sscanf(line[2], "ranks %d", ranks) != 1 || *step < 0 || *ranks < 1) {
        snprintf(why, len, "%.600s is malformed", path);
        return -1;
    }
    return 0;
}

/* Whether this process's file of step can resume this run: checked whole (its hash), then
 * its header against the run. why says what is wrong. */
static void check_file(const run *r, long step, char *why, size_t len)
{
    char path[FDW_PATH_MAX + 64];
    fdw_ckpt_file_path(r, step, fdw_ckpt_rank(r), path, sizeof path);
    fdw_error e;
    fdw_error_clear(&e);
    if (fdw_ckpt_verify(path, &e) != FDW_OK) {
        snprintf(why, len, "%s", e.message);
        return;
    }
    fdw_ckpt_io *io = NULL;
    fdw_ckpt_header h;
    if (fdw_ckpt_open(&io, path, &e) != FDW_OK || fdw_ckpt_get(io, &h, sizeof h, &e) != FDW_OK)
        snprintf(why, len, "%s", e.message);
    else
        fdw_ckpt_header_check(r, &h, step, why, len);
    fdw_ckpt_abandon(io);
}

/* Read this process's file of step into the run. */
static fdw_status load_file(run *r, long step, fdw_error *err)
{
    char path[FDW_PATH_MAX + 64];
    fdw_ckpt_file_path(r, step, fdw_ckpt_rank(r), path, sizeof path);
    fdw_ckpt_io *io = NULL;
    fdw_ckpt_header h;
    fdw_status st = fdw_ckpt_open(&io, path, err);
    if (st != FDW_OK)
        return st;
    st = fdw_ckpt_get(io, &h, sizeof h, err);
    if (st == FDW_OK)
        st = fdw_ckpt_loop_get(r, io, err);
    if (st == FDW_OK)
        st = r->be->load(r->ctx, io, err);
    if (st == FDW_OK)
        return fdw_ckpt_finish(io, err);
    fdw_ckpt_abandon(io);
    return st;
}

/* Whether name is a temporary of the atomic writer (output/atomic_file.c: the file's
 * name, ".tmp" and mkstemp's six characters). */
static int is_atomic_temporary(const char *name)
{
    const char *t = strstr(name, ".tmp");
    if (!t || t == name)
        return 0;
    while (strstr(t + 1, ".tmp"))
        t = strstr(t + 1, ".tmp");
    if (strlen(t + 4) != 6)
        return 0;
    for (const char *p = t + 4; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return 0;
    return 1;
}

/* A run that continues an earlier one (checkpoints on: it may have been killed while
 * writing an output) removes the temporaries that run's atomic writes left in the output
 * directory, so the outputs end as an uninterrupted run's. Rank 0 (it alone writes them),
 * before any output of this run is written. */
static void remove_stale_outputs(const run *r)
{
    DIR *d = r->root ? opendir(r->opts->out_dir) : NULL;
    if (!d)
        return;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_atomic_temporary(e->d_name))
            continue;
        char path[FDW_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", r->opts->out_dir, e->d_name);
        removed += unlink(path) == 0;
    }
    closedir(d);
    if (removed)
        fdw_run_log(r, FDW_LOG_INFO, "removed %d unfinished output file(s) an earlier "
                    "run left in %s", removed, r->opts->out_dir);
}

fdw_status fdw_checkpoint_start(run *r, fdw_error *err)
{
    memset(&r->ckpt, 0, sizeof r->ckpt);
    r->ckpt.written = -1;
    r->ckpt.t_last = fdw_now();
    const fdw_checkpoint_opts *o = opts_of(r);
    if (!o || !o->dir || !o->dir[0])
        return FDW_OK;
    remove_stale_outputs(r);
    if (!r->be->capture || !r->be->load) {
        fdw_run_log(r, FDW_LOG_INFO,
                    "checkpoints: the %s kind runs on an engine of its own that keeps none; "
                    "a run stopped early starts again from the beginning",
                    r->spec->kind->name);
        return FDW_OK;
    }
    /* a checkpoint that cannot be written would fail the run later: better now */
    fdw_status st = make_dir(o->dir, err);
    if (st == FDW_OK && access(o->dir, W_OK | X_OK) != 0)
        st = fdw_fail(err, FDW_ERR_IO, NULL, "checkpoint directory %s is not writable: %s",
                      o->dir, strerror(errno));
    if ((st = fdw_comm_agree(r->comm, st, err)) != FDW_OK)
        return st;
    r->ckpt.enabled = 1;
    if (!o->resume)
        return FDW_OK;

    /* Which checkpoint: rank 0 reads "current" and tells the others. */
    char why[900] = "";
    fdw_error e;
    long long named[2] = {-1, 0}; /* step, ranks */
    if (r->root) {
        long step;
        int ranks;
        if (read_current(r, &step, &ranks, why, sizeof why) == 0) {
            named[0] = step;
            named[1] = ranks;
        }
    }
    if (r->comm && r->comm->broadcast(r->comm, named, sizeof named, 0) != 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "rank %d: sharing the checkpoint to resume from failed", fdw_ckpt_rank(r));
    if (named[0] < 0) {
        if (why[0])
            fdw_run_log(r, FDW_LOG_WARN, "checkpoint not used: %s; starting from step 0", why);
        return FDW_OK;
    }
    const long step = (long)named[0];
    if (named[1] != fdw_ckpt_ranks(r))
        snprintf(why, sizeof why, "it was written by %lld process(es); this run has %d",
                 named[1], fdw_ckpt_ranks(r));
    else
        check_file(r, step, why, sizeof why);
    fdw_error_clear(&e);
    fdw_status usable = why[0] ? fdw_fail(&e, FDW_ERR_IO, NULL, "%s", why) : FDW_OK;
    usable = fdw_comm_agree(r->comm, usable, &e);
    if (usable != FDW_OK) {
        fdw_run_log(r, FDW_LOG_WARN, "checkpoint of step %ld not used: %s; starting from step 0",
                    step, e.message);
        return FDW_OK;
    }

    const double t0 = fdw_now();
    st = fdw_comm_agree(r->comm, load_file(r, step, err), err);
    if (st != FDW_OK) {
        if (r->root) {
            char cur[FDW_PATH_MAX + 16], bad[FDW_PATH_MAX + 32];
            fdw_ckpt_current_path(r, cur, sizeof cur);
            snprintf(bad, sizeof bad, "%s.unusable", cur);
            rename(cur, bad);
        }
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        return fdw_fail(err, FDW_ERR_IO, NULL,
                        "resuming from the checkpoint of step %ld failed half-way (%s); it was "
                        "set aside, so a new attempt starts from step 0",
                        step, msg);
    }
    r->steps_done = step;
    r->ckpt.resumed = step;
    r->ckpt.written = step;
    r->ckpt.t_last = fdw_now();
    fdw_run_log(r, FDW_LOG_INFO, "resumed at step %ld of %ld from its checkpoint (%.1f s)", step,
                r->prob.nsteps, r->ckpt.t_last - t0);
    fdw_ckpt_report(r, 1, step, r->ckpt.t_last - t0, 0.0);
    return FDW_OK;
}

void fdw_checkpoint_done(run *r)
{
    const fdw_checkpoint_opts *o = opts_of(r);
    if (!r->ckpt.enabled || o->keep)
        return;
    if (r->root) {
        char cur[FDW_PATH_MAX + 16];
        fdw_ckpt_current_path(r, cur, sizeof cur);
        unlink(cur);
    }
    fdw_error ignored;
    fdw_comm_agree(r->comm, FDW_OK, &ignored); /* no resume can name them now */
    fdw_ckpt_remove_files(r, -1);
    fdw_comm_agree(r->comm, FDW_OK, &ignored);
    if (r->root)
        rmdir(o->dir); /* only when nothing else is left in it */
}
