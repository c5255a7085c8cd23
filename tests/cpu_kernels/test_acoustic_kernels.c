/* test_acoustic_kernels.c — the CPU backend's acoustic kernels against each other.
 * cpu_acoustic.c runs the AVX-512 kernel (cpu_acoustic_avx512.c) where the processor has
 * AVX-512F and the portable one otherwise, or when the tuning asks for it (cpu_portable).
 * Checked here:
 *  - both give the same field within 1e-5 (relative to the largest value) for every order,
 *    row lengths below, at and across the vector width (the masked last vector) and past
 *    the kernel's 512-point row chunk, with no
 *    sponge, a full sponge and a sponge on x only (the undamped run inside a damped row);
 *  - slab splits that change which planes the AVX-512 kernel updates as pairs (odd and even
 *    plane counts) give the same bits as one slab;
 *  - the padding past nx stays zero: a field that must be symmetric in x stays exactly
 *    symmetric when the grid is mirrored (garbage written past the row end would break it).
 * On a machine without AVX-512 both runs use the portable kernel and the first check is
 * trivially an identity; the other two still test the portable kernel. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/backend.h"
#include "kinds/acoustic/acoustic.h"
#include "kinds/kind.h"
#include "core/error.h"
#include "core/fd_coeffs.h"
#include "run/plan.h"

typedef struct kcase {
    fdw_problem p;
    fdw_acoustic_data ad;      /* p.kdata */
    float *vdt2, *qx, *qy, *qz, *wavelets;
    fdw_tap src[4];
} kcase;

