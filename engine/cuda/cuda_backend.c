/* cuda_backend.c — the CUDA backend (host side, C11): its table, creation and checks, the
 * GPU queries of fdwave.h. One slab of the plan per GPU (cuda_setup.c), the time step
 * issued asynchronously on CUDA streams (cuda_step.c) by one host thread per GPU
 * (cuda_threads.c), ghost planes pushed to the neighbours with peer copies, snapshots
 * copied back through pinned buffers (cuda_extract.c), receivers recorded on the device;
 * each kind's own device work through its hooks (cuda_kind.h). Talks to the GPU only
 * through the kernels' C headers (kernels/common, kernels/<kind>).
 *
 * Per step and device (DESIGN.md's multi-device plan): the planes next to a neighbour
 * ("edge" planes, r deep) are updated first on a high-priority stream, their sources
 * added, and pushed into the neighbours' ghost planes; meanwhile the interior is updated
 * on a second stream. Events order the two streams and the devices:
 *   edge(it)     after interior(it-1) of this device and the neighbours' pushes of it-1;
 *   push(it)     after the neighbour's edge(it-1), which read the ghosts it overwrites;
 *   interior(it) after edge(it-1) of this device.
 * Events are double-buffered by step parity, and one host thread per GPU issues the work;
 * all threads finish issuing step it before any issues it+1, so every event waited on
 * has been recorded. Results equal one GPU's bit for bit (the same kernel computes every
 * point; a receiver "row" lies in one z plane, so one slab records it whole and the rows
 * are summed on the host in plane order, run/positioning.h).
 *
 * Distributed run (prob->comm set, one MPI rank per slab): the context holds slab
 * comm->rank on the GPU the plan names for it, and cuda_mpi.c swaps the edge planes with
 * the neighbouring ranks while the interior runs; a receiver is recorded whole by one rank
 * (ghost planes included), so every output equals one GPU's bit for bit. */
#include "cuda/cuda_kind.h"
#include "cuda/cuda_mpi.h"
#include "core/error.h"
#include "kinds/kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fdw_gpu_count(void)
{
    int n = 0;
    if (fdwk_device_count(&n) != 0)
        return 0;
    return n;
}

fdw_status fdw_gpu_info(int id, fdw_device_info *info, fdw_error *err)
{
    int n = fdw_gpu_count();
    if (id < 0 || id >= n)
        return fdw_fail(err, FDW_ERR_DEVICE, NULL, "GPU %d does not exist (%d GPU%s found)", id,
                        n, n == 1 ? "" : "s");
    memset(info, 0, sizeof *info);
    info->id = id;
    info->is_gpu = 1;
    int rc = fdwk_device_name(id, info->name, sizeof info->name);
    if (!rc)
        rc = fdwk_set_device(id);
    if (!rc)
        rc = fdwk_mem_info(&info->free_bytes, &info->total_bytes);
    if (rc)
        return fdw_fail(err, FDW_ERR_DEVICE, NULL, "GPU %d: %s", id, fdwk_strerror(rc));
    return FDW_OK;
}

static void cuda_destroy(void *vctx)
{
    cuda_release(vctx);
}

static uint64_t cuda_device_bytes(void *vctx, int dev)
{
    cuda_ctx *c = vctx;
    if (c->mpi) /* every slab of the plan, whichever rank holds it */
        return cuda_mpi_slab_bytes(c->mpi, dev);
    return dev >= 0 && dev < c->ndev ? c->dev[dev].bytes : 0;
}

/* ---- creation -------------------------------------------------------------- */

