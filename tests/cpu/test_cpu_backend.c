/* test_cpu_backend.c — the CPU backend against a naive triple-loop reference written here
 * (double precision, outside-the-grid handled with explicit branches; sponge or CPML),
 * bit-for-bit equality of 1, 2, 3 and 4 slabs (wavefields and receiver traces, with a
 * sponge or a CPML), the periodic derivative against the analytic one, and the plan rule
 * of the CPML (no slab boundary in its z layers). Problems are built directly as
 * fdw_problem values. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/backend.h"
#include "run/cpml.h"
#include "kinds/kind.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/derivative/derivative.h"
#include "kinds/stencil/stencil.h"
#include "core/error.h"
#include "core/fd_coeffs.h"
#include "run/plan.h"

/* ---- deterministic random numbers --------------------------------------- */

static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 1; }
static double rng_unit(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static int rng_int(int n) { return (int)(rng_unit() * n); }

/* ---- building problems --------------------------------------------------- */

/* Every choice automatic, as a run makes it. */
static const fdw_tuning automatic;

typedef struct test_case {
    fdw_problem p;
    fdw_acoustic_data ad;      /* p.kdata of the acoustic cases */
    fdw_stencil_data sd;       /* ... of the stencil cases */
    fdw_derivative_data dd;    /* ... of the derivative cases */
    float *vdt2, *qx, *qy, *qz, *wavelets, *init;
    fdw_tap *src, *rec;
    float *pml[3][2];          /* CPML a and b per axis */
} test_case;

static void tc_free(test_case *t)
{
    for (int a = 0; a < 3; a++) {
        free(t->pml[a][0]);
        free(t->pml[a][1]);
    }
    free(t->vdt2);
    free(t->qx);
    free(t->qy);
    free(t->qz);
    free(t->wavelets);
    free(t->init);
    free(t->src);
    free(t->rec);
    memset(t, 0, sizeof *t);
}

static uint64_t gidx(const fdw_problem *p, int i, int j, int k)
{
    return (uint64_t)i + (uint64_t)p->nx * ((uint64_t)j + (uint64_t)p->ny * (uint64_t)k);
}

/* Damping profile: zero inside, growing quadratically over `w` points at both ends
 * (the low end only when `top_free`, which leaves z's top face to the free surface). */
static float *sponge(int n, int w, double qmax, int top_free)
{
    float *q = calloc((size_t)n, sizeof *q);
    for (int i = 0; i < n; i++) {
        double d = 0;
        if (!top_free && i < w)
            d = (double)(w - i) / w;
        if (i >= n - w)
            d = (double)(i - (n - w - 1)) / w;
        q[i] = (float)(qmax * d * d);
    }
    return q;
}

/* Acoustic problem with random stable vdt2 on spacings (1, 1.3, 0.8), 3 sources of 2 taps
 * each spread over z, 4 receivers of 3 taps each, receivers every `interval` steps. */
static void make_acoustic(test_case *t, int nx, int ny, int nz, int order, int with_sponge,
                          int free_surface, long nt, int interval, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    rng_seed(seed);
    fdw_problem *p = &t->p;
    p->kind = fdw_kind_find("acoustic");
    p->kdata = &t->ad;
    p->tuning = &automatic;
    p->nx = nx;
    p->ny = ny;
    p->nz = nz;
    p->radius = order / 2;
    double c[FDW_MAX_RADIUS + 1] = {0};
    ck_assert_int_eq(fdw_fd2_coeffs(order, c), 0);
    const double dx = 1.0, dy = 1.3, dz = 0.8;
    for (int m = 0; m <= p->radius; m++) {
        t->ad.cx[m] = (float)(c[m] / (dx * dx));
        t->ad.cy[m] = (float)(c[m] / (dy * dy));
        t->ad.cz[m] = (float)(c[m] / (dz * dz));
    }
    double vmax = 4.0 / (fdw_fd2_lambda(order) * (1 / (dx * dx) + 1 / (dy * dy) + 1 / (dz * dz)));
    size_t n = (size_t)nx * ny * nz;
    t->vdt2 = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        t->vdt2[i] = (float)(vmax * (0.3 + 0.6 * rng_unit()));
    t->ad.vdt2 = t->vdt2;
    if (with_sponge) {
        t->qx = sponge(nx, 5, 0.15, 0);
        t->qy = sponge(ny, 4, 0.1, 0);
        t->qz = sponge(nz, 4, 0.12, free_surface);
        p->qx = t->qx;
        p->qy = t->qy;
        p->qz = t->qz;
    }
    p->free_surface = free_surface;
    p->nt = nt;
    const int nsrc = 3;
    t->wavelets = malloc((size_t)nsrc * nt * sizeof(float));
    for (long i = 0; i < nsrc * nt; i++)
        t->wavelets[i] = (float)(rng_unit() * 2 - 1);
    p->wavelets = t->wavelets;
    p->nsrc_taps = 2 * nsrc;
    t->src = calloc((size_t)p->nsrc_taps, sizeof(fdw_tap));
    for (int s = 0; s < nsrc; s++) {
        int k = (int)((s + 0.5) * nz / nsrc); /* one source per third of the depth */
        for (int q = 0; q < 2; q++) {
            fdw_tap *tp = &t->src[2 * s + q];
            tp->index = gidx(p, 2 + rng_int(nx - 4), 2 + rng_int(ny - 4), k + q < nz ? k + q : k);
            tp->weight = (float)(0.25 + rng_unit());
            tp->owner = s;
        }
    }
    p->src_taps = t->src;
    p->nreceivers = 4;
    p->nrec_taps = 12;
    t->rec = calloc(12, sizeof(fdw_tap));
    for (int q = 0; q < 12; q++) {
        t->rec[q].index = gidx(p, rng_int(nx), rng_int(ny), rng_int(nz));
        t->rec[q].weight = (float)rng_unit();
        t->rec[q].owner = q % 4;
    }
    p->rec_taps = t->rec;
    p->rec_interval = interval;
    p->nrec_slots = nt / interval + 1;
}

/* Replace the sponge of an acoustic case by a CPML with layers w[axis][low/high] (0: none;
 * an axis with both 0 gets no arrays), profiles from fdw_cpml_profile for the case's
 * spacings (1, 1.3, 0.8) and velocities (vdt2 <= vmax_dt2), or (random_ab) random a in
 * [-0.4, -0.1] and b in [0.6, 0.95] on every layer point, so that every psi a stencil reads
 * matters; first-derivative weights of the case's order. Some source and receiver taps are
 * moved into the layers. */
static void add_cpml_ab(test_case *t, int w[3][2], double dt, int random_ab)
{
    fdw_problem *p = &t->p;
    p->qx = p->qy = p->qz = NULL;
    const double h[3] = {1.0, 1.3, 0.8};
    const int n[3] = {p->nx, p->ny, p->nz};
    double c1[FDW_MAX_RADIUS + 1];
    ck_assert_int_eq(fdw_fd1_coeffs(2 * p->radius, c1), 0);
    double vmax2 = 0;
    for (size_t i = 0; i < (size_t)p->nx * p->ny * p->nz; i++)
        vmax2 = fmax(vmax2, t->vdt2[i]);
    const double vmax = sqrt(vmax2) / dt;
    for (int a = 0; a < 3; a++) {
        t->ad.pml_w[a][0] = w[a][0];
        t->ad.pml_w[a][1] = w[a][1];
        for (int m = 1; m <= p->radius; m++)
            t->ad.pml_d1[a][m] = (float)(c1[m] / h[a]);
        if (w[a][0] == 0 && w[a][1] == 0)
            continue;
        t->pml[a][0] = malloc((size_t)n[a] * sizeof(float));
        t->pml[a][1] = malloc((size_t)n[a] * sizeof(float));
        /* a strong layer (R 1e-4) and a CFS frequency of about a tenth of Nyquist */
        fdw_cpml_profile(n[a], w[a][0], w[a][1], h[a], vmax, dt, 1e-4, 0.05 / dt,
                         t->pml[a][0], t->pml[a][1]);
        for (int i = 0; random_ab && i < n[a]; i++)
            if (i < w[a][0] || i >= n[a] - w[a][1]) {
                t->pml[a][0][i] = (float)(-0.1 - 0.3 * rng_unit());
                t->pml[a][1][i] = (float)(0.6 + 0.35 * rng_unit());
            }
        t->ad.pml_a[a] = t->pml[a][0];
        t->ad.pml_b[a] = t->pml[a][1];
    }
    /* a source in the x-low / y-high edge of the layers, a receiver in a corner */
    t->src[0].index = gidx(p, 1, p->ny - 2, p->nz / 2);
    t->src[1].index = gidx(p, p->nx / 2, 2, p->nz - 2);
    t->rec[0].index = gidx(p, p->nx - 1, 0, p->nz - 1);
    t->rec[1].index = gidx(p, 2, p->ny / 2, 1);
}

static void add_cpml(test_case *t, int w[3][2], double dt)
{
    add_cpml_ab(t, w, dt, 0);
}

/* ---- running the backend ------------------------------------------------ */

/* Run nsteps on ndev slabs; return the volume (and traces if wanted). */
static float *run_backend(const fdw_problem *p, int ndev, long nsteps, float **traces)
{
    const fdw_backend *be = fdw_cpu_backend();
    fdw_plan plan;
    fdw_error err;
    fdw_error_clear(&err);
    ck_assert_msg(fdw_plan_slabs(p->nz, p->radius, ndev, NULL, &plan, &err) == FDW_OK, "%s",
                  err.message);
    void *ctx = NULL;
    ck_assert_msg(be->create(p, &plan, &ctx, &err) == FDW_OK, "%s", err.message);
    for (int d = 0; d < ndev; d++)
        ck_assert_uint_gt(be->device_bytes(ctx, d), 0);
    for (long it = 0; it < nsteps; it++)
        ck_assert_msg(be->step(ctx, it, &err) == FDW_OK, "%s", err.message);
    size_t n = (size_t)p->nx * p->ny * p->nz;
    float *vol = malloc(n * sizeof(float));
    fdw_slice all = {FDW_PLANE_VOLUME, 0};
    ck_assert_int_eq(be->extract(ctx, 1, &all, &vol, &err), FDW_OK);
    ck_assert_int_eq(fdw_backend_wait(be, ctx, &err), FDW_OK);
    if (traces) {
        *traces = malloc((size_t)p->nrec_slots * p->nreceivers * sizeof(float));
        ck_assert_int_eq(be->fetch_receivers(ctx, 0, p->nrec_slots, *traces, &err), FDW_OK);
    }
    be->destroy(ctx);
    return vol;
}

/* ---- the naive reference ------------------------------------------------ */

typedef struct ref_field {
    const fdw_problem *p;
    const double *u;
} ref_field;

/* u at (i, j, k) with zeros outside the grid and the free-surface mirror above k = 0. */
static double ref_at(const ref_field *f, int i, int j, int k)
{
    const fdw_problem *p = f->p;
    if (i < 0 || i >= p->nx || j < 0 || j >= p->ny || k >= p->nz)
        return 0.0;
    if (k < 0) {
        if (!p->free_surface || -k >= p->nz)
            return 0.0;
        return -f->u[gidx(p, i, j, -k)];
    }
    return f->u[gidx(p, i, j, k)];
}

/* Whether index i of an axis of n points lies in a CPML layer (w low, high). */
static int ref_in_layer(const int w[2], int n, int i)
{
    return i >= 0 && i < n && (i < w[0] || i >= n - w[1]);
}

/* The CPML correction of backend.h on up from u, in double, with full-grid psi / zeta
 * (zero off the layers): for each axis, psi everywhere in its layers, then zeta and up. */
static void ref_cpml(const fdw_problem *p, const double *u, double *up, double *psi[3],
                     double *zeta[3])
{
    const fdw_acoustic_data *A = p->kdata;
    const int n[3] = {p->nx, p->ny, p->nz}, r = p->radius;
    const float *c2[3] = {A->cx, A->cy, A->cz};
    ref_field f = {p, u};
    for (int a = 0; a < 3; a++) {
        if (!A->pml_a[a])
            continue;
        /* pass 1 */
        for (int k = 0; k < p->nz; k++)
            for (int j = 0; j < p->ny; j++)
                for (int i = 0; i < p->nx; i++) {
                    int idx[3] = {i, j, k};
                    if (!ref_in_layer(A->pml_w[a], n[a], idx[a]))
                        continue;
                    double d1 = 0;
                    for (int m = 1; m <= r; m++) {
                        int ip[3] = {i, j, k}, im[3] = {i, j, k};
                        ip[a] += m;
                        im[a] -= m;
                        d1 += A->pml_d1[a][m] * (ref_at(&f, ip[0], ip[1], ip[2]) -
                                                 ref_at(&f, im[0], im[1], im[2]));
                    }
                    size_t g = gidx(p, i, j, k);
                    psi[a][g] = A->pml_b[a][idx[a]] * psi[a][g] + A->pml_a[a][idx[a]] * d1;
                }
        /* pass 2 */
        for (int k = 0; k < p->nz; k++)
            for (int j = 0; j < p->ny; j++)
                for (int i = 0; i < p->nx; i++) {
                    int idx[3] = {i, j, k};
                    if (!ref_in_layer(A->pml_w[a], n[a], idx[a]))
                        continue;
                    double g1 = 0, d2 = c2[a][0] * ref_at(&f, i, j, k);
                    for (int m = 1; m <= r; m++) {
                        int ip[3] = {i, j, k}, im[3] = {i, j, k};
                        ip[a] += m;
                        im[a] -= m;
                        double pp = ref_in_layer(A->pml_w[a], n[a], ip[a])
                                        ? psi[a][gidx(p, ip[0], ip[1], ip[2])] : 0.0;
                        double pm = ref_in_layer(A->pml_w[a], n[a], im[a])
                                        ? psi[a][gidx(p, im[0], im[1], im[2])] : 0.0;
                        g1 += A->pml_d1[a][m] * (pp - pm);
                        d2 += c2[a][m] * (ref_at(&f, im[0], im[1], im[2]) +
                                          ref_at(&f, ip[0], ip[1], ip[2]));
                    }
                    size_t g = gidx(p, i, j, k);
                    zeta[a][g] = A->pml_b[a][idx[a]] * zeta[a][g] +
                                 A->pml_a[a][idx[a]] * (d2 + g1);
                    up[g] += A->vdt2[g] * (g1 + zeta[a][g]);
                }
    }
}

/* nsteps of the acoustic scheme in double; returns the field (as float) and the traces. */
static float *ref_acoustic(const fdw_problem *p, long nsteps, double **traces_out)
{
    const fdw_acoustic_data *A = p->kdata;
    size_t n = (size_t)p->nx * p->ny * p->nz;
    double *u = calloc(n, sizeof *u), *up = calloc(n, sizeof *up);
    double *psi[3], *zeta[3];
    for (int a = 0; a < 3; a++) {
        psi[a] = calloc(n, sizeof(double));
        zeta[a] = calloc(n, sizeof(double));
    }
    double *tr = calloc((size_t)p->nrec_slots * p->nreceivers, sizeof *tr);
    const int r = p->radius;
    for (long it = 0; it < nsteps; it++) {
        ref_field f = {p, u};
        for (int k = 0; k < p->nz; k++)
            for (int j = 0; j < p->ny; j++)
                for (int i = 0; i < p->nx; i++) {
                    double lap = ((double)A->cx[0] + A->cy[0] + A->cz[0]) * ref_at(&f, i, j, k);
                    for (int m = 1; m <= r; m++) {
                        lap += A->cx[m] * (ref_at(&f, i + m, j, k) + ref_at(&f, i - m, j, k));
                        lap += A->cy[m] * (ref_at(&f, i, j + m, k) + ref_at(&f, i, j - m, k));
                        lap += A->cz[m] * (ref_at(&f, i, j, k + m) + ref_at(&f, i, j, k - m));
                    }
                    double q = 0;
                    if (p->qx)
                        q += p->qx[i];
                    if (p->qy)
                        q += p->qy[j];
                    if (p->qz)
                        q += p->qz[k];
                    size_t g = gidx(p, i, j, k);
                    up[g] = (2 * u[g] - (1 - q) * up[g] + A->vdt2[g] * lap) / (1 + q);
                }
        ref_cpml(p, u, up, psi, zeta);
        if (p->free_surface)
            for (int j = 0; j < p->ny; j++)
                for (int i = 0; i < p->nx; i++)
                    up[gidx(p, i, j, 0)] = 0;
        for (int t = 0; t < p->nsrc_taps; t++)
            up[p->src_taps[t].index] +=
                (double)p->wavelets[p->src_taps[t].owner * p->nt + it] * p->src_taps[t].weight;
        double *tmp = u;
        u = up;
        up = tmp;
        if ((it + 1) % p->rec_interval == 0 && (it + 1) / p->rec_interval < p->nrec_slots) {
            double *slot = tr + (size_t)((it + 1) / p->rec_interval) * p->nreceivers;
            for (int t = 0; t < p->nrec_taps; t++)
                slot[p->rec_taps[t].owner] += u[p->rec_taps[t].index] * p->rec_taps[t].weight;
        }
    }
    float *out = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        out[i] = (float)u[i];
    free(u);
    free(up);
    for (int a = 0; a < 3; a++) {
        free(psi[a]);
        free(zeta[a]);
    }
    *traces_out = tr;
    return out;
}

/* max |a - b| / max |b| */
static double rel_diff_fd(const float *a, const double *b, size_t n)
{
    double dmax = 0, bmax = 0;
    for (size_t i = 0; i < n; i++) {
        dmax = fmax(dmax, fabs(a[i] - b[i]));
        bmax = fmax(bmax, fabs(b[i]));
    }
    ck_assert(bmax > 0);
    return dmax / bmax;
}

static double rel_diff_ff(const float *a, const float *b, size_t n)
{
    double *bd = malloc(n * sizeof *bd);
    for (size_t i = 0; i < n; i++)
        bd[i] = b[i];
    double r = rel_diff_fd(a, bd, n);
    free(bd);
    return r;
}

/* ---- acoustic against the reference ------------------------------------- */

static const int orders[] = {2, 4, 6, 8, 12, 16};

/* _i: orders[_i / 2], free surface = _i % 2; sponge on; 1 and 2 slabs. */
START_TEST(test_acoustic_vs_reference)
{
    int order = orders[_i / 2], fs = _i % 2;
    test_case t;
    const long nsteps = 40;
    make_acoustic(&t, 37, 29, 23, order, 1, fs, nsteps, 3, 100 + (uint64_t)_i);
    double *rtr;
    float *ref = ref_acoustic(&t.p, nsteps, &rtr);
    size_t n = (size_t)37 * 29 * 23;
    size_t ntr = (size_t)t.p.nrec_slots * t.p.nreceivers;
    for (int ndev = 1; ndev <= 2; ndev++) {
        float *tr;
        float *vol = run_backend(&t.p, ndev, nsteps, &tr);
        double e = rel_diff_ff(vol, ref, n);
        ck_assert_msg(e <= 1e-5, "order %d fs %d ndev %d: field rel diff %g", order, fs, ndev,
                      e);
        double etr = rel_diff_fd(tr, rtr, ntr);
        ck_assert_msg(etr <= 1e-5, "order %d fs %d ndev %d: traces rel diff %g", order, fs,
                      ndev, etr);
        for (int q = 0; q < t.p.nreceivers; q++)
            ck_assert(tr[q] == 0.0f); /* slot 0 is the zero initial state */
        free(vol);
        free(tr);
    }
    free(ref);
    free(rtr);
    tc_free(&t);
}
END_TEST

/* No sponge at all, and a sponge on x only (qy, qz NULL). */
START_TEST(test_acoustic_partial_sponge)
{
    for (int variant = 0; variant < 2; variant++) {
        test_case t;
        make_acoustic(&t, 21, 18, 17, 8, variant, 0, 30, 1, 7 + (uint64_t)variant);
        if (variant == 1) {
            t.p.qy = NULL;
            t.p.qz = NULL;
        }
        double *rtr;
        float *ref = ref_acoustic(&t.p, 30, &rtr);
        float *vol = run_backend(&t.p, 1, 30, NULL);
        double e = rel_diff_ff(vol, ref, (size_t)21 * 18 * 17);
        ck_assert_msg(e <= 1e-5, "variant %d: rel diff %g", variant, e);
        free(vol);
        free(ref);
        free(rtr);
        tc_free(&t);
    }
}
END_TEST

/* A sponge-free interior point is the textbook update: one step from a known state. */
START_TEST(test_acoustic_textbook_step)
{
    test_case t;
    make_acoustic(&t, 19, 17, 16, 4, 0, 0, 2, 1, 3);
    t.p.nsrc_taps = 1;                            /* a unit impulse at the centre */
    t.src[0].index = gidx(&t.p, 9, 8, 8);
    t.src[0].weight = 1.0f;
    t.src[0].owner = 0;
    t.wavelets[0] = 1.0f;
    t.wavelets[1] = 0.0f;
    float *vol = run_backend(&t.p, 1, 2, NULL);
    /* After step 0: u1 = delta. Step 1: u2 = 2 u1 - 0 + vdt2 * lap(u1). */
    size_t g = gidx(&t.p, 9, 8, 8);
    float c0 = (t.ad.cx[0] + t.ad.cy[0]) + t.ad.cz[0];
    float expect_c = (2.0f * 1.0f - 0.0f) + t.vdt2[g] * (c0 * 1.0f);
    ck_assert(vol[g] == expect_c);
    size_t gx = gidx(&t.p, 11, 8, 8); /* x neighbour at distance 2 */
    float lap = 0.0f * c0;
    lap += t.ad.cx[2] * (0.0f + 1.0f);
    float expect_x = (2.0f * 0.0f - 0.0f) + t.vdt2[gx] * lap;
    ck_assert(vol[gx] == expect_x);
    free(vol);
    tc_free(&t);
}
END_TEST

/* ---- decomposition: bit for bit ----------------------------------------- */

static void check_slabs_identical(const fdw_problem *p, long nsteps, int maxdev)
{
    size_t n = (size_t)p->nx * p->ny * p->nz;
    float *tr1 = NULL;
    float *one = run_backend(p, 1, nsteps, p->kind->wave ? &tr1 : NULL);
    double norm = 0;
    for (size_t i = 0; i < n; i++)
        norm += fabs(one[i]);
    ck_assert_msg(norm > 0 && isfinite(norm), "field is zero or not finite");
    for (int ndev = 2; ndev <= maxdev; ndev++) {
        float *trn = NULL;
        float *many = run_backend(p, ndev, nsteps, p->kind->wave ? &trn : NULL);
        ck_assert_msg(memcmp(one, many, n * sizeof(float)) == 0,
                      "kind %s order %d: %d slabs differ from 1 (rel %g)", p->kind->name,
                      2 * p->radius, ndev, rel_diff_ff(many, one, n));
        if (tr1)
            ck_assert_msg(memcmp(tr1, trn, (size_t)p->nrec_slots * p->nreceivers *
                                               sizeof(float)) == 0,
                          "%d slabs: receiver traces differ", ndev);
        free(many);
        free(trn);
    }
    free(one);
    free(tr1);
}

/* _i: 0 order 8 / 1 order 16, with sponge and free surface; 60 steps. */
START_TEST(test_acoustic_slabs)
{
    int order = _i == 0 ? 8 : 16;
    int nz = order == 8 ? 23 : 33;          /* 23: 6,6,6,5 planes; 33 on 4: 9,8,8,8 (r=8) */
    for (int fs = 0; fs <= 1; fs++) {
        test_case t;
        make_acoustic(&t, 37, 29, nz, order, 1, fs, 60, 2, 50 + (uint64_t)(_i * 2 + fs));
        /* receivers in every slab: one tap per z quarter */
        for (int q = 0; q < 12; q++)
            t.rec[q].index = gidx(&t.p, 3 + q, 4 + q, (q % 4) * nz / 4 + 1);
        check_slabs_identical(&t.p, 60, 4);
        tc_free(&t);
    }
}
END_TEST

/* Slabs exactly radius thick (order 16 on nz = 32 with 4 slabs; order 8 nz = 12 on 3). */
START_TEST(test_acoustic_thin_slabs)
{
    test_case t;
    make_acoustic(&t, 20, 19, 32, 16, 1, 1, 40, 1, 77);
    check_slabs_identical(&t.p, 40, 4);
    tc_free(&t);
    make_acoustic(&t, 20, 19, 12, 8, 1, 1, 40, 1, 78);
    check_slabs_identical(&t.p, 40, 3);
    tc_free(&t);
}
END_TEST

/* ---- CPML ---------------------------------------------------------------- */

/* The time step the cases' vdt2 stands for (any positive value; it scales a and b). */
#define CPML_DT 0.5

/* _i: order {4, 8, 16}[_i / 2], free surface _i % 2. CPML on every face (unequal widths),
 * against the double reference over 60 steps, on 1 and 2 slabs. */
START_TEST(test_cpml_vs_reference)
{
    static const int ord[3] = {4, 8, 16};
    const int order = ord[_i / 2], fs = _i % 2;
    const int nx = 30, ny = 27, nz = 40;
    const long nsteps = 60;
    test_case t;
    make_acoustic(&t, nx, ny, nz, order, 0, fs, nsteps, 3, 400 + (uint64_t)_i);
    int w[3][2] = {{5, 6}, {4, 5}, {fs ? 0 : 6, 5}};
    add_cpml(&t, w, CPML_DT);
    double *rtr;
    float *ref = ref_acoustic(&t.p, nsteps, &rtr);
    const size_t n = (size_t)nx * ny * nz, ntr = (size_t)t.p.nrec_slots * t.p.nreceivers;
    /* the CPML does something: the run without it differs */
    test_case plain;
    make_acoustic(&plain, nx, ny, nz, order, 0, fs, nsteps, 3, 400 + (uint64_t)_i);
    add_cpml(&plain, w, CPML_DT);
    for (int a = 0; a < 3; a++)
        plain.ad.pml_a[a] = plain.ad.pml_b[a] = NULL;
    float *vol0 = run_backend(&plain.p, 1, nsteps, NULL);
    ck_assert_double_gt(rel_diff_ff(vol0, ref, n), 1e-3);
    free(vol0);
    tc_free(&plain);
    for (int ndev = 1; ndev <= 2; ndev++) {
        float *tr;
        float *vol = run_backend(&t.p, ndev, nsteps, &tr);
        double e = rel_diff_ff(vol, ref, n);
        /* float against double: order 16's longer sums round a little more */
        ck_assert_msg(e <= 3e-5, "CPML order %d fs %d ndev %d: field rel diff %g", order, fs,
                      ndev, e);
        double etr = rel_diff_fd(tr, rtr, ntr);
        ck_assert_msg(etr <= 3e-5, "CPML order %d fs %d ndev %d: traces rel diff %g", order,
                      fs, ndev, etr);
        if (ndev == 1)
            printf("CPML order %d free surface %d: max |float - double| / max |double| = "
                   "%.2g (field), %.2g (traces)\n", order, fs, e, etr);
        free(vol);
        free(tr);
    }
    free(ref);
    free(rtr);
    tc_free(&t);
}
END_TEST

/* Layer shapes the common cases do not reach: an x layer longer than the backend's chunk
 * of 256 points, and interiors thinner than the stencil radius, where D1 of psi at one
 * layer reads the opposite layer's psi (x, y and z at once). Against the reference. */
START_TEST(test_cpml_odd_layers)
{
    struct { int nx, ny, nz; int w[3][2]; } cases[2] = {
        {290, 9, 24, {{262, 20}, {2, 3}, {4, 4}}},
        {30, 21, 24, {{13, 14}, {9, 10}, {10, 11}}},
    };
    for (int q = 0; q < 2; q++) {
        test_case t;
        const long nsteps = 30;
        make_acoustic(&t, cases[q].nx, cases[q].ny, cases[q].nz, 8, 0, 0, nsteps, 1,
                      700 + (uint64_t)q);
        add_cpml_ab(&t, cases[q].w, CPML_DT, 1);
        double *rtr;
        float *ref = ref_acoustic(&t.p, nsteps, &rtr);
        float *vol = run_backend(&t.p, 1, nsteps, NULL);
        const double e = rel_diff_ff(vol, ref, (size_t)cases[q].nx * cases[q].ny * cases[q].nz);
        ck_assert_msg(e <= 1e-5, "case %d: rel diff %g", q, e);
        free(vol);
        free(ref);
        free(rtr);
        tc_free(&t);
    }
}
END_TEST

/* 1, 2, 3 and 4 slabs bit for bit with a CPML (orders 8 and 16, with and without free
 * surface, a layer on x only as well), sources and receivers in the layers. Slabs are at
 * least z width + radius thick where they meet a z layer (the plan rule). */
START_TEST(test_cpml_slabs)
{
    const int order = _i == 0 ? 8 : 16, r = order / 2;
    for (int variant = 0; variant < 3; variant++) {
        const int fs = variant == 1;
        const int wz = 4, nz = 4 * (wz + r) + 1; /* 4 slabs: each >= wz + r planes */
        test_case t;
        make_acoustic(&t, 26, 23, nz, order, 0, fs, 50, 2, 500 + (uint64_t)(_i * 3 + variant));
        int w[3][2] = {{4, 3}, {3, 5}, {fs ? 0 : wz, wz}};
        if (variant == 2) { /* x only */
            w[1][0] = w[1][1] = w[2][0] = w[2][1] = 0;
        }
        add_cpml(&t, w, CPML_DT);
        /* receivers in every slab, some in the layers */
        for (int q = 2; q < 12; q++)
            t.rec[q].index = gidx(&t.p, q, 20 - q, (q % 4) * nz / 4 + (q % 3));
        check_slabs_identical(&t.p, 50, 4);
        tc_free(&t);
    }
}
END_TEST

/* A plan whose slab boundary falls in a z layer (or within the radius of one) is refused:
 * by the backend (an internal error: the engine never hands it such a plan) and by the
 * engine's check before any backend runs (a spec error on "devices" naming the fix), and
 * so is fdw_run of a spec asking for those devices. */
START_TEST(test_cpml_plan_rule)
{
    test_case t;
    make_acoustic(&t, 20, 18, 24, 8, 0, 0, 5, 1, 600);
    int w[3][2] = {{3, 3}, {3, 3}, {5, 4}};
    add_cpml(&t, w, CPML_DT);
    const fdw_backend *be = fdw_cpu_backend();
    fdw_plan plan;
    fdw_error err;
    void *ctx = (void *)1;
    /* 3 slabs of 8: boundary at 8 < 5 + 4 */
    ck_assert_int_eq(fdw_plan_slabs(24, 4, 3, NULL, &plan, &err), FDW_OK);
    fdw_error_clear(&err);
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_ERR_INTERNAL);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(err.message, "CPML"));
    int wz[2] = {5, 4};
    ck_assert_int_eq(fdw_cpml_bad_slab_boundary(wz, 24, 4, &plan), 8);
    /* 2 slabs of 12: 12 >= 9 and 24 - 12 >= 8 */
    ck_assert_int_eq(fdw_plan_slabs(24, 4, 2, NULL, &plan, &err), FDW_OK);
    ck_assert_int_eq(fdw_cpml_bad_slab_boundary(wz, 24, 4, &plan), -1);
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_OK);
    be->destroy(ctx);
    /* the bottom: zmax 9 with 2 slabs (24 - 12 < 9 + 4) */
    wz[1] = 9;
    ck_assert_int_eq(fdw_cpml_bad_slab_boundary(wz, 24, 4, &plan), 12);
    tc_free(&t);

    /* the engine: a spec on nz = 24 with a 6-point CPML, run on 3 devices (the parser
     * refuses "devices": 3 itself; a device list given to fdw_run is checked there) */
    const char *json =
        "{\"grid\":{\"nx\":20,\"ny\":18,\"nz\":24,\"dx\":10,\"dy\":10,\"dz\":10},"
        "\"order\":8,\"velocity\":{\"type\":\"constant\",\"value\":2000},"
        "\"time\":{\"nt\":3,\"dt\":\"auto\"},\"sources\":[{\"position\":[100,90,"
        "120],\"wavelet\":{\"type\":\"ricker\",\"f0\":20}}],"
        "\"boundary\":{\"type\":\"cpml\",\"width\":6},\"devices\":1}";
    fdw_spec *spec = NULL;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "%s",
                  err.message);
    ck_assert_int_eq(fdw_plan_slabs(24, 4, 3, NULL, &plan, &err), FDW_OK);
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_cpml_check_plan(spec, &plan, 0, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "devices");
    ck_assert_ptr_nonnull(strstr(err.message, "at most 2 devices"));
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_cpml_check_plan(spec, &plan, 1, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "boundary.width");
    ck_assert_ptr_nonnull(strstr(err.message, "MPI rank"));
    char dir[] = "/tmp/fdw-cpml-plan-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const int ids[3] = {0, 1, 2};
    fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CPU, .device_ids = ids,
                         .ndevice_ids = 3};
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_run(spec, &opts, NULL, NULL, &err), FDW_ERR_SPEC);
    ck_assert_str_eq(err.field, "devices");
    rmdir(dir);
    /* 2 devices fit */
    ck_assert_int_eq(fdw_plan_slabs(24, 4, 2, NULL, &plan, &err), FDW_OK);
    ck_assert_int_eq(fdw_cpml_check_plan(spec, &plan, 0, &err), FDW_OK);
    fdw_spec_free(spec);
}
END_TEST

