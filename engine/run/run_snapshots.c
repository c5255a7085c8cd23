/* run_snapshots.c — snapshot buffers, the writer thread that encodes their raw float32 and
 * PNG files, and the in-order delivery of finished snapshots (manifest, callback) on the
 * loop thread. See run_snapshots.h for the protocol.
 *
 * Buffer sets are used round robin and the writer takes them in the same order, so the set
 * the loop wants next is always the oldest one not yet delivered: waiting for it means
 * waiting for the writer to finish that snapshot and delivering it. */
#include "run/run_snapshots.h"

#include "core/error.h"
#include "core/quiet_thread.h"
#include "run/progress.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SET_FREE, SET_FILLING, SET_QUEUED, SET_WRITING, SET_DONE };
enum { MAX_SETS = 2 };

/* One file the writer completed, as the manifest will list it. */
typedef struct snap_file {
    char name[96];
    const char *format;        /* "png" or "raw-f32" */
    char desc[256];
    int ndims;
    long dims[3];
    const char *units;
    double max_abs;            /* largest finite |sample| of the region (the manifest's
                                  max_abs) */
    long long nonfinite;       /* samples that are NaN or infinite (the manifest's
                                  nonfinite, recorded when not 0) */
} snap_file;

/* One snapshot's host buffers and what became of them. state is guarded by the mutex;
 * the other fields belong to whichever thread the state gives the set to (loop: FREE,
 * FILLING, DONE; writer: QUEUED, WRITING). */
typedef struct snap_set {
    float **bufs;              /* one per region */
    long step;
    int state;
    snap_file *files;          /* 2 * nslices */
    const char **names;        /* for the callback */
    int nfiles;
    fdw_status st;             /* the writer's outcome */
    fdw_error err;
} snap_set;

struct fdw_snapshots {
    const fdw_spec *spec;
    const char *out_dir;
    fdw_manifest *manifest;
    int writes;                /* this process writes files: there is a writer thread */
    int nsets;
    snap_set sets[MAX_SETS];

    /* loop thread only */
    int fill;                  /* set the next acquire takes */
    int deliver;               /* set the next delivery reads */
    long delivered;            /* snapshots delivered (or found failed) */
    int next_index;            /* index of the next snapshot callback */
    fdw_status failed;         /* sticky: a snapshot could not be written */
    fdw_error fail_err;

    /* shared with the writer */
    pthread_t thread;
    int have_thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;         /* any state change: broadcast */
    int stop;                  /* under mu */
    atomic_int stop_flag;      /* the same, read between files */
    atomic_long finished;      /* snapshots the writer completed (release/acquire) */
    atomic_long steps;         /* steps the loop has issued */
    /* The atomics above are only ever accessed by read-modify-write operations (a value
     * is read as fetch_add 0): locked instructions, cheap next to a step, and understood
     * by race checkers (helgrind) that do not model plain C11 atomic loads and stores.
     * What the writer leaves in a set is handed over under the mutex. */
    int write_pos;             /* writer only */
    fdw_snapshot_stats stats;  /* writer fields under mu; loop fields loop-only */
};

/* Number of floats in one region of the spec's grid. */
static size_t fdw_region_size(const fdw_spec *spec, const fdw_slice *region)
{
    const size_t nx = (size_t)spec->nx, ny = (size_t)spec->ny, nz = (size_t)spec->nz;
    switch (region->plane) {
    case FDW_PLANE_XY: return nx * ny;
    case FDW_PLANE_XZ: return nx * nz;
    case FDW_PLANE_YZ: return ny * nz;
    case FDW_PLANE_VOLUME: return nx * ny * nz;
    }
    return 0;
}

