/* run.c — fdw_run: runs a validated spec from start to finish. Chooses the backend and
 * devices, plans the slabs, builds the problem, drives the time loop (cancellation,
 * rate-limited progress, snapshots), and writes the final outputs (receiver gathers, final
 * field) and manifest.json. Every path out of fdw_run releases everything it took.
 *
 * Distributed run (opts->comm, one process per slab): every rank runs this same code on
 * its own slab. The ranks agree on a status (fdw_comm_agree) before every step and after
 * each phase, so an error or a cancellation on any rank ends them all at the same point;
 * within a step the collective parts (ghost exchange, gathers of snapshot and field parts
 * to rank 0) come before the work of rank 0 alone (files, callbacks).
 *
 * Snapshots (run_snapshots.h): at a snapshot step the loop copies the slices into a free
 * host buffer set, waits for the copy only, hands the set to the writer thread and goes on
 * issuing steps; each step it checks (one atomic read) for snapshots the writer finished
 * and delivers them (manifest, snapshot callback) on this thread, in order. Checkpoints
 * (run/checkpoint.h) go the same way: the state copied to host memory at the step, the
 * file written by a thread of their own while the loop goes on. */
#include "run/run_state.h"
#include "core/error.h"
#include "kinds/kind.h"
#include "run/cpml.h"
#include "run/distrib.h"
#include "run/problem.h"
#include "run/survey.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef fdw_run_state run;

void fdw_log_via(const fdw_callbacks *cb, int level, const char *fmt, va_list ap)
{
    if (!cb || !cb->log)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    cb->log(cb->user, level, msg);
}

void fdw_run_log(const run *r, int level, const char *fmt, ...)
{
    if (!r->root)
        return;
    va_list ap;
    va_start(ap, fmt);
    fdw_log_via(r->cb, level, fmt, ap);
    va_end(ap);
}

fdw_status fdw_run_make_dirs(const char *dir, fdw_error *err)
{
    char path[FDW_PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return fdw_fail(err, FDW_ERR_IO, NULL, "output directory path is too long");
    for (char *p = path + 1;; p++) {
        const char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            if (mkdir(path, 0775) != 0 && errno != EEXIST)
                return fdw_fail(err, FDW_ERR_IO, NULL, "cannot create output directory %s: %s",
                                path, strerror(errno));
            *p = c;
        }
        if (c == '\0')
            break;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return fdw_fail(err, FDW_ERR_IO, NULL, "output path %s is not a directory", dir);
    return FDW_OK;
}

/* The CUDA backend when this build has one and the spec's kind runs on it, else NULL. */
static const fdw_backend *cuda_for_kind(const run *r)
{
    return fdw_kind_on_cuda(r->spec->kind) ? fdw_cuda_backend() : NULL;
}

/* Why --backend cuda cannot be had: no CUDA in this build, or none for this kind. */
static fdw_status no_cuda(const run *r, fdw_error *err)
{
    if (!fdw_cuda_backend())
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL, "this build has no CUDA backend");
    return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                    "the %s kind runs on the CPU backend only (no CUDA implementation)",
                    r->spec->kind->name);
}

/* Distributed run: every rank on the same backend, CUDA when asked for (every rank must
 * see a GPU) or for auto when every rank sees one, else the CPU. Sets r->be. Collective:
 * every rank calls it at the same point. */
static fdw_status distributed_backend(run *r, fdw_error *err)
{
    const fdw_comm *c = r->comm;
    const fdw_backend *cuda = cuda_for_kind(r);
    const int ngpu = cuda ? fdw_gpu_count() : 0;
    /* size - (lowest rank without a GPU), or 0 when every rank has one */
    int lacking = ngpu < 1 ? c->size - c->rank : 0;
    if (c->allreduce_max(c, &lacking) != 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "rank %d: the ranks could not agree on a backend (communication "
                        "failed)", c->rank);
    r->be = fdw_cpu_backend();
    switch (r->opts->backend) {
    case FDW_BACKEND_CPU: break;
    case FDW_BACKEND_CUDA:
        if (!cuda)
            return no_cuda(r, err);
        if (lacking)
            return fdw_fail(err, FDW_ERR_DEVICE, NULL,
                            "--backend cuda: rank %d of the MPI run sees no GPU (each rank "
                            "needs one; several ranks may share a GPU)", c->size - lacking);
        r->be = cuda;
        break;
    case FDW_BACKEND_AUTO:
    default:
        if (cuda && !lacking)
            r->be = cuda;
        break;
    }
    return FDW_OK;
}