/* ---- stencil kind ------------------------------------------------------- */

static void make_stencil(test_case *t, int nx, int ny, int nz, int order, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    rng_seed(seed);
    fdw_problem *p = &t->p;
    p->kind = fdw_kind_find("stencil");
    p->kdata = &t->sd;
    p->tuning = &automatic;
    p->nx = nx;
    p->ny = ny;
    p->nz = nz;
    p->radius = order / 2;
    /* c0 + 6 sum ci = 1 with alternating signs keeps the field bounded */
    double s = 0;
    for (int m = 1; m <= p->radius; m++) {
        t->sd.sc[m] = (float)((m % 2 ? 0.05 : -0.02) / m);
        s += 6 * t->sd.sc[m];
    }
    t->sd.sc[0] = (float)(0.5 - s);
    size_t n = (size_t)nx * ny * nz;
    t->init = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        t->init[i] = (float)(2 * rng_unit() - 1);
    p->init = t->init;
}

/* The stencil in the backend's float order, with zero outside the grid. */
static float *ref_stencil(const fdw_problem *p, int iters)
{
    const fdw_stencil_data *S = p->kdata;
    size_t n = (size_t)p->nx * p->ny * p->nz;
    float *d = malloc(n * sizeof(float)), *o = malloc(n * sizeof(float));
    memcpy(d, p->init, n * sizeof(float));
    for (int it = 0; it < iters; it++) {
        for (int k = 0; k < p->nz; k++)
            for (int j = 0; j < p->ny; j++)
                for (int i = 0; i < p->nx; i++) {
#define AT(a, b, c)                                                                         \
    ((a) < 0 || (a) >= p->nx || (b) < 0 || (b) >= p->ny || (c) < 0 || (c) >= p->nz        \
         ? 0.0f                                                                             \
         : d[gidx(p, a, b, c)])
                    float acc = S->sc[0] * d[gidx(p, i, j, k)];
                    for (int m = 1; m <= p->radius; m++)
                        acc += S->sc[m] * (((AT(i + m, j, k) + AT(i - m, j, k)) +
                                            (AT(i, j + m, k) + AT(i, j - m, k))) +
                                           (AT(i, j, k + m) + AT(i, j, k - m)));
#undef AT
                    o[gidx(p, i, j, k)] = acc;
                }
        float *tmp = d;
        d = o;
        o = tmp;
    }
    free(o);
    return d;
}

