/* ete.c — the ETE kind (seed: Fang et al. 2015, after Liu et al. 2014): explicit time
 * evolution p(t + dt) = 2 sum_j c_j(x) p(x + dx_j, t) - p(t - dt) with a 37-point stencil
 * whose coefficients are fitted per velocity so that its symbol matches cos(v dt |k|)
 * (ete_fit.h). Variable velocity, sources, receivers, sponge or no boundary, free surface,
 * snapshots and gathers as the acoustic kind; CPML is refused at parse. Its spec is in
 * ete_spec.c, its table in ete_table.c, its backends' hooks in cpu_ete.c and cuda_ete.c;
 * its outputs are the gathers and the fit report (ete_fit.json and the manifest's result). */
#include "kinds/ete/ete.h"
#include "kinds/ete/cpu_ete.h"
#include "kinds/ete/ete_spec.h"
#include "kinds/kind.h"

#include "core/error.h"
#include "model/model_io.h"
#include "output/atomic_file.h"
#include "run/problem.h"
#include "run/run_state.h"
#include "kinds/wave/wave_spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef FDW_HAVE_CUDA
extern const struct fdw_cuda_ops fdw_ete_cuda;
#endif

static const char *const KEYS[] = {"velocity", "time", "sources", "receivers", "boundary",
                                   "survey", "ete", NULL};

/* p, p_prev (8 B/point) and the 2-byte bin index, ghost planes of the two fields and the
 * index at each boundary between two devices' slabs, the receiver recordings, and the
 * largest table (65,536 bins of 64 B) on every device. */
static uint64_t ete_device_bytes(const fdw_spec *spec)
{
    const uint64_t table = (uint64_t)ETE_MAX_BINS * ETE_TABLE_STRIDE * sizeof(float);
    return wave_device_bytes(spec, 10, 3) + (uint64_t)spec->ndevices * table;
}

/* The arrays of d (not d itself). */
static void free_arrays(fdw_ete_data *d)
{
    free(d->table);
    free((void *)d->idx);
    free(d->bin_v);
    free(d->bin_err);
    free(d->bin_max);
}

static void ete_free_problem(fdw_problem *prob)
{
    fdw_ete_data *d = (fdw_ete_data *)prob->kdata;
    if (!d)
        return;
    if (!d->borrowed)
        free_arrays(d);
    free(d);
    prob->kdata = NULL;
}

static void ete_shed(fdw_problem *prob)
{
    fdw_ete_data *d = (fdw_ete_data *)prob->kdata;
    if (!d->borrowed)
        free((void *)d->idx);
    d->idx = NULL;
}

/* A survey's shots share the bins, the index and the fitted table: one model, dt and band,
 * so one fit (kind.h's share). */
static fdw_status ete_share(const fdw_spec *spec, const float *model, void **shared,
                            fdw_error *err)
{
    fdw_ete_data *d = calloc(1, sizeof *d);
    if (!d)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the ETE table");
    const fdw_ete_spec *k = spec->kspec;
    if (k->data) { /* the parse's, checked on the model: borrowed (the spec frees it) */
        *d = *k->data;
        d->borrowed = 1;
        *shared = d;
        return FDW_OK;
    }
    const size_t npts = (size_t)spec->nx * spec->ny * spec->nz;
    fdw_status st = fdw_ete_build_table(spec, model, npts, d, err);
    if (st != FDW_OK) {
        free_arrays(d);
        free(d);
        return st;
    }
    *shared = d;
    return FDW_OK;
}

static void ete_unshare(void *shared)
{
    if (!((fdw_ete_data *)shared)->borrowed)
        free_arrays(shared);
    free(shared);
}

/* The evolution operator's source term. Over one step the exact update of a mode of
 * angular frequency w driven by f is p+ - 2 cos(w dt) p + p- = int_{-dt}^{dt} sin(w (dt -
 * |s|)) / w f(t + s) ds, whose response at resonance (w equal to the source's frequency W,
 * the propagating far field) is dt^2 sin(W dt) / (W dt) F(W): the spectrum of dt^2 times
 * the average of f over [t - dt, t + dt]. Injecting f(t) itself, as the finite-difference
 * kinds do, would scale the far field by (W dt) / sin(W dt): 3 % at W dt = 0.43. So each
 * wavelet sample becomes that average: for a Ricker exactly, through its antiderivative
 * A tau exp(-(pi f0 tau)^2); for a file wavelet (one sample per dt, linear between
 * samples) (f[n-1] + 2 f[n] + f[n+1]) / 4. */
/* tau exp(-(pf tau)^2), 0 where the exponent passes 1600 (exp gives 0 there) or is not a
 * number (an infinite tau); the same operations as before the guard otherwise. */
static double ricker_anti(double pf, double tau)
{
    const double e = pf * pf * tau * tau;
    return e <= 1600.0 ? tau * exp(-e) : 0.0;
}

static void average_sources(const fdw_spec *spec, fdw_problem *prob)
{
    float *wav = (float *)prob->wavelets;
    const long nt = prob->nt;
    const double dt = spec->dt, scale = dt * dt / (spec->dx * spec->dy * spec->dz);
    for (int q = 0; q < spec->nsources; q++) {
        const fdw_source *src = &spec->sources[q];
        float *w = wav + (size_t)q * (size_t)nt;
        for (long it = 0; it < nt; it++) {
            double g;
            if (src->wavelet == FDW_WAVELET_RICKER) {
                const double a = it * dt - src->delay + dt, b = it * dt - src->delay - dt;
                const double pf = M_PI * src->f0;
                /* (the spec keeps (2 pi f0 dt)^2 >= 4 float32 epsilons, so pf dt > 3e-4 and
                 * the two antiderivatives do not cancel within the wavelet) */
                g = src->amplitude * (ricker_anti(pf, a) - ricker_anti(pf, b)) / (2.0 * dt);
            } else {
                const long n = src->samples ? src->nsamples : 0;
                const double fm = it - 1 >= 0 && it - 1 < n ? src->samples[it - 1] : 0.0;
                const double f0 = it < n ? src->samples[it] : 0.0;
                const double fp = it + 1 < n ? src->samples[it + 1] : 0.0;
                g = (fm + 2.0 * f0 + fp) / 4.0;
            }
            w[it] = (float)(scale * g);
        }
    }
}