/* What rank 0 learns of every rank's GPU, for the log. */
typedef struct rank_gpu {
    int id;                    /* CUDA ordinal, -1 when the rank has none */
    char host[64];
    char name[128];            /* as fdw_device_info holds it */
} rank_gpu;

/* Distributed run on the CUDA backend: this rank's GPU into r->plan.device_ids[rank] (rank
 * 0 gets every rank's), and rank 0 logs where each slab runs. A rank runs on GPU
 * list[local_rank % nlist] when a device list is given (--devices, or the spec's
 * "devices.ids": the GPUs of each host to use), else on GPU local_rank % (GPUs it sees),
 * local_rank being its place among the ranks of its host; several ranks may share a GPU.
 * Collective (a gather to rank 0); a rank's failure is returned after it. */
static fdw_status pick_rank_gpus(run *r, const int *list, int nlist, fdw_error *err)
{
    const fdw_comm *c = r->comm;
    const int ngpu = fdw_gpu_count();
    fdw_status st = FDW_OK;
    rank_gpu mine, all[FDW_MAX_DEVICES];
    memset(&mine, 0, sizeof mine);
    mine.id = nlist > 0 ? list[c->local_rank % nlist] : c->local_rank % (ngpu > 0 ? ngpu : 1);
    if (gethostname(mine.host, sizeof mine.host - 1) != 0)
        snprintf(mine.host, sizeof mine.host, "?");
    if (mine.id >= ngpu) {
        st = fdw_fail(err, FDW_ERR_DEVICE, "devices",
                      "rank %d (local rank %d on %s): GPU %d requested but %d GPU%s found",
                      c->rank, c->local_rank, mine.host, mine.id, ngpu,
                      ngpu == 1 ? " was" : "s were");
    } else {
        fdw_device_info info;
        st = fdw_gpu_info(mine.id, &info, err);
        if (st == FDW_OK)
            snprintf(mine.name, sizeof mine.name, "%s", info.name);
    }
    if (st != FDW_OK)
        mine.id = -1;
    size_t bytes[FDW_MAX_DEVICES];
    for (int q = 0; q < c->size; q++)
        bytes[q] = sizeof(rank_gpu);
    const int gathered = c->gather(c, &mine, all, bytes) == 0;
    if (!gathered && st == FDW_OK)
        st = fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                      "rank %d: gathering the ranks' GPUs on rank 0 failed", c->rank);
    r->plan.device_ids[c->rank] = mine.id;
    if (r->root && gathered) {
        fdw_run_log(r, FDW_LOG_INFO, "backend cuda, %d MPI ranks (ghost planes %s)", c->size,
                c->device_buffers ? "passed to a CUDA-aware MPI from device memory"
                                  : "staged through pinned host memory");
        for (int d = 0; d < r->plan.ndev; d++) {
            r->plan.device_ids[d] = all[d].id;
            if (all[d].id >= 0)
                fdw_run_log(r, FDW_LOG_INFO, "slab %d: rank %d on %s, GPU %d (%s), z planes "
                        "[%d, %d)", d, d, all[d].host, all[d].id, all[d].name,
                        r->plan.z0[d], r->plan.z0[d] + r->plan.nz[d]);
        }
    }
    return st;
}

/* The devices to run on into ids and *ndev: the caller's list, else the spec's, else
 * 0..n-1; *listed says whether a list was given. */
static fdw_status device_list(run *r, int *ids, int *ndev, int *listed, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    const fdw_run_opts *o = r->opts;
    int n = spec->ndevices >= 1 ? spec->ndevices : 1;
    *listed = (o->device_ids && o->ndevice_ids > 0) || spec->device_ids_given;
    if (o->device_ids && o->ndevice_ids > 0) {
        if (o->ndevice_ids > FDW_MAX_DEVICES)
            return fdw_fail(err, FDW_ERR_DEVICE, "devices", "%d device ids given; at most %d",
                            o->ndevice_ids, FDW_MAX_DEVICES);
        if (o->ndevice_ids != n)
            fdw_run_log(r, FDW_LOG_INFO, "running on %d devices as given by the caller (spec asks "
                    "for %d)", o->ndevice_ids, n);
        n = o->ndevice_ids;
        memcpy(ids, o->device_ids, (size_t)n * sizeof(int));
    } else if (spec->device_ids_given) {
        memcpy(ids, spec->device_ids, (size_t)n * sizeof(int));
    } else {
        for (int d = 0; d < n; d++)
            ids[d] = d;
    }
    *ndev = n;
    return FDW_OK;
}