START_TEST(test_stencil_vs_reference)
{
    test_case t;
    make_stencil(&t, 37, 29, 23, orders[_i], 200 + (uint64_t)_i);
    float *ref = ref_stencil(&t.p, 5);
    float *vol = run_backend(&t.p, 1, 5, NULL);
    double e = rel_diff_ff(vol, ref, (size_t)37 * 29 * 23);
    ck_assert_msg(e <= 1e-5, "order %d: rel diff %g", orders[_i], e);
    free(vol);
    free(ref);
    tc_free(&t);
}
END_TEST

START_TEST(test_stencil_slabs)
{
    int order = _i == 0 ? 8 : 16;
    test_case t;
    make_stencil(&t, 31, 26, order == 8 ? 23 : 33, order, 300 + (uint64_t)_i);
    check_slabs_identical(&t.p, 12, 4);
    tc_free(&t);
}
END_TEST

/* ---- derivative kind ---------------------------------------------------- */

/* Field sin(2 pi p_a i_a / n_a) along `axis` times smooth factors on the other axes;
 * spacing h along every axis. */
static void make_derivative(test_case *t, int nx, int ny, int nz, fdw_axis axis, int periods,
                            double h)
{
    memset(t, 0, sizeof *t);
    fdw_problem *p = &t->p;
    p->kind = fdw_kind_find("derivative");
    p->kdata = &t->dd;
    p->tuning = &automatic;
    p->nx = nx;
    p->ny = ny;
    p->nz = nz;
    p->radius = 4;
    t->dd.axis = axis;
    double c[5];
    ck_assert_int_eq(fdw_fd1_coeffs(8, c), 0);
    for (int m = 0; m < 5; m++)
        t->dd.dc[m] = (float)(c[m] / h);
    size_t n = (size_t)nx * ny * nz;
    t->init = malloc(n * sizeof(float));
    int dims[3] = {nx, ny, nz};
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int idx[3] = {i, j, k};
                double v = 1;
                for (int a = 0; a < 3; a++) {
                    double ph = 2 * M_PI * idx[a] / dims[a];
                    v *= a == (int)axis ? sin(periods * ph) : 1.0 + 0.5 * cos(ph);
                }
                t->init[gidx(p, i, j, k)] = (float)v;
            }
    p->init = t->init;
}