static uint64_t rng;
static double unit(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static float *profile(int n, int w, double qmax)
{
    float *q = calloc((size_t)n, sizeof *q);
    for (int i = 0; i < n; i++) {
        double d = i < w ? (double)(w - i) / w : i >= n - w ? (double)(i - (n - w - 1)) / w : 0;
        q[i] = (float)(qmax * d * d);
    }
    return q;
}

/* sponge: 0 none, 1 on every axis, 2 on x only. symmetric: sources mirrored in x and a
 * velocity symmetric in x. */
static void make_case(kcase *t, int nx, int ny, int nz, int order, int sponge, int symmetric,
                      long nt, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    fdw_problem *p = &t->p;
    p->kind = fdw_kind_find("acoustic");
    p->kdata = &t->ad;
    p->nx = nx;
    p->ny = ny;
    p->nz = nz;
    p->radius = order / 2;
    double c[FDW_MAX_RADIUS + 1] = {0};
    ck_assert_int_eq(fdw_fd2_coeffs(order, c), 0);
    const double h[3] = {1.0, 1.2, 0.9};
    for (int m = 0; m <= p->radius; m++) {
        t->ad.cx[m] = (float)(c[m] / (h[0] * h[0]));
        t->ad.cy[m] = (float)(c[m] / (h[1] * h[1]));
        t->ad.cz[m] = (float)(c[m] / (h[2] * h[2]));
    }
    double vmax = 4.0 / (fdw_fd2_lambda(order) *
                         (1 / (h[0] * h[0]) + 1 / (h[1] * h[1]) + 1 / (h[2] * h[2])));
    size_t n = (size_t)nx * ny * nz;
    t->vdt2 = malloc(n * sizeof(float));
    for (size_t q = 0; q < n; q++) {
        size_t i = q % (size_t)nx, rest = q / (size_t)nx;
        if (symmetric && (int)i >= (nx + 1) / 2)
            t->vdt2[q] = t->vdt2[rest * nx + (nx - 1 - i)];
        else
            t->vdt2[q] = (float)(vmax * (0.3 + 0.6 * unit()));
    }
    t->ad.vdt2 = t->vdt2;
    if (sponge) {
        t->qx = profile(nx, nx / 4 < 6 ? nx / 4 : 6, 0.15);
        p->qx = t->qx;
        if (sponge == 1) {
            t->qy = profile(ny, 3, 0.1);
            t->qz = profile(nz, 3, 0.12);
            p->qy = t->qy;
            p->qz = t->qz;
        }
    }
    p->nt = nt;
    t->wavelets = malloc((size_t)nt * sizeof(float));
    for (long i = 0; i < nt; i++)
        t->wavelets[i] = (float)(unit() * 2 - 1);
    p->wavelets = t->wavelets;
    for (int s = 0; s < 4; s += symmetric ? 2 : 1) {
        int i = (int)(unit() * nx), j = (int)(unit() * ny), k = (int)(unit() * nz);
        t->src[s] = (fdw_tap){(uint64_t)i + (uint64_t)nx * ((uint64_t)j + (uint64_t)ny * k),
                              (float)(0.5 + unit()), 0};
        if (symmetric)
            t->src[s + 1] = (fdw_tap){(uint64_t)(nx - 1 - i) +
                                          (uint64_t)nx * ((uint64_t)j + (uint64_t)ny * k),
                                      t->src[s].weight, 0};
    }
    p->nsrc_taps = 4;
    p->src_taps = t->src;
}

static void kcase_free(kcase *t)
{
    free(t->vdt2);
    free(t->qx);
    free(t->qy);
    free(t->qz);
    free(t->wavelets);
}

/* nsteps on ndev slabs with the kernel chosen by `portable`; the volume. */
static float *run(const fdw_problem *prob, int ndev, long nsteps, int portable)
{
    const fdw_tuning tuning = {.cpu_portable = portable};
    fdw_problem pp = *prob;
    pp.tuning = &tuning;
    const fdw_problem *p = &pp;
    const fdw_backend *be = fdw_cpu_backend();
    fdw_plan plan;
    fdw_error err;
    fdw_error_clear(&err);
    ck_assert_msg(fdw_plan_slabs(p->nz, p->radius, ndev, NULL, &plan, &err) == FDW_OK, "%s",
                  err.message);
    void *ctx = NULL;
    ck_assert_msg(be->create(p, &plan, &ctx, &err) == FDW_OK, "%s", err.message);
    for (long it = 0; it < nsteps; it++)
        ck_assert_msg(be->step(ctx, it, &err) == FDW_OK, "%s", err.message);
    size_t n = (size_t)p->nx * p->ny * p->nz;
    float *vol = malloc(n * sizeof(float));
    fdw_slice all = {FDW_PLANE_VOLUME, 0};
    ck_assert_int_eq(be->extract(ctx, 1, &all, &vol, &err), FDW_OK);
    ck_assert_int_eq(fdw_backend_wait(be, ctx, &err), FDW_OK);
    be->destroy(ctx);
    return vol;
}

static const int orders[] = {2, 4, 6, 8, 10, 12, 14, 16};
static const int widths[] = {5, 16, 31, 33, 48, 530}; /* 530: more than one 512-point chunk */

/* _i: order orders[_i % 8], row length widths[_i / 8]; three sponge variants each. */
START_TEST(test_dispatched_vs_portable)
{
    int order = orders[_i % 8], nx = widths[_i / 8];
    for (int sponge = 0; sponge < 3; sponge++) {
        kcase t;
        make_case(&t, nx, 11, 13, order, sponge, 0, 12, 10 + (uint64_t)_i * 3 + sponge);
        size_t n = (size_t)nx * 11 * 13;
        float *a = run(&t.p, 1, 12, 0), *b = run(&t.p, 1, 12, 1);
        double amax = 0, emax = 0;
        for (size_t q = 0; q < n; q++) {
            ck_assert_msg(isfinite(a[q]) && isfinite(b[q]), "non-finite value at %zu", q);
            amax = fmax(amax, fabs((double)b[q]));
            emax = fmax(emax, fabs((double)a[q] - (double)b[q]));
        }
        ck_assert_msg(amax > 0, "order %d nx %d: the field stayed zero", order, nx);
        ck_assert_msg(emax <= 1e-5 * amax, "order %d nx %d sponge %d: kernels differ, rel %g",
                      order, nx, sponge, emax / amax);
        free(a);
        free(b);
        kcase_free(&t);
    }
}
END_TEST

/* _i: order orders[_i]; nz = 3r + 4 planes on 1, 2 and 3 slabs (odd and even counts). */
START_TEST(test_pairing_bit_exact)
{
    int order = orders[_i], r = order / 2, nz = 3 * r + 4;
    kcase t;
    make_case(&t, 37, 9, nz, order, 1, 0, 15, 77 + (uint64_t)_i);
    size_t n = (size_t)37 * 9 * nz;
    float *one = run(&t.p, 1, 15, 0);
    for (int ndev = 2; ndev <= 3; ndev++) {
        float *many = run(&t.p, ndev, 15, 0);
        ck_assert_msg(memcmp(one, many, n * sizeof(float)) == 0,
                      "order %d: %d slabs differ from 1", order, ndev);
        free(many);
    }
    free(one);
    kcase_free(&t);
}
END_TEST

/* _i: row length widths[_i]: a problem symmetric in x stays exactly symmetric. */
START_TEST(test_mirror_symmetry)
{
    int nx = widths[_i];
    for (int portable = 0; portable < 2; portable++) {
        kcase t;
        make_case(&t, nx, 10, 12, 8, 2, 1, 20, 500 + (uint64_t)_i);
        float *a = run(&t.p, 1, 20, portable);
        double amax = 0;
        for (int k = 0; k < 12; k++)
            for (int j = 0; j < 10; j++)
                for (int i = 0; i < nx; i++) {
                    size_t row = ((size_t)k * 10 + j) * nx;
                    amax = fmax(amax, fabs(a[row + i]));
                    ck_assert_msg(a[row + i] == a[row + nx - 1 - i],
                                  "nx %d portable %d: (%d,%d,%d) %g != mirror %g", nx,
                                  portable, i, j, k, a[row + i], a[row + nx - 1 - i]);
                }
        ck_assert_msg(amax > 0, "nx %d: the field stayed zero", nx);
        free(a);
        kcase_free(&t);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpu_acoustic_kernels");
    TCase *tc = tcase_create("kernels");
    tcase_add_loop_test(tc, test_dispatched_vs_portable, 0, 48);
    tcase_add_loop_test(tc, test_pairing_bit_exact, 0, 8);
    tcase_add_loop_test(tc, test_mirror_symmetry, 0, 6);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