/* An MPI run: one slab per rank, every rank on the same backend; fills the slab plan. */
static fdw_status choose_distributed(run *r, const int *ids, int ndev, int listed,
                                     fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    fdw_status st = distributed_backend(r, err);
    if (st != FDW_OK)
        return st;
    if (r->comm->size > FDW_MAX_DEVICES)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "%d MPI ranks; a run is split into at most %d slabs",
                        r->comm->size, FDW_MAX_DEVICES);
    if (ndev != r->comm->size)
        fdw_run_log(r, FDW_LOG_INFO, "MPI: %d ranks, one slab each (the spec asks for %d "
                "device%s)", r->comm->size, ndev, ndev == 1 ? "" : "s");
    st = fdw_plan_slabs(spec->nz, spec->radius, r->comm->size, NULL, &r->plan, err);
    if (st == FDW_ERR_SPEC && strcmp(err->field, "devices") == 0) {
        const int radius = spec->radius > 1 ? spec->radius : 1;
        const int most = spec->nz / radius;
        return fdw_fail(err, FDW_ERR_SPEC, "grid.nz",
                        "%d MPI ranks would give slabs thinner than %d planes (the "
                        "stencil radius) on a grid with nz = %d; run with at most %d "
                        "rank%s", r->comm->size, radius, spec->nz, most,
                        most == 1 ? "" : "s");
    }
    if (st == FDW_OK)
        st = fdw_cpml_check_plan(spec, &r->plan, 1, err);
    if (st != FDW_OK)
        return st;
    if (r->be != fdw_cpu_backend()) /* the device list only where given */
        return pick_rank_gpus(r, ids, listed ? ndev : 0, err);
    fdw_run_log(r, FDW_LOG_INFO, "backend cpu, %d MPI ranks", r->comm->size);
    for (int d = 0; d < r->plan.ndev; d++)
        fdw_run_log(r, FDW_LOG_INFO, "slab %d: rank %d, z planes [%d, %d)", d, d,
                r->plan.z0[d], r->plan.z0[d] + r->plan.nz[d]);
    return FDW_OK;
}

/* Backend from opts->backend and the devices asked for; fills the slab plan. */
static fdw_status choose_backend(run *r, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    const fdw_run_opts *o = r->opts;
    int ids[FDW_MAX_DEVICES], ndev = 1, listed = 0;
    fdw_status st = device_list(r, ids, &ndev, &listed, err);
    if (st != FDW_OK)
        return st;
    if (r->comm)
        return choose_distributed(r, ids, ndev, listed, err);

    const fdw_backend *cuda = cuda_for_kind(r);
    const int ngpu = cuda ? fdw_gpu_count() : 0;
    int max_id = 0;
    for (int d = 0; d < ndev; d++)
        if (ids[d] > max_id)
            max_id = ids[d];
    switch (o->backend) {
    case FDW_BACKEND_CPU: r->be = fdw_cpu_backend(); break;
    case FDW_BACKEND_CUDA:
        if (!cuda)
            return no_cuda(r, err);
        if (max_id >= ngpu)
            return fdw_fail(err, FDW_ERR_DEVICE, "devices",
                            "GPU %d requested but %d GPU%s found", max_id, ngpu,
                            ngpu == 1 ? " was" : "s were");
        r->be = cuda;
        break;
    case FDW_BACKEND_AUTO:
    default: r->be = (cuda && ngpu >= ndev && max_id < ngpu) ? cuda : fdw_cpu_backend(); break;
    }
    if (!r->be)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "no backend available");
    /* The spec's plan, checked at parse, unless the caller runs on another device count
     * (then this one is checked the same way: the CPML's z layers stay inside a slab). */
    if (ndev == spec->plan.ndev) {
        r->plan = spec->plan;
        memcpy(r->plan.device_ids, ids, (size_t)ndev * sizeof(int));
    } else {
        st = fdw_plan_slabs(spec->nz, spec->radius, ndev, ids, &r->plan, err);
        if (st == FDW_OK)
            st = fdw_cpml_check_plan(spec, &r->plan, 0, err);
    }
    if (st != FDW_OK)
        return st;
    fdw_run_log(r, FDW_LOG_INFO, "backend %s, %d device%s", r->be->name, ndev, ndev == 1 ? "" : "s");
    for (int d = 0; d < r->plan.ndev; d++)
        fdw_run_log(r, FDW_LOG_INFO, "slab %d: device %d, z planes [%d, %d)", d,
                r->plan.device_ids[d], r->plan.z0[d], r->plan.z0[d] + r->plan.nz[d]);
    return FDW_OK;
}