static void check_derivative(fdw_axis axis, int ndev)
{
    int dims[3] = {8, 7, 9};
    dims[axis] = 64;
    const double h = 12.5, L = 64 * h;
    const int periods = 3;
    test_case t;
    make_derivative(&t, dims[0], dims[1], dims[2], axis, periods, h);
    float *out = run_backend(&t.p, ndev, 1, NULL);
    double emax = 0, amax = 0;
    for (int k = 0; k < dims[2]; k++)
        for (int j = 0; j < dims[1]; j++)
            for (int i = 0; i < dims[0]; i++) {
                int idx[3] = {i, j, k};
                double v = 1;
                for (int a = 0; a < 3; a++) {
                    double ph = 2 * M_PI * idx[a] / dims[a];
                    v *= a == (int)axis ? (2 * M_PI * periods / L) * cos(periods * ph)
                                        : 1.0 + 0.5 * cos(ph);
                }
                emax = fmax(emax, fabs(out[gidx(&t.p, i, j, k)] - v));
                amax = fmax(amax, fabs(v));
            }
    ck_assert_msg(emax / amax < 1e-4, "axis %d ndev %d: rel error %g", (int)axis, ndev,
                  emax / amax);
    free(out);
    tc_free(&t);
}

START_TEST(test_derivative_analytic)
{
    check_derivative(FDW_AXIS_X, 1);
    check_derivative(FDW_AXIS_Y, 1);
    check_derivative(FDW_AXIS_Z, 1);
    check_derivative(FDW_AXIS_Z, 3);
    check_derivative(FDW_AXIS_X, 2);
}
END_TEST