/* File stem of one region, e.g. "snap_000100_xy_k48" or "snap_000100_volume". */
static void region_stem(const fdw_slice *r, long step, char *out, size_t len)
{
    switch (r->plane) {
    case FDW_PLANE_XY: snprintf(out, len, "snap_%06ld_xy_k%d", step, r->index); break;
    case FDW_PLANE_XZ: snprintf(out, len, "snap_%06ld_xz_j%d", step, r->index); break;
    case FDW_PLANE_YZ: snprintf(out, len, "snap_%06ld_yz_i%d", step, r->index); break;
    case FDW_PLANE_VOLUME: snprintf(out, len, "snap_%06ld_volume", step); break;
    }
}

/* Width (fastest) and height of a region image; volume: nx, ny, nz. */
static void region_dims(const fdw_spec *spec, const fdw_slice *r, long dims[3], int *ndims)
{
    switch (r->plane) {
    case FDW_PLANE_XY: dims[0] = spec->nx; dims[1] = spec->ny; *ndims = 2; break;
    case FDW_PLANE_XZ: dims[0] = spec->nx; dims[1] = spec->nz; *ndims = 2; break;
    case FDW_PLANE_YZ: dims[0] = spec->ny; dims[1] = spec->nz; *ndims = 2; break;
    case FDW_PLANE_VOLUME:
        dims[0] = spec->nx; dims[1] = spec->ny; dims[2] = spec->nz; *ndims = 3;
        break;
    }
}

static const char *plane_desc(const fdw_slice *r, char *buf, size_t len)
{
    switch (r->plane) {
    case FDW_PLANE_XY: snprintf(buf, len, "xy plane at k=%d", r->index); break;
    case FDW_PLANE_XZ: snprintf(buf, len, "xz plane at j=%d", r->index); break;
    case FDW_PLANE_YZ: snprintf(buf, len, "yz plane at i=%d", r->index); break;
    case FDW_PLANE_VOLUME: snprintf(buf, len, "whole volume"); break;
    }
    return buf;
}

/* The largest finite |sample| of v, and how many samples are not finite (NaN or inf):
 * the manifest reports both, so a file holding non-finite values says so. */
static float max_abs(const float *v, size_t n, long long *nonfinite)
{
    float m = 0.0f;
    long long bad = 0;
    for (size_t i = 0; i < n; i++) {
        const float a = fabsf(v[i]);
        if (!(a <= FLT_MAX))
            bad++;
        else if (a > m)
            m = a;
    }
    *nonfinite = bad;
    return m;
}

/* Writer thread: write every file of one set (raw, then PNG, region by region) and record
 * them in set->files. Stops at the first failure, or between files when told to stop. */
static fdw_status write_set(fdw_snapshots *s, snap_set *set, fdw_error *err)
{
    const fdw_spec *spec = s->spec;
    const long step = set->step;
    char path[FDW_PATH_MAX + 128], stem[80], where[64];
    set->nfiles = 0;
    for (int r = 0; r < spec->nslices; r++) {
        const fdw_slice *reg = &spec->slices[r];
        const size_t n = fdw_region_size(spec, reg);
        long dims[3] = {0, 0, 0};
        int ndims = 0;
        region_dims(spec, reg, dims, &ndims);
        region_stem(reg, step, stem, sizeof stem);
        plane_desc(reg, where, sizeof where);
        /* The PNG's clip, and the manifest's max_abs of every file of this region: a
         * client scaling several snapshots alike needs no file read to find the scale. */
        long long nonfinite = 0;
        const float clip = max_abs(set->bufs[r], n, &nonfinite);
        for (int png = 0; png < 2; png++) {
            if (png && (!spec->snapshot_png || reg->plane == FDW_PLANE_VOLUME))
                continue;
            if (!png && !spec->snapshot_raw)
                continue;
            if (atomic_fetch_or_explicit(&s->stop_flag, 0, memory_order_relaxed))
                return fdw_fail(err, FDW_ERR_CANCELLED, NULL,
                                "snapshot of step %ld abandoned: the run ended", step);
            snap_file *f = &set->files[set->nfiles];
            snprintf(f->name, sizeof f->name, "%s.%s", stem, png ? "png" : "f32");
            snprintf(path, sizeof path, "%s/%s", s->out_dir, f->name);
            fdw_status st;
            if (png) {
                st = fdw_write_png(path, set->bufs[r], (int)dims[0], (int)dims[1], clip, err);
                f->format = "png";
                f->ndims = 2;
                f->units = "colour";
                snprintf(f->desc, sizeof f->desc,
                         "wavefield snapshot, %s, step %ld; blue-white-red, symmetric scale "
                         "clipped at %g",
                         where, step, (double)clip);
            } else {
                st = fdw_write_raw_f32(path, set->bufs[r], n, err);
                f->format = "raw-f32";
                f->ndims = ndims;
                f->units = "wavefield amplitude (arbitrary)";
                snprintf(f->desc, sizeof f->desc,
                         "wavefield snapshot, %s, step %ld; float32 little-endian, "
                         "first dimension fastest",
                         where, step);
            }
            if (st != FDW_OK)
                return st;
            memcpy(f->dims, dims, sizeof dims);
            f->max_abs = clip;
            f->nonfinite = nonfinite;
            set->names[set->nfiles] = f->name;
            set->nfiles++;
        }
    }
    return FDW_OK;
}