/* Whether a callback asks to stop. */
static int cancel_requested(const run *r)
{
    return r->cb && r->cb->cancelled && r->cb->cancelled(r->cb->user);
}

/* Fill the per-device part of a progress report. */
static void fill_devices(run *r, fdw_progress *p)
{
    for (int d = 0; d < r->plan.ndev; d++) {
        fdw_device_progress *dp = &r->devs[d];
        dp->device = r->plan.device_ids[d];
        dp->z0 = r->plan.z0[d];
        dp->nz = r->plan.nz[d];
        dp->mpts = p->mpts * (double)r->plan.nz[d] / (double)r->spec->nz;
        dp->mem_bytes = r->be->device_bytes ? r->be->device_bytes(r->ctx, d) : 0;
    }
    p->ndevices = r->plan.ndev;
    p->devices = r->devs;
}

/* The snapshot whose copy is under way goes to the writer once the copy has landed:
 * checked without blocking after every step, so the loop keeps issuing steps while the
 * slices travel to the host (block: wait for the copy). */
static fdw_status settle_snapshot(run *r, int block, fdw_error *err)
{
    if (!r->snap_inflight)
        return FDW_OK;
    int done = 1; /* (extract_done NULL: an extract is complete when it returns) */
    fdw_status st = FDW_OK;
    if (block)
        st = fdw_backend_wait(r->be, r->ctx, err);
    else if (r->be->extract_done)
        st = r->be->extract_done(r->ctx, &done, err);
    if (st != FDW_OK || !done)
        return st;
    r->snap_inflight = 0;
    return fdw_snapshots_submit(r->snaps, err);
}

/* Wait for the backend (so the rate counts finished steps), deliver the snapshots the
 * writer has finished (final: wait for all of them), then report progress. Returns
 * FDW_ERR_CANCELLED when the progress callback asks to stop (unless final). */
static fdw_status report(run *r, long done, int final, fdw_error *err)
{
    fdw_status st = fdw_backend_wait(r->be, r->ctx, err);
    if (st == FDW_OK) /* the wait landed any snapshot copy under way */
        st = settle_snapshot(r, 0, err);
    if (st != FDW_OK || !r->root) /* other ranks of a distributed run report nothing */
        return st;
    st = final ? fdw_snapshots_drain(r->snaps, r->cb, err)
               : fdw_snapshots_poll(r->snaps, r->cb, err);
    if (st != FDW_OK)
        return st;
    fdw_progress p;
    memset(&p, 0, sizeof p);
    fdw_meter_report(&r->meter, done, fdw_now(), &p);
    fill_devices(r, &p);
    p.has_change = r->has_change;
    p.change = r->change;
    p.changed = r->changed;
    if (r->cb && r->cb->progress && r->cb->progress(r->cb->user, &p) != 0 && !final)
        return fdw_fail(err, FDW_ERR_CANCELLED, NULL,
                        "cancelled by the progress callback at step %ld of %ld", done,
                        r->meter.nsteps);
    return FDW_OK;
}

/* Distributed run: assemble region rg, whose parts lie in every rank's buf (each rank has
 * filled its own planes), in rank 0's buf. Collective. */