/* Repeated differentiation across slabs (ring exchange) equals one slab bit for bit;
 * also along x with 3 slabs, and a grid whose slabs are exactly 4 planes thick. */
START_TEST(test_derivative_slabs)
{
    test_case t;
    make_derivative(&t, 9, 7, 64, FDW_AXIS_Z, 2, 1.0);
    check_slabs_identical(&t.p, 3, 4);
    tc_free(&t);
    make_derivative(&t, 9, 7, 16, FDW_AXIS_Z, 1, 1.0);
    check_slabs_identical(&t.p, 3, 4);
    tc_free(&t);
    make_derivative(&t, 20, 7, 13, FDW_AXIS_X, 2, 1.0);
    check_slabs_identical(&t.p, 3, 3);
    tc_free(&t);
    make_derivative(&t, 6, 20, 13, FDW_AXIS_Y, 2, 1.0);
    check_slabs_identical(&t.p, 3, 3);
    tc_free(&t);
}
END_TEST

/* Periodic wrap on an axis shorter than the stencil reach (n = 3 < 4). */
START_TEST(test_derivative_short_axis)
{
    test_case t;
    make_derivative(&t, 3, 5, 4, FDW_AXIS_X, 1, 1.0);
    float *out = run_backend(&t.p, 1, 1, NULL);
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 3; i++) {
                const float *f = t.init;
                double acc = 0;
                for (int m = 1; m <= 4; m++)
                    acc += t.dd.dc[m] * (f[gidx(&t.p, (i + m) % 3, j, k)] -
                                        f[gidx(&t.p, ((i - m) % 3 + 3) % 3, j, k)]);
                ck_assert(fabs(out[gidx(&t.p, i, j, k)] - acc) < 1e-5);
            }
    free(out);
    tc_free(&t);
}
END_TEST