/* The writer thread: takes queued sets in round-robin order until told to stop. */
static void *writer_main(void *arg)
{
    fdw_snapshots *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        snap_set *set = &s->sets[s->write_pos];
        while (!s->stop && set->state != SET_QUEUED)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop)
            break;
        set->state = SET_WRITING;
        pthread_mutex_unlock(&s->mu);

        const long s0 = atomic_fetch_add_explicit(&s->steps, 0, memory_order_relaxed);
        const double t0 = fdw_now();
        fdw_error_clear(&set->err);
        set->st = write_set(s, set, &set->err);
        const double dt = fdw_now() - t0;
        const long ds = atomic_fetch_add_explicit(&s->steps, 0, memory_order_relaxed) - s0;

        pthread_mutex_lock(&s->mu);
        s->stats.written += set->st == FDW_OK;
        s->stats.steps_while_writing += ds;
        s->stats.overlapped += ds > 0;
        s->stats.write_s += dt;
        if (dt > s->stats.max_write_s)
            s->stats.max_write_s = dt;
        set->state = SET_DONE;
        s->write_pos = (s->write_pos + 1) % s->nsets;
        atomic_fetch_add_explicit(&s->finished, 1, memory_order_relaxed);
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void free_set(const fdw_spec *spec, snap_set *set)
{
    if (set->bufs)
        for (int r = 0; r < spec->nslices; r++)
            free(set->bufs[r]);
    free(set->bufs);
    free(set->files);
    free((void *)set->names);
    memset(set, 0, sizeof *set);
}

static void free_sets(fdw_snapshots *s)
{
    for (int k = 0; k < MAX_SETS; k++)
        free_set(s->spec, &s->sets[k]);
}

/* Allocate set k; 0 when out of memory (whatever was allocated stays for free_sets). */
static int alloc_set(fdw_snapshots *s, int k)
{
    const fdw_spec *spec = s->spec;
    snap_set *set = &s->sets[k];
    const size_t nfiles = 2 * (size_t)spec->nslices;
    set->bufs = calloc((size_t)spec->nslices, sizeof *set->bufs);
    set->files = calloc(nfiles, sizeof *set->files);
    set->names = calloc(nfiles, sizeof *set->names);
    if (!set->bufs || !set->files || !set->names)
        return 0;
    for (int r = 0; r < spec->nslices; r++) {
        set->bufs[r] = malloc(fdw_region_size(spec, &spec->slices[r]) * sizeof(float));
        if (!set->bufs[r])
            return 0;
    }
    set->state = SET_FREE;
    return 1;
}

static size_t set_bytes(const fdw_spec *spec)
{
    size_t n = 0;
    for (int r = 0; r < spec->nslices; r++)
        n += fdw_region_size(spec, &spec->slices[r]) * sizeof(float);
    return n;
}