static fdw_status gather_region(run *r, const fdw_slice *rg, float *buf, fdw_error *err)
{
    size_t bytes[FDW_MAX_DEVICES], off = 0;
    fdw_region_parts(r->spec->nx, r->spec->ny, &r->plan, rg, bytes);
    for (int q = 0; q < r->comm->rank; q++)
        off += bytes[q];
    if (r->comm->gather(r->comm, (const char *)buf + off, buf, bytes) != 0)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "rank %d: gathering a region on rank 0 failed", r->comm->rank);
    return FDW_OK;
}

/* The backend's extract, refused where its table takes no snapshots. */
static fdw_status extract(run *r, int n, const fdw_slice *regions, float **bufs,
                          fdw_error *err)
{
    if (!r->be->extract)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, "snapshots", "kind \"%s\" takes no "
                        "snapshots", r->spec->kind->name);
    return r->be->extract(r->ctx, n, regions, bufs, err);
}

fdw_status fdw_run_fetch_volume(run *r, fdw_error *err)
{
    fdw_slice vol = {.plane = FDW_PLANE_VOLUME, .index = 0};
    float *bufs[1] = {r->volume};
    fdw_status st = extract(r, 1, &vol, bufs, err);
    if (st == FDW_OK)
        st = fdw_backend_wait(r->be, r->ctx, err);
    if (st == FDW_OK && r->comm)
        st = gather_region(r, &vol, r->volume, err);
    return st;
}

/* Snapshot of the state after `done` steps: start copying the slices into a free buffer
 * set; settle_snapshot hands the set to the writer thread once the copy has landed. A
 * distributed run waits for the copy here instead, and rank 0 assembles every rank's part.
 * Collective in a distributed run. */
static fdw_status take_snapshot(run *r, long done, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    float **bufs = NULL;
    /* one copy under way at a time: the previous one goes to the writer first */
    fdw_status st = settle_snapshot(r, 1, err);
    /* rank 0 may wait here for its writer, or meet its failure: agree before the gathers */
    if (st == FDW_OK)
        st = fdw_snapshots_acquire(r->snaps, r->cb, done, &bufs, err);
    if (r->comm)
        st = fdw_comm_agree(r->comm, st, err);
    if (st != FDW_OK)
        return st;
    st = extract(r, spec->nslices, spec->slices, bufs, err);
    if (st != FDW_OK)
        return st;
    if (!r->comm) {
        r->snap_inflight = 1;
        return settle_snapshot(r, 0, err); /* a copy that has landed goes at once */
    }
    st = fdw_backend_wait(r->be, r->ctx, err);
    for (int q = 0; q < spec->nslices && st == FDW_OK; q++)
        st = gather_region(r, &spec->slices[q], bufs[q], err);
    if (st == FDW_OK)
        st = fdw_snapshots_submit(r->snaps, err);
    return st;
}

/* Step it, and what follows it: a snapshot, the kind's check, progress. The collective
 * parts come first, then what rank 0 does alone. */
static fdw_status step_once(run *r, long it, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    fdw_status st = r->be->step(r->ctx, it, err);
    if (st == FDW_OK)
        st = settle_snapshot(r, 0, err);
    if (st != FDW_OK)
        return st;
    const long done = it + 1;
    r->steps_done = done;
    /* a field that blew up is neither written nor passed on */
    if (fdw_watch_due(&r->watch, done, r->prob.nsteps) &&
        (st = fdw_watch_check(r, &r->watch, done, err)) != FDW_OK)
        return st;
    fdw_snapshots_note_steps(r->snaps, done);
    if (r->snaps && done % spec->snapshot_every == 0 &&
        (st = take_snapshot(r, done, err)) != FDW_OK)
        return st;
    /* the kind's collective part first, then its rank-0 part (after which nothing here is
     * collective: a failure reaches the other ranks at the next agreement) */
    if (spec->kind->run.after_step && (st = spec->kind->run.after_step(r, done, err)) != FDW_OK)
        return st;
    if (!r->root)
        return FDW_OK;
    if ((st = fdw_snapshots_poll(r->snaps, r->cb, err)) != FDW_OK)
        return st;
    if (done < r->prob.nsteps && !r->stop && (r->report_now || fdw_meter_due(&r->meter, fdw_now())))
        st = report(r, done, 0, err);
    r->report_now = 0;
    return st;
}