/* ---- extract, receivers and errors -------------------------------------- */

/* Slices agree with the volume, wherever the slab boundaries fall. */
START_TEST(test_extract_slices)
{
    test_case t;
    make_stencil(&t, 13, 11, 17, 4, 5);
    const fdw_backend *be = fdw_cpu_backend();
    fdw_plan plan;
    fdw_error err;
    ck_assert_int_eq(fdw_plan_slabs(17, 2, 3, NULL, &plan, &err), FDW_OK);
    void *ctx;
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_OK);
    ck_assert_int_eq(be->step(ctx, 0, &err), FDW_OK);
    fdw_slice rg[4] = {{FDW_PLANE_VOLUME, 0}, {FDW_PLANE_XY, 6}, {FDW_PLANE_XZ, 4},
                       {FDW_PLANE_YZ, 12}};
    float *h[4];
    h[0] = malloc(13 * 11 * 17 * sizeof(float));
    h[1] = malloc(13 * 11 * sizeof(float));
    h[2] = malloc(13 * 17 * sizeof(float));
    h[3] = malloc(11 * 17 * sizeof(float));
    ck_assert_int_eq(be->extract(ctx, 4, rg, h, &err), FDW_OK);
    for (int k = 0; k < 17; k++)
        for (int j = 0; j < 11; j++)
            for (int i = 0; i < 13; i++) {
                float v = h[0][gidx(&t.p, i, j, k)];
                if (k == 6)
                    ck_assert(h[1][j * 13 + i] == v);
                if (j == 4)
                    ck_assert(h[2][k * 13 + i] == v);
                if (i == 12)
                    ck_assert(h[3][k * 11 + j] == v);
            }
    fdw_slice bad = {FDW_PLANE_XY, 17};
    fdw_error_clear(&err);
    ck_assert_int_ne(be->extract(ctx, 1, &bad, h, &err), FDW_OK);
    ck_assert(err.message[0] != '\0');
    ck_assert_int_ne(be->fetch_receivers(ctx, 0, 1, h[0], &err), FDW_OK);
    be->destroy(ctx);
    for (int q = 0; q < 4; q++)
        free(h[q]);
    tc_free(&t);
}
END_TEST

