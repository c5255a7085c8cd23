/* ete_table.c — from a velocity model to the ETE kind's coefficient table and bin index
 * (ete.h): bin the velocities (exactly, one bin per distinct value, when there are few
 * enough; else in log-spaced bins), fit the operator of every bin, and report each bin's
 * phase error and largest |S|. Many bins are not all fitted: operators are fitted at nodes
 * spaced at most NODE_DR apart in Courant number and each bin's is interpolated linearly in
 * v^2 between its two nodes. That keeps both consistency constraints exactly (they are
 * linear in r^2) and stability (a convex combination of symbols with |S| <= 1 keeps it);
 * each interpolated bin's phase error is measured like a fitted one's. */
#include "kinds/ete/ete.h"
#include "core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NODE_DR 0.01           /* largest Courant-number step between fitted nodes */
#define HASH_BITS 18           /* distinct-value table: 2^18 slots for <= 65536 values */

/* Open-addressing set of float bit patterns with a bin number each. */
typedef struct vset {
    uint32_t *key;
    int32_t *bin;              /* -1: empty */
    int count, limit;
} vset;

static uint32_t fbits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static size_t slot_of(const vset *s, uint32_t k)
{
    size_t h = (size_t)((k * 2654435761u) >> (32 - HASH_BITS));
    while (s->bin[h] >= 0 && s->key[h] != k)
        h = (h + 1) & ((1u << HASH_BITS) - 1);
    return h;
}

/* Insert every value; 0, or 1 as soon as there are more than s->limit distinct ones. */
static int collect(vset *s, const float *v, size_t n)
{
    for (size_t p = 0; p < n; p++) {
        const uint32_t k = fbits(v[p]);
        size_t h = slot_of(s, k);
        if (s->bin[h] >= 0)
            continue;
        if (s->count == s->limit)
            return 1;
        s->key[h] = k;
        s->bin[h] = s->count++;
    }
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The table row of operator c at Courant number r = v dt / h_min (ete.h): w[0] = alpha =
 * r^2, w[s] = 2 c[s] / alpha; the centre is implied by the weights' sum. */
static void table_row(const double *c, double r, float *w)
{
    const double alpha = r * r;
    w[0] = (float)alpha;
    for (int s = 1; s < ETE_NCOEF; s++)
        w[s] = (float)(2.0 * c[s] / alpha);
}

static fdw_status fit_fail(fdw_error *err, ete_fit_status st, double v, double dt)
{
    if (st == ETE_FIT_UNSTABLE)
        return fdw_fail(err, FDW_ERR_SPEC, "time.dt", "no stable ETE operator at v = %g m/s "
                        "with dt %g s", v, dt);
    if (st == ETE_FIT_NOMEM)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory fitting the ETE operators");
    return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "the ETE operator fit at v = %g m/s, dt %g s "
                    "failed in the LP solver", v, dt);
}

/* Bins: exact or log-spaced; fills d->nv, d->bin_v and idx. */
static fdw_status make_bins(const fdw_spec *spec, const float *v, size_t n, uint16_t *idx,
                            fdw_ete_data *d, fdw_error *err)
{
    const fdw_ete_spec *k = spec->kspec;
    float lo = INFINITY, hi = 0.0f;
    for (size_t p = 0; p < n; p++) {
        if (!(v[p] > 0) || !isfinite(v[p]))
            return fdw_fail(err, FDW_ERR_SPEC, "velocity", "the velocity model has a value %g "
                            "at point %zu: velocities must be positive and finite",
                            (double)v[p], p);
        lo = fminf(lo, v[p]);
        hi = fmaxf(hi, v[p]);
    }
    vset set = {0};
    set.limit = k->nv > 0 ? k->nv : ETE_MAX_BINS;
    set.key = malloc(sizeof(uint32_t) << HASH_BITS);
    set.bin = malloc(sizeof(int32_t) << HASH_BITS);
    if (!set.key || !set.bin) {
        free(set.key);
        free(set.bin);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory binning the velocities");
    }
    memset(set.bin, 0xff, sizeof(int32_t) << HASH_BITS);
    fdw_status st = FDW_OK;
    if (collect(&set, v, n) == 0) {
        /* exact: one bin per distinct value, in increasing order */
        float *vals = malloc((size_t)set.count * sizeof *vals);
        d->bin_v = malloc((size_t)set.count * sizeof *d->bin_v);
        if (!vals || !d->bin_v) {
            free(vals);
            st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory binning the velocities");
            goto out;
        }
        for (size_t h = 0; h < ((size_t)1 << HASH_BITS); h++)
            if (set.bin[h] >= 0)
                memcpy(&vals[set.bin[h]], &set.key[h], sizeof(float));
        qsort(vals, (size_t)set.count, sizeof *vals, cmp_float);
        for (int b = 0; b < set.count; b++) {
            set.bin[slot_of(&set, fbits(vals[b]))] = b;
            d->bin_v[b] = vals[b];
        }
        free(vals);
        d->nv = set.count;
#pragma omp parallel for schedule(static)
        for (size_t p = 0; p < n; p++)
            idx[p] = (uint16_t)set.bin[slot_of(&set, fbits(v[p]))];
        d->binning_error = 0.0;
        goto out;
    }
    /* log-spaced bins of equal relative width */
    const double span = log((double)hi / (double)lo);
    int nv = k->nv > 0 ? k->nv : (int)fmin(ETE_MAX_BINS, ceil(span / ETE_BIN_WIDTH));
    if (nv < 1)
        nv = 1;
    const double w = span / nv;
    d->nv = nv;
    d->bin_v = malloc((size_t)nv * sizeof *d->bin_v);
    if (!d->bin_v) {
        st = fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory binning the velocities");
        goto out;
    }
    for (int b = 0; b < nv; b++)
        d->bin_v[b] = (double)lo * exp((b + 0.5) * w);
    double worst = 0.0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (size_t p = 0; p < n; p++) {
        int b = (int)(log((double)v[p] / (double)lo) / w);
        b = b < 0 ? 0 : b >= nv ? nv - 1 : b;
        idx[p] = (uint16_t)b;
        double e = fabs((double)v[p] - d->bin_v[b]) / (double)v[p];
        worst = e > worst ? e : worst;
    }
    d->binning_error = worst;
out:
    free(set.key);
    free(set.bin);
    return st;
}