/* A checkpoint when one is due (run/checkpoint.h), after the snapshots up to this step
 * are delivered, so that its list of outputs is complete: its state copied to host memory
 * here, its file written while the loop goes on. One that cannot be written fails the run.
 * A suspension waits for its checkpoint to be complete on disk and stops the run. */
static fdw_status checkpoint_step(run *r, fdw_error *err)
{
    int due = 0;
    fdw_status st = fdw_checkpoint_poll(r, r->steps_done, &due, err);
    if (st != FDW_OK || !due)
        return st;
    if (r->ckpt.enabled) {
        st = fdw_backend_wait(r->be, r->ctx, err);
        if (st == FDW_OK)
            st = settle_snapshot(r, 1, err);
        if (st == FDW_OK && r->root)
            st = fdw_snapshots_drain(r->snaps, r->cb, err);
        st = fdw_comm_agree(r->comm, st, err);
        if (st == FDW_OK)
            st = fdw_checkpoint_write(r, err);
        if (st == FDW_OK && due == 2)
            st = fdw_checkpoint_settle(r, st, err);
        if (st != FDW_OK)
            return st;
    }
    if (due < 2)
        return FDW_OK;
    r->ckpt.suspended = 1;
    return fdw_fail(err, FDW_ERR_CANCELLED, NULL, "suspended at step %ld of %ld (%s)",
                    r->steps_done, r->prob.nsteps,
                    r->ckpt.written == r->steps_done ? "its checkpoint written"
                                                     : "no checkpoint of this step");
}

/* The time loop: steps, cancellation, snapshots, progress, checkpoints; from the step a
 * checkpoint resumed at. */
static fdw_status time_loop(run *r, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    const long nt = r->prob.nsteps;
    const double interval = r->cb ? r->cb->progress_interval_s : 0.0;
    fdw_meter_start(&r->meter, nt, (double)spec->nx * spec->ny * spec->nz, interval);
    r->meter.step_last = r->steps_done;
    fdw_watch_init(&r->watch, r->steps_done);
    fdw_status st = FDW_OK;
    for (long it = r->steps_done; it < nt; it++) {
        if (st == FDW_OK && cancel_requested(r))
            st = fdw_fail(err, FDW_ERR_CANCELLED, NULL, "cancelled at step %ld of %ld", it,
                          nt);
        st = fdw_comm_agree(r->comm, st, err); /* unchanged for one process */
        if (st != FDW_OK)
            break;
        st = step_once(r, it, err);
        if (st == FDW_OK && r->stop) { /* the kind says it is done: 100% at this step */
            r->meter.nsteps = r->steps_done;
            break;
        }
        if (st == FDW_OK)
            st = checkpoint_step(r, err);
    }
    if (st == FDW_OK)
        st = report(r, r->steps_done, 1, err);
    st = fdw_comm_agree(r->comm, st, err);
    r->loop_s = fdw_now() - r->meter.t_start;
    return st;
}

/* The manifest's "result" object, then manifest.json. */
static fdw_status write_result(run *r, int completed, const char *extra, fdw_error *err)
{
    if (!r->root)
        return FDW_OK;
    const double pts = (double)r->spec->nx * r->spec->ny * r->spec->nz;
    const double mpts =
        r->loop_s > 0.0 ? pts * (double)(r->steps_done - r->ckpt.resumed) / r->loop_s / 1e6 : 0.0;
    char json[1024], resumed[48] = "";
    if (r->ckpt.resumed > 0) /* the loop's time and rate are then this process's part */
        snprintf(resumed, sizeof resumed, ", \"resumed_at_step\": %ld", r->ckpt.resumed);
    snprintf(json, sizeof json,
             "{\"completed\": %s, \"steps\": %ld, \"nsteps\": %ld, \"elapsed_s\": %.6f, "
             "\"mpts\": %.3f, \"backend\": \"%s\", \"devices\": %d%s%s}",
             completed ? "true" : "false", r->steps_done, r->prob.nsteps, r->loop_s, mpts,
             r->be->name, r->plan.ndev, resumed, extra ? extra : "");
    fdw_manifest_set_json(r->manifest, "result", json);
    return fdw_manifest_write(r->manifest, err);
}

/* One debug line on what the snapshot writer did: how much of its work overlapped steps
 * and how long the loop waited for it. */