fdw_status fdw_snapshots_create(fdw_snapshots **out, const fdw_spec *spec, const char *out_dir,
                                fdw_manifest *manifest, int writes, fdw_error *err)
{
    *out = NULL;
    if (spec->snapshot_every <= 0 || spec->nslices <= 0)
        return FDW_OK;
    fdw_snapshots *s = calloc(1, sizeof *s);
    if (!s)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for snapshots");
    s->spec = spec;
    s->out_dir = out_dir;
    s->manifest = manifest;
    s->writes = writes;
    atomic_init(&s->stop_flag, 0);
    atomic_init(&s->finished, 0);
    atomic_init(&s->steps, 0);
    if (!alloc_set(s, 0)) {
        free_sets(s);
        free(s);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                        "out of host memory for the snapshot buffers (%.1f MiB)",
                        (double)set_bytes(spec) / (1024.0 * 1024.0));
    }
    s->nsets = 1;
    if (writes) {
        /* A second set lets the loop copy the next snapshot while the writer still writes
         * this one; without it the pipeline still overlaps, with less slack. */
        if (alloc_set(s, 1))
            s->nsets = 2;
        else
            free_set(spec, &s->sets[1]);
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        /* (signals meant for the caller, SIGINT to cancel, ..., reach its own threads) */
        if (fdw_quiet_thread_start(&s->thread, writer_main, s) != 0) {
            pthread_cond_destroy(&s->cv);
            pthread_mutex_destroy(&s->mu);
            free_sets(s);
            free(s);
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                            "cannot start the snapshot writer thread");
        }
        s->have_thread = 1;
    }
    s->stats.nsets = s->nsets;
    *out = s;
    return FDW_OK;
}

/* Loop thread: deliver sets[deliver], which the writer has finished. */
static fdw_status deliver_one(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err)
{
    snap_set *set = &s->sets[s->deliver];
    const fdw_spec *spec = s->spec;
    const double time = spec->dt > 0.0 ? (double)set->step * spec->dt : -1.0;
    for (int f = 0; f < set->nfiles; f++) {
        const snap_file *sf = &set->files[f];
        fdw_manifest_add(s->manifest, sf->name, "snapshot", sf->format, sf->desc, sf->ndims,
                         sf->dims, sf->units, set->step, time);
        fdw_manifest_set_number(s->manifest, sf->name, "max_abs", sf->max_abs);
        if (sf->nonfinite > 0)
            fdw_manifest_set_number(s->manifest, sf->name, "nonfinite", (double)sf->nonfinite);
    }
    fdw_status st = set->st;
    if (st != FDW_OK)
        *err = set->err;
    if (st == FDW_OK)
        st = fdw_manifest_write(s->manifest, err);
    if (st == FDW_OK && cb && cb->snapshot) {
        fdw_snapshot_info info = {.index = s->next_index,
                                  .step = set->step,
                                  .time = time,
                                  .nfiles = set->nfiles,
                                  .files = set->names};
        cb->snapshot(cb->user, &info);
    }
    if (st == FDW_OK)
        s->next_index++;
    pthread_mutex_lock(&s->mu);
    set->state = SET_FREE;
    pthread_mutex_unlock(&s->mu);
    s->deliver = (s->deliver + 1) % s->nsets;
    s->delivered++;
    if (st != FDW_OK) {
        s->failed = st;
        s->fail_err = *err;
    }
    return st;
}

fdw_status fdw_snapshots_poll(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err)
{
    if (!s || !s->writes)
        return FDW_OK;
    if (s->failed) {
        *err = s->fail_err;
        return s->failed;
    }
    /* fast path: nothing finished since the last delivery */
    if (atomic_fetch_add_explicit(&s->finished, 0, memory_order_relaxed) == s->delivered)
        return FDW_OK;
    pthread_mutex_lock(&s->mu); /* makes the finished sets' contents visible */
    const long done = atomic_fetch_add_explicit(&s->finished, 0, memory_order_relaxed);
    pthread_mutex_unlock(&s->mu);
    while (s->delivered < done) {
        fdw_status st = deliver_one(s, cb, err);
        if (st != FDW_OK)
            return st;
    }
    return FDW_OK;
}