fdw_status fdw_ete_build_table(const fdw_spec *spec, const float *v, size_t npts,
                               fdw_ete_data *d, fdw_error *err)
{
    uint16_t *idx = malloc(npts * sizeof *idx);
    if (!idx)
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory for the ETE bin index "
                        "(%.1f MiB)", npts * 2.0 / 1048576.0);
    d->idx = idx;
    fdw_status st = make_bins(spec, v, npts, idx, d, err);
    if (st != FDW_OK)
        return st;
    const int nv = d->nv;
    const double dt = spec->dt, hmin = fmin(spec->dx, fmin(spec->dy, spec->dz));
    d->table = calloc((size_t)nv * ETE_TABLE_STRIDE, sizeof *d->table);
    d->bin_err = calloc((size_t)nv, sizeof *d->bin_err);
    d->bin_max = calloc((size_t)nv, sizeof *d->bin_max);
    /* nodes: evenly spaced in v^2, at most NODE_DR apart in Courant number */
    const double v0 = d->bin_v[0], v1 = d->bin_v[nv - 1];
    int nn = (int)ceil((v1 - v0) * dt / hmin / NODE_DR) + 1;
    if (nn < 2)
        nn = 2;
    const int direct = nv <= nn;
    if (direct)
        nn = nv;
    double *node_v = malloc((size_t)nn * sizeof *node_v);
    ete_op *node = malloc((size_t)nn * sizeof *node);
    if (!d->table || !d->bin_err || !d->bin_max || !node_v || !node) {
        free(node_v);
        free(node);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of memory for the ETE table");
    }
    for (int i = 0; i < nn; i++)
        node_v[i] = direct ? d->bin_v[i]
                           : sqrt(v0 * v0 + (v1 * v1 - v0 * v0) * i / (double)(nn - 1));
    ete_fit_status fst = ETE_FIT_OK;
    int bad = -1;
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < nn; i++) {
        ete_band b;
        fdw_ete_band(spec, node_v[i], dt, &b);
        ete_fit_status s = ete_fit(&b, &node[i]);
        if (s != ETE_FIT_OK) {
#pragma omp critical(ete_fit_fail)
            {
                if (bad < 0) {
                    bad = i;
                    fst = s;
                }
            }
        }
    }
    if (bad >= 0) {
        st = fit_fail(err, fst, node_v[bad], dt);
        free(node_v);
        free(node);
        return st;
    }
    d->nodes = nn;
#pragma omp parallel for schedule(dynamic, 16)
    for (int b = 0; b < nv; b++) {
        double c[ETE_NCOEF];
        if (direct) {
            memcpy(c, node[b].c, sizeof c);
            d->bin_err[b] = node[b].phase_err;
            d->bin_max[b] = node[b].max_abs;
        } else {
            const double v2 = d->bin_v[b] * d->bin_v[b], a2 = v0 * v0, z2 = v1 * v1 - a2;
            double pos = z2 > 0 ? (v2 - a2) / z2 * (nn - 1) : 0.0;
            int i = (int)pos;
            i = i < 0 ? 0 : i > nn - 2 ? nn - 2 : i;
            const double lam = fmin(fmax(pos - i, 0.0), 1.0);
            for (int s = 0; s < ETE_NCOEF; s++)
                c[s] = (1.0 - lam) * node[i].c[s] + lam * node[i + 1].c[s];
            ete_band band;
            fdw_ete_band(spec, d->bin_v[b], dt, &band);
            d->bin_err[b] = ete_phase_error(c, &band);
            d->bin_max[b] = (1.0 - lam) * node[i].max_abs + lam * node[i + 1].max_abs;
        }
        table_row(c, d->bin_v[b] * dt / hmin, d->table + (size_t)b * ETE_TABLE_STRIDE);
    }
    d->worst_err = 0.0;
    d->worst_max = 0.0;
    for (int b = 0; b < nv; b++) {
        d->worst_err = fmax(d->worst_err, d->bin_err[b]);
        d->worst_max = fmax(d->worst_max, d->bin_max[b]);
    }
    free(node_v);
    free(node);
    return FDW_OK;
}