static void log_snapshot_stats(const run *r)
{
    if (!r->snaps || !r->root)
        return;
    fdw_snapshot_stats ss;
    fdw_snapshots_stats(r->snaps, &ss);
    fdw_run_log(r, FDW_LOG_DEBUG,
            "snapshot writer: %ld of %ld snapshots written, %d buffer sets; %ld steps issued "
            "while writing (%ld snapshots overlapped steps); the loop waited %ld times, "
            "%.6f s; writing took %.6f s, %.6f s at most",
            ss.written, ss.submitted, ss.nsets, ss.steps_while_writing, ss.overlapped,
            ss.waits, ss.wait_s, ss.write_s, ss.max_write_s);
}

static void run_release(run *r)
{
    fdw_checkpoint_release(r); /* joins its writer thread: it reads the backend's image */
    fdw_snapshots_free(r->snaps); /* joins the writer thread */
    if (r->ctx)
        r->be->destroy(r->ctx);
    if (r->have_prob)
        fdw_problem_free(&r->prob);
    if (r->manifest)
        fdw_manifest_free(r->manifest);
    free(r->volume);
}

/* Set up everything the loop needs: plan, problem, manifest, backend context, buffers. */
static fdw_status run_setup(run *r, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    const double t_start = fdw_now();
    fdw_status st = choose_backend(r, err);
    if (st != FDW_OK)
        return st;
    if (r->be == fdw_cpu_backend() && r->opts->threads > 0)
        omp_set_num_threads(r->opts->threads);
    /* A kind that is no slab stencil runs on its own engine for the chosen backend. */
    r->be = r->be == fdw_cpu_backend() ? fdw_cpu_backend_for(spec->kind)
                                       : fdw_cuda_backend_for(spec->kind);
    if (r->root) {
        st = fdw_run_make_dirs(r->opts->out_dir, err);
        if (st != FDW_OK)
            return st;
    }
    for (int w = 0; w < fdw_spec_warning_count(spec); w++)
        fdw_run_log(r, FDW_LOG_WARN, "%s", fdw_spec_warning(spec, w));
    if (r->be->precheck && !r->comm) { /* (a rank's own slab is checked by create) */
        st = r->be->precheck(spec->kind, spec->nx, spec->ny, spec->radius, &r->plan, err);
        if (st != FDW_OK)
            return st;
    }
    const double t_problem = fdw_now();
    st = fdw_problem_build(spec, r->opts->tuning, &r->prob, err);
    if (st != FDW_OK)
        return st;
    r->have_prob = 1;
    const double t_built = fdw_now();
    r->prob.comm = r->comm;
    r->manifest = fdw_manifest_new(spec, r->opts->out_dir);
    if (!r->manifest)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the manifest");
    if (!spec->kind->wave) {
        const size_t n = (size_t)spec->nx * spec->ny * spec->nz;
        r->volume = malloc(n * sizeof(float));
        if (!r->volume)
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "out of host memory for the field copy (%.1f MiB)",
                            (double)n * 4.0 / (1024.0 * 1024.0));
    }
    st = fdw_snapshots_create(&r->snaps, spec, r->opts->out_dir, r->manifest, r->root, err);
    if (st != FDW_OK)
        return st;
    const double t_create = fdw_now();
    st = r->be->create(&r->prob, &r->plan, &r->ctx, err);
    if (st != FDW_OK) {
        r->ctx = NULL;
        return st;
    }
    /* Where a job's start goes (issue 26: the time from submission to the first step), in
     * the job's log beside the memory line. */
    fdw_run_log(r, FDW_LOG_INFO, "set-up: devices found and checked %.3f s, problem (model, "
                "sources, receivers) %.3f s, outputs %.3f s, backend %s (contexts, buffers, "
                "uploads) %.3f s", t_problem - t_start, t_built - t_problem, t_create - t_built,
                r->be->name, fdw_now() - t_create);
    if (r->comm) {
        /* The backend has copied this rank's planes of the whole-grid model (or initial
         * field) and never reads them again: for the rest of the run a rank holds only
         * its slab. */
        if (spec->kind->problem.shed)
            spec->kind->problem.shed(&r->prob);
        free((void *)r->prob.init);
        r->prob.init = NULL;
    }
    uint64_t total = 0;
    for (int d = 0; d < r->plan.ndev; d++)
        total += r->be->device_bytes ? r->be->device_bytes(r->ctx, d) : 0;
    fdw_run_log(r, FDW_LOG_INFO, "memory: %.1f MiB on %d device%s; %ld steps of %dx%dx%d, order %d",
            (double)total / (1024.0 * 1024.0), r->plan.ndev, r->plan.ndev == 1 ? "" : "s",
            r->prob.nt, spec->nx, spec->ny, spec->nz, spec->order);
    return FDW_OK;
}