/* Receivers with interval 4 over 10 steps: slots 0, 1, 2 (steps 4 and 8), and a slot
 * range past the end is an error. */
START_TEST(test_receiver_slots)
{
    test_case t;
    make_acoustic(&t, 16, 15, 14, 4, 1, 0, 10, 4, 9);
    double *rtr;
    float *ref = ref_acoustic(&t.p, 10, &rtr);
    ck_assert_int_eq(t.p.nrec_slots, 3);
    const fdw_backend *be = fdw_cpu_backend();
    fdw_plan plan;
    fdw_error err;
    ck_assert_int_eq(fdw_plan_slabs(14, 2, 2, NULL, &plan, &err), FDW_OK);
    void *ctx;
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_OK);
    for (long it = 0; it < 10; it++)
        ck_assert_int_eq(be->step(ctx, it, &err), FDW_OK);
    float tr[8];
    ck_assert_int_eq(be->fetch_receivers(ctx, 1, 2, tr, &err), FDW_OK);
    double emax = 0, amax = 0;
    for (int q = 0; q < 8; q++) {
        emax = fmax(emax, fabs(tr[q] - rtr[4 + q]));
        amax = fmax(amax, fabs(rtr[4 + q]));
    }
    ck_assert(amax > 0 && emax / amax <= 1e-5);
    ck_assert_int_eq(be->fetch_receivers(ctx, 2, 2, tr, &err), FDW_ERR_INTERNAL);
    be->destroy(ctx);
    free(ref);
    free(rtr);
    tc_free(&t);
}
END_TEST

