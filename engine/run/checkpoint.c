/* checkpoint.c — a run's checkpoints (see checkpoint.h for the files and their order).
 * The header pins what a checkpoint may be resumed by: the normalised spec's hash, the
 * kind, the backend, the engine's version, the plan's slabs and the number of processes;
 * anything else (a changed spec, another device count) starts the run anew with the
 * reason logged. The loop's own state is small: the step, the derivative kind's error of
 * iteration 1, the snapshots delivered and (rank 0) the manifest's files; the backend
 * writes the rest (backend.h save). A run with a checkpoint directory continues an earlier
 * one: the temporaries of outputs that one was killed while writing are removed first. */
#include "run/checkpoint.h"
#include "core/error.h"
#include "core/limits.h"
#include "kinds/kind.h"
#include "run/ckpt_io.h"
#include "run/run_state.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef fdw_run_state run;

#define CKPT_MAGIC "FDWCKPT1"
#define CKPT_VERSION 1u

/* The header at the start of every checkpoint file (written as these bytes, zeroed
 * first, so padding is deterministic). */
typedef struct ckpt_header {
    char magic[8];
    uint32_t version, rank, size, ndev;
    uint64_t spec_hash;
    int64_t step, nt;
    char kind[16], backend[16], engine[16];
    int32_t z0[FDW_MAX_DEVICES], nz[FDW_MAX_DEVICES];
} ckpt_header;

static const fdw_checkpoint_opts *opts_of(const run *r)
{
    return r->opts ? r->opts->checkpoint : NULL;
}

static int rank_of(const run *r) { return r->comm ? r->comm->rank : 0; }
static int size_of(const run *r) { return r->comm ? r->comm->size : 1; }

/* FNV-1a of the normalised spec: a checkpoint belongs to exactly this job. */
static uint64_t spec_hash(const fdw_spec *spec)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *text = spec->json ? spec->json : "";
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

static void file_path(const run *r, long step, int rank, char *out, size_t len)
{
    snprintf(out, len, "%s/ckpt-%ld.r%d", opts_of(r)->dir, step, rank);
}

static void current_path(const run *r, char *out, size_t len)
{
    snprintf(out, len, "%s/current", opts_of(r)->dir);
}

static void header_fill(const run *r, long step, ckpt_header *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CKPT_MAGIC, 8);
    h->version = CKPT_VERSION;
    h->rank = (uint32_t)rank_of(r);
    h->size = (uint32_t)size_of(r);
    h->ndev = (uint32_t)r->plan.ndev;
    h->spec_hash = spec_hash(r->spec);
    h->step = step;
    h->nt = r->prob.nsteps;
    snprintf(h->kind, sizeof h->kind, "%s", r->spec->kind->name);
    snprintf(h->backend, sizeof h->backend, "%s", r->be->name);
    snprintf(h->engine, sizeof h->engine, "%s", FDW_VERSION);
    for (int d = 0; d < r->plan.ndev && d < FDW_MAX_DEVICES; d++) {
        h->z0[d] = r->plan.z0[d];
        h->nz[d] = r->plan.nz[d];
    }
}

/* Why header h cannot resume this run at step `step` ("" when it can). */
static void header_check(const run *r, const ckpt_header *h, long step, char *why, size_t len)
{
    ckpt_header mine;
    header_fill(r, step, &mine);
    why[0] = '\0';
    if (memcmp(h->magic, CKPT_MAGIC, 8) != 0 || h->version != CKPT_VERSION)
        snprintf(why, len, "it is not a checkpoint of this format (version %u)", CKPT_VERSION);
    else if (strncmp(h->engine, mine.engine, sizeof h->engine) != 0)
        snprintf(why, len, "it was written by fdwave %.16s; this is %s", h->engine,
                 FDW_VERSION);
    else if (h->spec_hash != mine.spec_hash)
        snprintf(why, len, "it was written for another job spec");
    else if (strncmp(h->kind, mine.kind, sizeof h->kind) != 0 ||
             strncmp(h->backend, mine.backend, sizeof h->backend) != 0)
        snprintf(why, len, "it was written by the %.16s backend; this run uses %s", h->backend,
                 mine.backend);
    else if (h->rank != mine.rank || h->size != mine.size)
        snprintf(why, len, "it was written by rank %u of %u; this is rank %u of %u", h->rank,
                 h->size, mine.rank, mine.size);
    else if (h->ndev != mine.ndev || memcmp(h->z0, mine.z0, sizeof h->z0) != 0 ||
             memcmp(h->nz, mine.nz, sizeof h->nz) != 0)
        snprintf(why, len, "it was written for %u slab(s) of another plan; this run has %u",
                 h->ndev, mine.ndev);
    else if (h->step != step || h->nt != mine.nt || step < 0 || step > r->prob.nsteps)
        snprintf(why, len, "it holds step %" PRId64 " of %" PRId64 "; expected step %ld of %ld",
                 h->step, h->nt, step, r->prob.nsteps);
}