fdw_status fdw_run(const fdw_spec *spec, const fdw_run_opts *opts, const fdw_callbacks *cb,
                   fdw_result *result, fdw_error *err)
{
    fdw_error local;
    if (!err)
        err = &local;
    fdw_error_clear(err);
    if (result)
        memset(result, 0, sizeof *result);
    if (!spec)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "fdw_run called without a spec");
    if (!opts || !opts->out_dir || !opts->out_dir[0])
        return fdw_fail(err, FDW_ERR_IO, NULL, "fdw_run called without an output directory");
    if (spec->survey) /* many shots, each a run of its own (run/survey.c) */
        return fdw_survey_run(spec, opts, cb, result, err);
    return fdw_run_single(spec, opts, cb, result, err);
}

fdw_status fdw_run_single(const fdw_spec *spec, const fdw_run_opts *opts,
                          const fdw_callbacks *cb, fdw_result *result, fdw_error *err)
{
    run r;
    memset(&r, 0, sizeof r);
    r.spec = spec;
    r.opts = opts;
    r.cb = cb;
    r.comm = opts->comm && opts->comm->size > 1 ? opts->comm : NULL;
    r.root = !r.comm || r.comm->rank == 0;
    fdw_status st = run_setup(&r, err);
    st = fdw_comm_agree(r.comm, st, err); /* every rank set up, or every rank stops */
    if (st == FDW_OK)
        st = fdw_checkpoint_start(&r, err); /* resumes from a checkpoint when asked */
    if (st == FDW_OK)
        st = time_loop(&r, err);
    /* what is on disk is a complete checkpoint, whatever ended the loop */
    st = fdw_checkpoint_settle(&r, st, err);

    if (st == FDW_OK) {
        char extra[512] = "";
        st = spec->kind->out.finish(&r, extra, sizeof extra, err);
        if (st == FDW_OK)
            st = write_result(&r, 1, extra, err);
        st = fdw_comm_agree(r.comm, st, err);
        if (st == FDW_OK)
            fdw_checkpoint_done(&r);
    } else if (st == FDW_ERR_CANCELLED && r.ctx && r.root) {
        /* Keep what was made: the snapshots taken (the writer finishes them), and a
         * manifest saying where it stopped. */
        fdw_error ignored;
        if (fdw_backend_wait(r.be, r.ctx, &ignored) == FDW_OK &&
            settle_snapshot(&r, 0, &ignored) == FDW_OK &&
            fdw_snapshots_drain(r.snaps, r.cb, &ignored) == FDW_OK)
            write_result(&r, 0, NULL, &ignored);
        fdw_run_log(&r, FDW_LOG_INFO, "%s", err->message);
    }

    if (result && r.be) {
        result->steps_done = r.steps_done;
        result->elapsed_s = r.loop_s;
        const double pts = (double)spec->nx * spec->ny * spec->nz;
        result->mpts = r.loop_s > 0.0 ? pts * (double)(r.steps_done - r.ckpt.resumed) / r.loop_s / 1e6
                                     : 0.0;
        snprintf(result->backend, sizeof result->backend, "%s", r.be->name);
        result->max_abs_error = r.max_abs_error;
    }
    if (result) {
        result->resumed_step = r.ckpt.resumed;
        result->checkpoint_step = r.ckpt.enabled ? r.ckpt.written : -1;
        result->suspended = r.ckpt.suspended;
    }
    if (st != FDW_OK && st != FDW_ERR_CANCELLED)
        fdw_run_log(&r, FDW_LOG_ERROR, "run failed: %s%s%s", err->field[0] ? err->field : "",
                err->field[0] ? ": " : "", err->message);
    log_snapshot_stats(&r);
    run_release(&r);
    return st;
}