/* A plan that does not match the problem, or a problem without its arrays, is refused
 * with an error value, not a crash. */
START_TEST(test_create_errors)
{
    test_case t;
    make_stencil(&t, 10, 10, 10, 8, 1);
    const fdw_backend *be = fdw_cpu_backend();
    fdw_plan plan;
    fdw_error err;
    void *ctx = (void *)1;
    ck_assert_int_eq(fdw_plan_slabs(10, 2, 2, NULL, &plan, &err), FDW_OK);
    fdw_error_clear(&err);
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_ERR_INTERNAL);
    ck_assert_ptr_null(ctx);
    ck_assert(err.message[0] != '\0');
    ck_assert_int_eq(fdw_plan_slabs(10, 4, 2, NULL, &plan, &err), FDW_OK);
    t.p.init = NULL;
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_ERR_INTERNAL);
    t.p.init = t.init;
    t.p.kind = NULL; /* no kind */
    ck_assert_int_eq(be->create(&t.p, &plan, &ctx, &err), FDW_ERR_INTERNAL);
    tc_free(&t);
}
END_TEST

/* A grid far beyond memory fails with FDW_ERR_NOMEM and a message giving the size, before
 * any model data is read. */
START_TEST(test_create_nomem)
{
    fdw_problem p;
    memset(&p, 0, sizeof p);
    fdw_acoustic_data ad;
    memset(&ad, 0, sizeof ad);
    float dummy = 0;
    ad.vdt2 = &dummy; /* never read: allocation fails first */
    p.kind = fdw_kind_find("acoustic");
    p.kdata = &ad;
    p.tuning = &automatic;
    p.nx = p.ny = p.nz = 100000;
    p.radius = 4;
    fdw_plan plan;
    fdw_error err;
    ck_assert_int_eq(fdw_plan_slabs(p.nz, 4, 2, NULL, &plan, &err), FDW_OK);
    void *ctx = (void *)1;
    fdw_error_clear(&err);
    ck_assert_int_eq(fdw_cpu_backend()->create(&p, &plan, &ctx, &err), FDW_ERR_NOMEM);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(err.message, "MiB"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpu_backend");
    TCase *tc = tcase_create("acoustic");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_acoustic_vs_reference, 0, 12);
    tcase_add_test(tc, test_acoustic_partial_sponge);
    tcase_add_test(tc, test_acoustic_textbook_step);
    tcase_add_loop_test(tc, test_acoustic_slabs, 0, 2);
    tcase_add_test(tc, test_acoustic_thin_slabs);
    tcase_add_test(tc, test_receiver_slots);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("cpml");
    tcase_set_timeout(tp, 60);
    tcase_add_loop_test(tp, test_cpml_vs_reference, 0, 6);
    tcase_add_loop_test(tp, test_cpml_slabs, 0, 2);
    tcase_add_test(tp, test_cpml_odd_layers);
    tcase_add_test(tp, test_cpml_plan_rule);
    suite_add_tcase(s, tp);
    TCase *ts = tcase_create("stencil");
    tcase_add_loop_test(ts, test_stencil_vs_reference, 0, 6);
    tcase_add_loop_test(ts, test_stencil_slabs, 0, 2);
    suite_add_tcase(s, ts);
    TCase *td = tcase_create("derivative");
    tcase_add_test(td, test_derivative_analytic);
    tcase_add_test(td, test_derivative_slabs);
    tcase_add_test(td, test_derivative_short_axis);
    suite_add_tcase(s, td);
    TCase *te = tcase_create("interface");
    tcase_add_test(te, test_extract_slices);
    tcase_add_test(te, test_create_errors);
    tcase_add_test(te, test_create_nomem);
    suite_add_tcase(s, te);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