static fdw_status check_problem(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    if (p->nx < 1 || p->ny < 1 || p->nz < 1)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: grid %dx%dx%d is empty",
                        p->nx, p->ny, p->nz);
    if (p->radius < 1 || p->radius > FDW_MAX_RADIUS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: radius %d outside 1..%d",
                        p->radius, FDW_MAX_RADIUS);
    if (!p->kind || !p->kind->run.cuda)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL, "the %s kind does not run on the cuda "
                        "backend", p->kind ? p->kind->name : "(no)");
    if (!p->kind->wave && !p->init)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: no initial field");
    if (p->kind->wave && p->nsrc_taps > 0 && (!p->src_taps || !p->wavelets))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: source taps without data");
    if (p->nrec_taps > 0 && (!p->rec_taps || p->rec_interval < 1 || p->nreceivers < 1))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: bad receiver set-up");
    const uint64_t npts = (uint64_t)p->nx * p->ny * p->nz;
    for (int t = 0; t < p->nsrc_taps; t++)
        if (p->src_taps[t].index >= npts || p->src_taps[t].owner < 0)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: source tap %d is off the grid", t);
    for (int t = 0; t < p->nrec_taps; t++)
        if (p->rec_taps[t].index >= npts || p->rec_taps[t].owner < 0 ||
            p->rec_taps[t].owner >= p->nreceivers)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: receiver tap %d is invalid", t);
    if (!plan || plan->ndev < 1 || plan->ndev > FDW_MAX_DEVICES || plan->radius != p->radius)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: the plan does not match the problem");
    int z = 0;
    for (int d = 0; d < plan->ndev; d++) {
        if (plan->z0[d] != z || plan->nz[d] < p->radius || plan->nz[d] < 1)
            return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: slab %d of the plan is malformed", d);
        z += plan->nz[d];
    }
    if (z != p->nz)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: the plan's slabs cover %d planes, the grid has %d", z, p->nz);
    if (p->kind->problem.check) {
        fdw_status st = p->kind->problem.check(p, plan, err);
        if (st != FDW_OK)
            return st;
    }
    if (p->kind->run.cuda->check) {
        fdw_status st = p->kind->run.cuda->check(p, plan, err);
        if (st != FDW_OK)
            return st;
    }
    /* A GPU may hold several slabs (the exchange then copies within it): useful to test
     * the multi-slab path on one GPU. */
    const int ngpu = fdw_gpu_count();
    for (int d = 0; d < plan->ndev; d++) {
        if (p->comm && d != p->comm->rank)
            continue; /* another rank's GPU, on its host */
        if (plan->device_ids[d] < 0 || plan->device_ids[d] >= ngpu)
            return fdw_fail(err, FDW_ERR_DEVICE, "devices",
                            "GPU %d does not exist (%d GPU%s found)", plan->device_ids[d], ngpu,
                            ngpu == 1 ? "" : "s");
    }
    return FDW_OK;
}

/* Distributed run (p->comm set): what this backend needs of the ranks and the plan. */
static fdw_status check_distributed(const fdw_problem *p, const fdw_plan *plan,
                                    fdw_error *err)
{
    if (!plan || p->comm->size != plan->ndev || p->comm->rank < 0 ||
        p->comm->rank >= plan->ndev)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "cuda backend: rank %d of %d does not match a plan of %d slabs",
                        p->comm->rank, p->comm->size, plan ? plan->ndev : 0);
    if (p->kind && p->kind->run.cuda && p->kind->run.cuda->single_slab)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "the %s kind does not run across MPI ranks on the cuda backend (%d "
                        "ranks); run it in one process, or with --backend cpu under mpirun",
                        p->kind->name, p->comm->size);
    return FDW_OK;
}

/* Distributed run: the exchange with the neighbouring ranks, this rank's receivers (in
 * place of the problem's, so build_receivers takes them), every slab's memory figure. */
static fdw_status setup_distributed(cuda_ctx *c, const fdw_plan *plan, fdw_error *err)
{
    gpu_slab *g = &c->dev[0];
    int rc = fdwk_set_device(g->id);
    if (rc)
        return cuda_device_fail(err, g, rc, "cudaSetDevice");
    fdwk_layout L;
    fdwk_layout_init(&L, c->prob.nx, c->prob.ny, g->nz, c->prob.radius);
    rc = cuda_mpi_create(&c->prob, plan, g->id, (size_t)c->prob.radius * (size_t)L.plane,
                         c->prob.tuning->mpi_stats, &c->mpi);
    if (rc == -1)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
    if (rc)
        return cuda_device_fail(err, g, rc, "setting up the MPI exchange (pinned buffers, events)");
    c->prob.rec_taps = cuda_mpi_rec_taps(c->mpi, &c->prob.nrec_taps);
    for (int d = 0; d < plan->ndev; d++) {
        gpu_slab tmp;
        memset(&tmp, 0, sizeof tmp);
        fdwk_layout_init(&tmp.L, c->prob.nx, c->prob.ny, plan->nz[d], c->prob.radius);
        tmp.z0 = plan->z0[d];
        tmp.nz = plan->nz[d];
        cuda_mpi_set_slab_bytes(c->mpi, d, cuda_slab_bytes(c, &tmp));
    }
    return FDW_OK;
}

