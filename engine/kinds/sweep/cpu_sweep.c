/* cpu_sweep.c — the sweep kind's CPU engine (the CPU's reference, and the multi-device
 * logic tested without a GPU): its backend table (kind.h's run.cpu_engine), the parts' memory
 * (every plan slab is a virtual device holding its boxes of layouts A and B, sweep_parts.h),
 * the upload of the initial times, one sweep as its eight operations (shuffle to A, +x,
 * -x, +z, -z, shuffle to B, +y, -y) with their statistics, and the copies of T to the host
 * (snapshots as float32 regions, the outputs' whole field as float64 or float32). */
#include "kinds/sweep/cpu_sweep.h"

#include "core/error.h"
#include "run/progress.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void cpu_sweep_destroy(void *vctx)
{
    sweep_cpu *c = vctx;
    if (!c)
        return;
    for (int d = 0; d < FDW_MAX_DEVICES; d++)
        for (int l = 0; l < 2; l++) {
            free(c->part[d].t[l]);
            free(c->part[d].s[l]);
            free(c->part[d].stamp[l]);
        }
    free(c->log);
    free(c);
}

static const sweep_stats *cpu_sweep_log(const void *vctx, long *n)
{
    const sweep_cpu *c = vctx;
    *n = c->sweeps;
    return c->log;
}

/* Cell q of a box's array: value v (as the precision stores it). */
static void put(const sweep_cpu *c, void *arr, int64_t q, double v)
{
    if (c->f64)
        ((double *)arr)[q] = v;
    else
        ((float *)arr)[q] = (float)v;
}

static double get(const sweep_cpu *c, const void *arr, int64_t q)
{
    return c->f64 ? ((const double *)arr)[q] : (double)((const float *)arr)[q];
}

/* Fill part d's box b of layout l: +inf padding, the initial times of the cells it holds,
 * their slowness, and its brick stamps (0 where a held value is finite, else -1). */
static void upload_box(sweep_cpu *c, int d, int l)
{
    const sweep_box *b = l == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
    sweep_cpu_part *p = &c->part[d];
    const int64_t nx = c->prob.nx, ny = c->prob.ny;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < b->count; q++) {
        put(c, p->t[l], q, INFINITY);
        if (p->s[l])
            put(c, p->s[l], q, 0.0);
    }
    for (int64_t q = 0; q < b->nbricks; q++)
        p->stamp[l][q] = -1;
    int lo[3], hi[3];
    sweep_box_held(&c->parts, b, lo, hi);
#pragma omp parallel for schedule(static)
    for (int z = lo[2]; z < hi[2]; z++)
        for (int y = lo[1]; y < hi[1]; y++)
            for (int x = lo[0]; x < hi[0]; x++) {
                const size_t g = (size_t)x + (size_t)nx * ((size_t)y + (size_t)ny * z);
                const int64_t q = sweep_box_index(b, x, y, z);
                const double t = c->d->t0[g];
                put(c, p->t[l], q, t);
                if (p->s[l])
                    put(c, p->s[l], q, 1.0 / (double)c->d->speed[g]);
                if (t < INFINITY) /* threads of neighbouring z may share the brick */
                    __atomic_store_n(&p->stamp[l][sweep_box_brick(b, x, y, z)], 0,
                                     __ATOMIC_RELAXED);
            }
}

static fdw_status cpu_sweep_fetch(void *vctx, void *out, int f64, fdw_error *err);

static fdw_status cpu_sweep_create(const fdw_problem *prob, const fdw_plan *plan, void **out,
                                   fdw_error *err)
{
    *out = NULL;
    const fdw_sweep_data *d = prob->kdata;
    if (prob->comm)
        return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                        "the sweep kind does not run across MPI ranks: run it in one process "
                        "(its devices are slabs of one process)");
    if (!d || !d->t0 || (d->metric.field && !d->speed))
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "sweep engine: the problem is incomplete");
    sweep_cpu *c = calloc(1, sizeof *c);
    if (!c)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of host memory");
    c->head.log = cpu_sweep_log;
    c->head.fetch = cpu_sweep_fetch;
    c->prob = *prob;
    c->d = d;
    c->f64 = d->precision == SWEEP_F64;
    c->no_skip = prob->tuning && prob->tuning->sweep_full;
    const int n[3] = {prob->nx, prob->ny, prob->nz};
    if (sweep_parts_init(&c->parts, n, plan, 1) != 0) { /* the CPU waits every plane */
        cpu_sweep_destroy(c);
        return fdw_fail(err, FDW_ERR_SPEC, "devices",
                        "%d devices cannot split a %dx%dx%d grid: each needs at least one y "
                        "and one z plane", plan->ndev, n[0], n[1], n[2]);
    }
    c->log = calloc(prob->nt > 0 ? (size_t)prob->nt : 1, sizeof *c->log);
    if (!c->log) {
        cpu_sweep_destroy(c);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "sweep engine: out of host memory");
    }
    const size_t es = sweep_cpu_elem(c);
    uint64_t total = 0;
    for (int p = 0; p < c->parts.nparts; p++)
        for (int l = 0; l < 2; l++) {
            const sweep_box *b = l ? &c->parts.b[p] : &c->parts.a[p];
            total += (uint64_t)b->count * es * (d->metric.field ? 2 : 1) +
                     (uint64_t)b->nbricks * 4;
        }
    for (int p = 0; p < c->parts.nparts; p++) {
        sweep_cpu_part *pt = &c->part[p];
        for (int l = 0; l < 2; l++) {
            const sweep_box *b = l ? &c->parts.b[p] : &c->parts.a[p];
            const uint64_t bytes = (uint64_t)b->count * es;
            pt->t[l] = malloc(bytes);
            pt->s[l] = d->metric.field ? malloc(bytes) : NULL;
            pt->stamp[l] = malloc((size_t)b->nbricks * sizeof(int32_t));
            pt->bytes += bytes * (d->metric.field ? 2 : 1) + (uint64_t)b->nbricks * 4;
            if (!pt->t[l] || (d->metric.field && !pt->s[l]) || !pt->stamp[l]) {
                cpu_sweep_destroy(c);
                return fdw_fail(err, FDW_ERR_NOMEM, NULL,
                                "sweep engine: out of host memory for virtual device %d (the "
                                "job needs %.1f MiB in all)", p, total / 1048576.0);
            }
            upload_box(c, p, l);
        }
    }
    *out = c;
    return FDW_OK;
}