static fdw_status ete_build(const fdw_spec *spec, fdw_problem *prob, fdw_error *err)
{
    fdw_ete_data *d = fdw_problem_alloc(1, sizeof *d, "the ETE operator table", err);
    if (!d)
        return FDW_ERR_NOMEM;
    prob->kdata = d;
    fdw_status st = FDW_OK;
    const fdw_ete_spec *k = spec->kspec;
    const fdw_ete_data *made = spec->kind_cache ? spec->kind_cache : k->data;
    if (made) { /* a survey's shared fit, or the one the parse checked: borrowed */
        *d = *made;
        d->borrowed = 1;
    } else {
        const size_t npts = (size_t)spec->nx * spec->ny * spec->nz;
        float *v = fdw_problem_alloc(npts, sizeof(float), "the velocity model", err);
        if (!v)
            return FDW_ERR_NOMEM;
        st = fdw_model_load(spec, v, err);
        if (st == FDW_OK)
            st = fdw_ete_build_table(spec, v, npts, d, err);
        free(v);
    }
    if (st == FDW_OK)
        st = fdw_problem_wave(spec, prob, err);
    if (st == FDW_OK)
        average_sources(spec, prob);
    return st;
}

static fdw_status ete_check(const fdw_problem *p, const fdw_plan *plan, fdw_error *err)
{
    (void)plan;
    const fdw_ete_data *d = p->kdata;
    if (!d || !d->table || d->nv < 1 || d->nv > ETE_MAX_BINS)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "ete problem without its operator table");
    if (p->radius != 4)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "ete problem of radius %d (the 37-point "
                        "stencil has radius 4)", p->radius);
    return FDW_OK;
}

/* ete_fit.json: every bin's velocity, phase error and largest |S|. */
static fdw_status write_report(const fdw_run_state *r, const fdw_ete_data *d, fdw_error *err)
{
    const fdw_spec *spec = r->spec;
    const fdw_ete_spec *k = spec->kspec;
    char path[FDW_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/ete_fit.json", r->opts->out_dir);
    fdw_atomic_file af;
    fdw_status st = fdw_atomic_open(&af, path, err);
    if (st != FDW_OK)
        return st;
    fprintf(af.fp, "{\"dt\": %.17g, \"band\": {\"%s\": %.17g}, \"nodes\": %d, "
            "\"binning_error\": %.6g, \"worst_phase_error\": %.6g, \"max_abs_symbol\": %.12g, "
            "\"bins\": [", spec->dt, k->fmax > 0 ? "fmax" : "ppw",
            k->fmax > 0 ? k->fmax : k->ppw, d->nodes, d->binning_error, d->worst_err,
            d->worst_max);
    for (int b = 0; b < d->nv; b++)
        fprintf(af.fp, "%s\n {\"v\": %.9g, \"phase_error\": %.6g, \"max_abs_symbol\": %.12g}",
                b ? "," : "", d->bin_v[b], d->bin_err[b], d->bin_max[b]);
    fprintf(af.fp, "]}\n");
    st = fdw_atomic_commit(&af, err);
    if (st != FDW_OK)
        return st;
    const long dims[1] = {d->nv};
    fdw_manifest_add(r->manifest, "ete_fit.json", "fit", "json",
                     "ETE operator fit per velocity bin: v (m/s), worst relative phase-velocity "
                     "error in the band, largest |S(k)| over the Nyquist cube", 1, dims, "", -1,
                     -1.0);
    return FDW_OK;
}

static fdw_status ete_finish(fdw_run_state *r, char *extra, size_t len, fdw_error *err)
{
    fdw_status st = fdw_run_write_gathers(r, extra, len, err);
    const fdw_ete_data *d = r->prob.kdata;
    if (st != FDW_OK || !r->root || !d)
        return st;
    st = write_report(r, d, err);
    if (st == FDW_OK)
        snprintf(extra, len, ", \"ete\": {\"bins\": %d, \"worst_phase_error\": %.4g, "
                 "\"max_abs_symbol\": %.12g, \"binning_error\": %.3g, \"fit\": "
                 "\"ete_fit.json\"}", d->nv, d->worst_err, d->worst_max, d->binning_error);
    return st;
}

const fdw_kind_ops fdw_kind_ete = {
    .name = "ete",
    .fixed_order = 8,
    .wave = 1,
    .section = {
        .keys = KEYS,
        .parse = fdw_ete_parse,
        .warnings = fdw_ete_warnings,
        .free = fdw_ete_free_spec,
        .device_bytes = ete_device_bytes,
    },
    .problem = {
        .build = ete_build,
        .check = ete_check,
        .free = ete_free_problem,
        .shed = ete_shed,
        .share = ete_share,
        .unshare = ete_unshare,
    },
    .run = {
        .cpu = &fdw_ete_cpu,
#ifdef FDW_HAVE_CUDA
        .cuda = &fdw_ete_cuda,
#endif
    },
    .out = {
        .finish = ete_finish,
        .unstable_field = "time.dt",
        .unstable_hint = "the ETE operator at this dt is unstable on this model (where velocity "
                         "bins meet): a smaller time.dt, or \"auto\", whose check on the model "
                         "picks a stable dt",
    },
};
