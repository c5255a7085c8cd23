/* ckpt_format.c — checkpoint file names, header and loop state (see ckpt_format.h). The
 * header pins what a checkpoint may be resumed by: the normalised spec's hash, the kind,
 * the backend, the engine's version, the plan's slabs and the number of processes;
 * anything else (a changed spec, another device count) starts the run anew with the
 * reason logged. */
#include "run/ckpt_format.h"
#include "core/error.h"
#include "kinds/kind.h"
#include "run/ckpt_io.h"
#include "run/run_state.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef fdw_run_state run;

#define CKPT_MAGIC "FDWCKPT1"
#define CKPT_VERSION 1u

static const char *dir_of(const run *r)
{
    return r->opts->checkpoint->dir;
}

int fdw_ckpt_rank(const run *r) { return r->comm ? r->comm->rank : 0; }
int fdw_ckpt_ranks(const run *r) { return r->comm ? r->comm->size : 1; }

void fdw_ckpt_file_path(const run *r, long step, int rank, char *out, size_t len)
{
    snprintf(out, len, "%s/ckpt-%ld.r%d", dir_of(r), step, rank);
}

void fdw_ckpt_current_path(const run *r, char *out, size_t len)
{
    snprintf(out, len, "%s/current", dir_of(r));
}

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

void fdw_ckpt_header_fill(const run *r, long step, fdw_ckpt_header *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CKPT_MAGIC, 8);
    h->version = CKPT_VERSION;
    h->rank = (uint32_t)fdw_ckpt_rank(r);
    h->size = (uint32_t)fdw_ckpt_ranks(r);
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

void fdw_ckpt_header_check(const run *r, const fdw_ckpt_header *h, long step, char *why,
                           size_t len)
{
    fdw_ckpt_header mine;
    fdw_ckpt_header_fill(r, step, &mine);
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

fdw_status fdw_ckpt_loop_capture(run *r, fdw_ckpt_loop *out, fdw_error *err)
{
    out->max_abs_error = r->max_abs_error;
    out->delivered = fdw_snapshots_delivered(r->snaps);
    out->files = r->root ? fdw_manifest_files_text(r->manifest) : NULL;
    if (r->root && !out->files)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory writing a checkpoint");
    return FDW_OK;
}

fdw_status fdw_ckpt_loop_put(const fdw_ckpt_loop *l, fdw_ckpt_io *io, fdw_error *err)
{
    fdw_status st = fdw_ckpt_put(io, &l->max_abs_error, sizeof l->max_abs_error, err);
    if (st == FDW_OK)
        st = fdw_ckpt_put(io, &l->delivered, sizeof l->delivered, err);
    if (st == FDW_OK)
        st = fdw_ckpt_put_array(io, l->files ? l->files : "", l->files ? strlen(l->files) : 0,
                                err);
    return st;
}

void fdw_ckpt_loop_free(fdw_ckpt_loop *l)
{
    free(l->files);
    l->files = NULL;
}

fdw_status fdw_ckpt_loop_get(run *r, fdw_ckpt_io *io, fdw_error *err)
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

void fdw_ckpt_remove_files(const run *r, long keep)
{
    DIR *d = opendir(dir_of(r));
    if (!d)
        return;
    const int rank = fdw_ckpt_rank(r);
    struct dirent *e;
    while ((e = readdir(d))) {
        long step;
        int q, n = 0;
        if (sscanf(e->d_name, "ckpt-%ld.r%d%n", &step, &q, &n) != 2 || q != rank)
            continue;
        const char *rest = e->d_name + n;
        if ((rest[0] == '\0' && step != keep) || strcmp(rest, ".tmp") == 0) {
            char path[FDW_PATH_MAX + 300];
            snprintf(path, sizeof path, "%s/%s", dir_of(r), e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

/* Bytes of every process's file of step (all in one directory; a rank on another host
 * with its own directory is not counted). */
static uint64_t fdw_ckpt_files_bytes(const run *r, long step)
{
    uint64_t total = 0;
    for (int q = 0; q < fdw_ckpt_ranks(r); q++) {
        char path[FDW_PATH_MAX + 64];
        struct stat sb;
        fdw_ckpt_file_path(r, step, q, path, sizeof path);
        if (stat(path, &sb) == 0)
            total += (uint64_t)sb.st_size;
    }
    return total;
}

void fdw_ckpt_report(const run *r, int resumed, long step, double seconds, double loop_seconds)
{
    if (!r->root || !r->cb || !r->cb->checkpoint)
        return;
    fdw_checkpoint_info ci = {.resumed = resumed,
                              .step = step,
                              .nsteps = r->prob.nsteps,
                              .bytes = fdw_ckpt_files_bytes(r, step),
                              .seconds = seconds,
                              .loop_seconds = loop_seconds};
    r->cb->checkpoint(r->cb->user, &ci);
}