/* Loop thread: block until the writer finishes the oldest snapshot not delivered, then
 * deliver it. Counts as one wait of the loop. */
static fdw_status wait_oldest(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err)
{
    const double t0 = fdw_now();
    pthread_mutex_lock(&s->mu);
    while (atomic_fetch_add_explicit(&s->finished, 0, memory_order_relaxed) <= s->delivered)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    s->stats.waits++;
    s->stats.wait_s += fdw_now() - t0;
    return fdw_snapshots_poll(s, cb, err);
}

fdw_status fdw_snapshots_acquire(fdw_snapshots *s, const fdw_callbacks *cb, long step,
                                 float ***bufs, fdw_error *err)
{
    fdw_status st = fdw_snapshots_poll(s, cb, err);
    if (st != FDW_OK)
        return st;
    snap_set *set = &s->sets[s->fill];
    if (s->writes) {
        /* The set is FREE, or the oldest snapshot not delivered (round robin). */
        for (;;) {
            pthread_mutex_lock(&s->mu);
            const int state = set->state;
            pthread_mutex_unlock(&s->mu);
            if (state == SET_FREE)
                break;
            if (state == SET_FILLING)
                return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                                "snapshot of step %ld acquired before step %ld was submitted",
                                step, set->step);
            st = wait_oldest(s, cb, err);
            if (st != FDW_OK)
                return st;
        }
        pthread_mutex_lock(&s->mu);
        set->state = SET_FILLING;
        pthread_mutex_unlock(&s->mu);
    } else {
        set->state = SET_FILLING;
    }
    set->step = step;
    *bufs = set->bufs;
    return FDW_OK;
}

fdw_status fdw_snapshots_submit(fdw_snapshots *s, fdw_error *err)
{
    snap_set *set = &s->sets[s->fill];
    if (set->state != SET_FILLING) /* read by the loop, which alone sets FILLING */
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "snapshot submitted without a buffer");
    s->fill = (s->fill + 1) % s->nsets;
    if (!s->writes) {
        set->state = SET_FREE;
        return FDW_OK;
    }
    pthread_mutex_lock(&s->mu);
    set->state = SET_QUEUED;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    s->stats.submitted++;
    return FDW_OK;
}

void fdw_snapshots_note_steps(fdw_snapshots *s, long steps)
{
    if (s)
        atomic_exchange_explicit(&s->steps, steps, memory_order_relaxed);
}

fdw_status fdw_snapshots_drain(fdw_snapshots *s, const fdw_callbacks *cb, fdw_error *err)
{
    if (!s || !s->writes)
        return FDW_OK;
    fdw_status st = fdw_snapshots_poll(s, cb, err);
    while (st == FDW_OK && s->delivered < s->stats.submitted)
        st = wait_oldest(s, cb, err);
    return st;
}

void fdw_snapshots_stats(const fdw_snapshots *s, fdw_snapshot_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    if (s->have_thread)
        pthread_mutex_lock((pthread_mutex_t *)&s->mu);
    *out = s->stats;
    if (s->have_thread)
        pthread_mutex_unlock((pthread_mutex_t *)&s->mu);
}

void fdw_snapshots_free(fdw_snapshots *s)
{
    if (!s)
        return;
    if (s->have_thread) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        atomic_exchange(&s->stop_flag, 1);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
    }
    if (s->writes) {
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
    }
    free_sets(s);
    free(s);
}

int fdw_snapshots_delivered(const fdw_snapshots *s)
{
    return s ? s->next_index : 0;
}

void fdw_snapshots_resume(fdw_snapshots *s, int delivered)
{
    if (s)
        s->next_index = delivered;
}
