/* sweep.c — the sweep kind (seed: Krishnasamy, Sourouri, Cai 2015; docs/sweep.md): its
 * entry in the kind table. Spec members in sweep_spec*.c, the problem in sweep_build.c;
 * it brings its own engine on each backend (cpu_sweep*.c, cuda_sweep*.c) through the
 * contract's run.cpu_engine and run.cuda_engine, since a sweep is no time step of a slab
 * stencil. After each sweep it logs and reports what changed, and under "sweeps": "auto" ends the run once a
 * sweep changes nothing beyond the tolerance; its outputs are in sweep_outputs.c. */
#include "kinds/sweep/sweep.h"
#include "kinds/kind.h"

#include "core/error.h"
#include "run/run_state.h"

#include <math.h>

static const char *const KEYS[] = {"precision", "F", "velocity", "psi", "a", "initial",
                                   "sweeps", "tolerance", "max_sweeps", "output", NULL};

int sweep_converged(const fdw_sweep_data *d, const sweep_stats *st)
{
    return st->reached == 0 && st->max_change <= d->tolerance;
}

/* T in both layouts (with the padding and the halo planes of every cut), the slowness in
 * both where F is a field, and the brick stamps. */
static uint64_t sweep_device_bytes(const fdw_spec *spec)
{
    const fdw_sweep_spec *k = spec->kspec;
    const uint64_t P = (uint64_t)(spec->ndevices > 0 ? spec->ndevices : 1);
    const uint64_t nx = (uint64_t)spec->nx + 2, ny = (uint64_t)spec->ny, nz = (uint64_t)spec->nz;
    const uint64_t cells = (ny + 2 * P) * nx * (nz + 2) + nx * (ny + 2) * (nz + 2 * P);
    const uint64_t es = k->precision == SWEEP_F64 ? 8 : 4;
    return cells * es * (k->field ? 2 : 1) + cells / 512 * 4 + P * 4096;
}

/* After each sweep: its figures in the log and the progress report; the end of an "auto"
 * run once a sweep has converged. */
static fdw_status sweep_after_step(fdw_run_state *r, long done, fdw_error *err)
{
    (void)err;
    const sweep_engine *e = r->ctx;
    const fdw_sweep_data *d = r->prob.kdata;
    long n = 0;
    const sweep_stats *log = e->log(r->ctx, &n);
    if (n < 1 || n != done)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL,
                        "sweep engine: %ld sweeps logged after sweep %ld", n, done);
    const sweep_stats *st = &log[n - 1];
    const double pts = (double)r->prob.nx * r->prob.ny * r->prob.nz;
    r->has_change = 1;
    r->change = st->max_change;
    r->changed = (long long)st->changed;
    r->report_now = 1;
    fdw_run_log(r, FDW_LOG_INFO,
                "sweep %ld: %llu values changed (%llu reached for the first time), largest "
                "change of a known value %.3e; %.1f%% of the point updates computed",
                done, (unsigned long long)st->changed, (unsigned long long)st->reached,
                st->max_change, 100.0 * (double)st->computed / (6.0 * pts));
    if (d->sweeps_auto && sweep_converged(d, st)) {
        r->stop = 1;
        fdw_run_log(r, FDW_LOG_INFO, "converged after %ld sweeps (tolerance %g)", done,
                    d->tolerance);
    }
    return FDW_OK;
}

static fdw_status sweep_finish(fdw_run_state *r, char *extra, size_t len, fdw_error *err)
{
    const sweep_engine *e = r->ctx;
    long n = 0;
    const sweep_stats *log = e->log(r->ctx, &n);
    return sweep_write_outputs(r, log, n, extra, len, err);
}

const fdw_kind_ops fdw_kind_sweep = {
    .name = "sweep",
    .fixed_order = 2, /* the upwind patch is one plane deep: radius 1 */
    .section = {
        .keys = KEYS,
        .parse = sweep_parse,
        .free = sweep_free_spec,
        .device_bytes = sweep_device_bytes,
    },
    .problem = {.build = sweep_build, .free = sweep_free_problem},
    .run = {
        .cpu_engine = &fdw_sweep_cpu_engine,
#ifdef FDW_HAVE_CUDA
        .cuda_engine = &fdw_sweep_cuda_engine,
#endif
        .after_step = sweep_after_step,
    },
    .out = {.finish = sweep_finish},
};