/* The loop's part: the derivative kind's error of iteration 1, the snapshots delivered,
 * and on rank 0 the manifest's files. */
static fdw_status put_loop_state(run *r, fdw_ckpt_io *io, fdw_error *err)
{
    const double e = r->max_abs_error;
    const int32_t delivered = fdw_snapshots_delivered(r->snaps);
    fdw_status st = fdw_ckpt_put(io, &e, sizeof e, err);
    if (st == FDW_OK)
        st = fdw_ckpt_put(io, &delivered, sizeof delivered, err);
    char *files = r->root ? fdw_manifest_files_text(r->manifest) : NULL;
    if (r->root && !files)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory writing a checkpoint");
    if (st == FDW_OK)
        st = fdw_ckpt_put_array(io, files ? files : "", files ? strlen(files) : 0, err);
    free(files);
    return st;
}

static fdw_status get_loop_state(run *r, fdw_ckpt_io *io, fdw_error *err)
{
    double e = 0;
    int32_t delivered = 0;
    uint64_t n = 0;
    fdw_status st = fdw_ckpt_get(io, &e, sizeof e, err);
    if (st == FDW_OK)
        st = fdw_ckpt_get(io, &delivered, sizeof delivered, err);
    if (st == FDW_OK)
        st = fdw_ckpt_get(io, &n, sizeof n, err);
    if (st != FDW_OK)
        return st;
    if (n > ((uint64_t)1 << 30) || (r->root && n == 0) || delivered < 0)
        return fdw_fail(err, FDW_ERR_IO, NULL, "the checkpoint's loop state is malformed");
    char *files = malloc((size_t)n + 1);
    if (!files)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory reading a checkpoint");
    st = fdw_ckpt_get(io, files, (size_t)n, err);
    files[n] = '\0';
    if (st == FDW_OK && r->root && fdw_manifest_restore_files(r->manifest, files) != 0)
        st = fdw_fail(err, FDW_ERR_IO, NULL, "the checkpoint's list of output files is not JSON");
    free(files);
    if (st == FDW_OK) {
        r->max_abs_error = e;
        fdw_snapshots_resume(r->snaps, delivered);
    }
    return st;
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

/* Remove this process's checkpoint files other than step keep (-1: all of them), and its
 * temporary files. */
static void remove_files(const run *r, long keep)
{
    DIR *d = opendir(opts_of(r)->dir);
    if (!d)
        return;
    const int rank = rank_of(r);
    struct dirent *e;
    while ((e = readdir(d))) {
        long step;
        int q, n = 0;
        if (sscanf(e->d_name, "ckpt-%ld.r%d%n", &step, &q, &n) != 2 || q != rank)
            continue;
        const char *rest = e->d_name + n;
        if ((rest[0] == '\0' && step != keep) || strcmp(rest, ".tmp") == 0) {
            char path[FDW_PATH_MAX + 300];
            snprintf(path, sizeof path, "%s/%s", opts_of(r)->dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

/* Bytes of every process's file of step (all in one directory; a rank on another host
 * with its own directory is not counted). */
static uint64_t files_bytes(const run *r, long step)
{
    uint64_t total = 0;
    for (int q = 0; q < size_of(r); q++) {
        char path[FDW_PATH_MAX + 64];
        struct stat sb;
        file_path(r, step, q, path, sizeof path);
        if (stat(path, &sb) == 0)
            total += (uint64_t)sb.st_size;
    }
    return total;
}

static void report(const run *r, int resumed, long step, double seconds)
{
    if (!r->root || !r->cb || !r->cb->checkpoint)
        return;
    fdw_checkpoint_info ci = {.resumed = resumed,
                              .step = step,
                              .nsteps = r->prob.nsteps,
                              .bytes = files_bytes(r, step),
                              .seconds = seconds};
    r->cb->checkpoint(r->cb->user, &ci);
}

fdw_status fdw_checkpoint_write(run *r, fdw_error *err)
{
    const long step = r->steps_done;
    if (!r->ckpt.enabled || step == r->ckpt.written)
        return FDW_OK; /* nothing new since the last one */
    const double t0 = fdw_now();
    char path[FDW_PATH_MAX + 64];
    file_path(r, step, rank_of(r), path, sizeof path);
    fdw_ckpt_io *io = NULL;
    fdw_status st = fdw_ckpt_create(&io, path, err);
    if (st == FDW_OK) {
        ckpt_header h;
        header_fill(r, step, &h);
        st = fdw_ckpt_put(io, &h, sizeof h, err);
        if (st == FDW_OK)
            st = put_loop_state(r, io, err);
        if (st == FDW_OK)
            st = r->be->save(r->ctx, io, err);
        if (st == FDW_OK)
            st = fdw_ckpt_finish(io, err); /* closes io */
        else
            fdw_ckpt_abandon(io);
    }
    st = fdw_comm_agree(r->comm, st, err);
    if (st == FDW_OK && r->root) {
        char cur[FDW_PATH_MAX + 16], text[96];
        current_path(r, cur, sizeof cur);
        snprintf(text, sizeof text, "fdwave checkpoint\nstep %ld\nranks %d\n", step,
                 size_of(r));
        st = fdw_ckpt_write_text(cur, text, err);
    }
    st = fdw_comm_agree(r->comm, st, err); /* "current" names the new set everywhere */
    if (st != FDW_OK) {
        unlink(path); /* the previous checkpoint stays current */
        return st;
    }
    remove_files(r, step);
    r->ckpt.written = step;
    r->ckpt.t_last = fdw_now();
    report(r, 0, step, r->ckpt.t_last - t0);
    return FDW_OK;
}

/* What "current" names: the step and the number of processes; 0, or -1 when there is
 * none (or it is unreadable: why says so). */
static int read_current(const run *r, long *step, int *ranks, char *why, size_t len)
{
    char path[FDW_PATH_MAX + 16];
    current_path(r, path, sizeof path);
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
    file_path(r, step, rank_of(r), path, sizeof path);
    fdw_error e;
    fdw_error_clear(&e);
    if (fdw_ckpt_verify(path, &e) != FDW_OK) {
        snprintf(why, len, "%s", e.message);
        return;
    }
    fdw_ckpt_io *io = NULL;
    ckpt_header h;
    if (fdw_ckpt_open(&io, path, &e) != FDW_OK || fdw_ckpt_get(io, &h, sizeof h, &e) != FDW_OK)
        snprintf(why, len, "%s", e.message);
    else
        header_check(r, &h, step, why, len);
    fdw_ckpt_abandon(io);
}

/* Read this process's file of step into the run. */
static fdw_status load_file(run *r, long step, fdw_error *err)
{
    char path[FDW_PATH_MAX + 64];
    file_path(r, step, rank_of(r), path, sizeof path);
    fdw_ckpt_io *io = NULL;
    ckpt_header h;
    fdw_status st = fdw_ckpt_open(&io, path, err);
    if (st != FDW_OK)
        return st;
    st = fdw_ckpt_get(io, &h, sizeof h, err);
    if (st == FDW_OK)
        st = get_loop_state(r, io, err);
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
    if (!r->be->save || !r->be->load) {
        fdw_run_log(r, FDW_LOG_INFO,
                    "checkpoints: the %s kind runs on an engine of its own that keeps none; "
                    "a run stopped early starts again from the beginning",
                    r->spec->kind->name);
        return FDW_OK;
    }
    fdw_error e;
    fdw_error_clear(&e);
    if (fdw_comm_agree(r->comm, make_dir(o->dir, &e), &e) != FDW_OK) {
        fdw_run_log(r, FDW_LOG_WARN, "checkpoints off: %s", e.message);
        return FDW_OK;
    }
    r->ckpt.enabled = 1;
    if (!o->resume)
        return FDW_OK;

    /* Which checkpoint: rank 0 reads "current" and tells the others. */
    char why[900] = "";
    fdw_status st;
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
                        "rank %d: sharing the checkpoint to resume from failed", rank_of(r));
    if (named[0] < 0) {
        if (why[0])
            fdw_run_log(r, FDW_LOG_WARN, "checkpoint not used: %s; starting from step 0", why);
        return FDW_OK;
    }
    const long step = (long)named[0];
    if (named[1] != size_of(r))
        snprintf(why, sizeof why, "it was written by %lld process(es); this run has %d",
                 named[1], size_of(r));
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
            current_path(r, cur, sizeof cur);
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
    report(r, 1, step, r->ckpt.t_last - t0);
    return FDW_OK;
}

int fdw_checkpoint_due(run *r, long done)
{
    const fdw_checkpoint_opts *o = opts_of(r);
    const int can_suspend = r->cb && r->cb->suspend;
    if ((!r->ckpt.enabled && !can_suspend) || done >= r->prob.nsteps)
        return 0;
    int flag = 0;
    if (r->ckpt.enabled &&
        ((o->every_steps > 0 && done % o->every_steps == 0) ||
         (o->interval_s > 0 && fdw_now() - r->ckpt.t_last >= o->interval_s)))
        flag = 1;
    if (r->root && can_suspend && r->cb->suspend(r->cb->user))
        flag = 2;
    if (r->comm && r->comm->allreduce_max(r->comm, &flag) != 0)
        flag = 0; /* a failed reduction shows at the next agreement */
    return flag;
}

void fdw_checkpoint_done(run *r)
{
    const fdw_checkpoint_opts *o = opts_of(r);
    if (!r->ckpt.enabled || o->keep)
        return;
    if (r->root) {
        char cur[FDW_PATH_MAX + 16];
        current_path(r, cur, sizeof cur);
        unlink(cur);
    }
    fdw_error ignored;
    fdw_comm_agree(r->comm, FDW_OK, &ignored); /* no resume can name them now */
    remove_files(r, -1);
    fdw_comm_agree(r->comm, FDW_OK, &ignored);
    if (r->root)
        rmdir(o->dir); /* only when nothing else is left in it */
}