static fdw_status cuda_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                              fdw_error *err)
{
    *out = NULL;
    fdw_status st = prob->comm ? check_distributed(prob, plan, err) : FDW_OK;
    if (st == FDW_OK)
        st = check_problem(prob, plan, err);
    if (st != FDW_OK)
        return st;
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "cuda backend: out of host memory");
    c->prob = *prob;
    c->ops = prob->kind->run.cuda;
    c->ndev = prob->comm ? 1 : plan->ndev;      /* slabs held by this process */
    const int s0 = prob->comm ? prob->comm->rank : 0; /* plan index of dev[0] */
    const int r = prob->radius;
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        g->id = plan->device_ids[s0 + d];
        g->z0 = plan->z0[s0 + d];
        g->nz = plan->nz[s0 + d];
        g->up = s0 + d > 0;
        g->down = s0 + d < plan->ndev - 1;
        g->ctx = c;
        g->index = d;
        g->split = plan->ndev > 1 && g->nz >= 3 * r && !c->ops->single_slab;
        g->ktop = g->split && g->up ? r : 0;
        g->kbot = g->split && g->down ? g->nz - r : g->nz;
    }
    /* Peer access between neighbours (copies are staged by the runtime where not possible). */
    for (int d = 0; d < c->ndev && !prob->comm; d++) {
        gpu_slab *g = &c->dev[d];
        int en = 0, rc = fdwk_set_device(g->id);
        if (!rc && g->up)
            rc = fdwk_enable_peer(c->dev[d - 1].id, &en);
        if (!rc && g->down)
            rc = fdwk_enable_peer(c->dev[d + 1].id, &en);
        if (rc) {
            st = cuda_device_fail(err, g, rc, "enabling peer access");
            goto fail;
        }
    }
    if (prob->comm) {
        st = setup_distributed(c, plan, err);
        if (st != FDW_OK)
            goto fail;
    }
    for (int d = 0; d < c->ndev; d++) {
        gpu_slab *g = &c->dev[d];
        st = cuda_setup_slab(c, d, err);
        if (st == FDW_OK && prob->kind->wave)
            st = cuda_setup_taps(c, g, err);
        if (st != FDW_OK)
            goto fail;
    }
    if (c->ndev > 1 && cuda_start_threads(c) != 0) {
        st = fdw_fail(err, FDW_ERR_INTERNAL, NULL, "cuda backend: could not start host threads");
        goto fail;
    }
    *out = c;
    return FDW_OK;
fail:
    cuda_release(c);
    return st;
}

/* The backend's precheck (backend.h): the whole-layout arrays of every slab (the two fields
 * and the kind's per-point arrays), summed per GPU (slabs may share one), against the
 * GPU's free memory. */
static fdw_status cuda_precheck(const fdw_kind_ops *kind, int nx, int ny, int radius,
                                const fdw_plan *plan, fdw_error *err)
{
    if (!kind->run.cuda)
        return FDW_OK; /* create refuses it with the reason */
    const int r = kind->run.cuda->single_slab ? 0 : radius;
    for (int d = 0; d < plan->ndev; d++) {
        const int id = plan->device_ids[d];
        int first = 1;
        for (int e = 0; e < d; e++)
            if (plan->device_ids[e] == id)
                first = 0;
        if (!first) /* counted with the first slab on this GPU */
            continue;
        uint64_t need = 0;
        for (int e = d; e < plan->ndev; e++) {
            if (plan->device_ids[e] != id)
                continue;
            fdwk_layout L;
            fdwk_layout_init(&L, nx, ny, plan->nz[e], r);
            need += cuda_field_bytes(kind->run.cuda, &L);
        }
        uint64_t fr = 0, tot = 0;
        int rc = fdwk_set_device(id);
        if (!rc)
            rc = fdwk_mem_info(&fr, &tot);
        if (rc)
            return fdw_fail(err, FDW_ERR_DEVICE, NULL, "cuda backend: GPU %d: %s", id,
                            fdwk_strerror(rc));
        if (need > fr) {
            char name[128] = "";
            fdwk_device_name(id, name, sizeof name);
            return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                            "cuda backend: the job needs %.2f GiB on GPU %d (%s) for its "
                            "wavefields alone but only %.2f GiB of its %.2f GiB is free "
                            "(%llu bytes needed, %llu free); ask for more devices or a "
                            "smaller grid",
                            need / 1073741824.0, id, name, fr / 1073741824.0,
                            tot / 1073741824.0, (unsigned long long)need,
                            (unsigned long long)fr);
        }
    }
    return FDW_OK;
}

static const fdw_backend cuda_backend = {
    .name = "cuda",
    .create = cuda_create,
    .destroy = cuda_destroy,
    .step = cuda_step,
    .extract = cuda_extract,
    .extract_done = cuda_extract_done,
    .wait = cuda_wait,
    .fetch_receivers = cuda_fetch_receivers,
    .device_bytes = cuda_device_bytes,
    .field_peak = cuda_field_peak,
    .precheck = cuda_precheck,
    .prepare = fdw_cuda_prepare,
    .capture = fdw_cuda_capture,
    .load = fdw_cuda_load,
};

const fdw_backend *fdw_cuda_backend(void) { return &cuda_backend; }

const fdw_backend *fdw_cuda_backend_for(const fdw_kind_ops *kind)
{
    return kind && kind->run.cuda_engine ? kind->run.cuda_engine : &cuda_backend;
}