static fdw_status cpu_sweep_step(void *vctx, long it, fdw_error *err)
{
    (void)err;
    sweep_cpu *c = vctx;
    const long s = it + 1;
    sweep_stats st;
    memset(&st, 0, sizeof st);
    for (int op = 0; op < SWEEP_NOPS; op++) {
        const double t0 = fdw_now();
        const int epoch = sweep_epoch(s, op);
        if (op == SWEEP_OP_TO_A || op == SWEEP_OP_TO_B)
            sweep_cpu_shuffle(c, op == SWEEP_OP_TO_A ? SWEEP_LAYOUT_A : SWEEP_LAYOUT_B, epoch,
                              sweep_copy_after(s, op));
        else
            sweep_cpu_subsweep(c, sweep_op_direction(op), epoch,
                               c->no_skip ? INT32_MIN : sweep_skip_before(s, op), &st);
        st.op_s[op] = fdw_now() - t0;
    }
    if (it >= 0 && it < c->prob.nt)
        c->log[it] = st;
    c->sweeps = s;
    return FDW_OK;
}

/* T at global cell (x, y, z) from layout B, where every sweep ends. */
static double value_at(const sweep_cpu *c, int x, int y, int z)
{
    for (int e = 0; e < c->parts.nparts; e++) {
        const sweep_box *b = &c->parts.b[e];
        if (z >= b->lo[2] && z < b->hi[2])
            return get(c, c->part[e].t[SWEEP_LAYOUT_B], sweep_box_index(b, x, y, z));
    }
    return NAN;
}

static fdw_status cpu_sweep_fetch(void *vctx, void *out, int f64, fdw_error *err)
{
    (void)err;
    const sweep_cpu *c = vctx;
    const int nx = c->prob.nx, ny = c->prob.ny;
    for (int e = 0; e < c->parts.nparts; e++) {
        const sweep_box *b = &c->parts.b[e];
        const void *t = c->part[e].t[SWEEP_LAYOUT_B];
#pragma omp parallel for schedule(static)
        for (int z = b->lo[2]; z < b->hi[2]; z++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++) {
                    const size_t g = (size_t)x + (size_t)nx * ((size_t)y + (size_t)ny * z);
                    const double v = get(c, t, sweep_box_index(b, x, y, z));
                    if (f64)
                        ((double *)out)[g] = v;
                    else
                        ((float *)out)[g] = (float)v;
                }
    }
    return FDW_OK;
}

static fdw_status cpu_sweep_extract(void *vctx, int nregions, const fdw_slice *regions,
                                    float **host, fdw_error *err)
{
    sweep_cpu *c = vctx;
    const int nx = c->prob.nx, ny = c->prob.ny, nz = c->prob.nz;
    for (int q = 0; q < nregions; q++) {
        const fdw_slice *rg = &regions[q];
        fdw_status st = sweep_engine_region(&c->prob, rg, host[q], q, err);
        if (st != FDW_OK)
            return st;
        float *h = host[q];
        switch (rg->plane) {
        case FDW_PLANE_VOLUME:
            st = cpu_sweep_fetch(c, h, 0, err);
            if (st != FDW_OK)
                return st;
            break;
        case FDW_PLANE_XY:
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < nx; x++)
                    h[(size_t)y * nx + x] = (float)value_at(c, x, y, rg->index);
            break;
        case FDW_PLANE_XZ:
            for (int z = 0; z < nz; z++)
                for (int x = 0; x < nx; x++)
                    h[(size_t)z * nx + x] = (float)value_at(c, x, rg->index, z);
            break;
        case FDW_PLANE_YZ:
            for (int z = 0; z < nz; z++)
                for (int y = 0; y < ny; y++)
                    h[(size_t)z * ny + y] = (float)value_at(c, rg->index, y, z);
            break;
        }
    }
    return FDW_OK;
}




static uint64_t cpu_sweep_device_bytes(void *vctx, int dev)
{
    const sweep_cpu *c = vctx;
    return dev >= 0 && dev < c->parts.nparts ? c->part[dev].bytes : 0;
}

const fdw_backend fdw_sweep_cpu_engine = {
    .name = "cpu",
    .create = cpu_sweep_create,
    .destroy = cpu_sweep_destroy,
    .step = cpu_sweep_step,
    .extract = cpu_sweep_extract,
    .device_bytes = cpu_sweep_device_bytes,
};
