/* test_analytic.c — the acoustic engine against physics: in a homogeneous medium a Ricker
 * point source gives u(r,t) = f(t - r/c) / (4 pi c^2 r); recorded traces must match it
 * (order 8, >= 6 points per wavelength), and the error must fall at the scheme's rate
 * when h and dt are halved together. Runs through fdw_spec_parse + fdw_run (CPU). */
#include "core/fd_coeffs.h"
#include "physics_util.h"
#include "run/wavelet.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C0 2000.0            /* m/s */
#define MAXREC 5

/* A homogeneous test geometry in metres, the same at every resolution: the source on a
 * node, receivers on the +x line through it, and a box with no absorbing layer that is
 * large enough that no reflection from its faces reaches a receiver before tmax
 * (first_reflection checks it). */
typedef struct geometry {
    int nrec;
    double offsets[MAXREC];  /* receiver distances from the source along +x */
    double back;             /* source to the -x face */
    double ahead;            /* last receiver to the +x face */
    double side;             /* the receiver line to the y and z faces */
    double f0, tmax;
} geometry;

/* Order-8 accuracy test: 6.7 points per wavelength at h = 10 m. */
static const geometry ACCURACY = {5, {100.0, 140.0, 180.0, 220.0, 250.0}, 290.0, 340.0,
                                  340.0, 12.0, 0.36};
/* Convergence test: shorter offsets so the fine grid stays small. */
static const geometry CONVERGENCE = {3, {60.0, 90.0, 120.0}, 250.0, 280.0, 280.0, 10.0,
                                     0.30};

/* The earliest time any face reflection can reach a receiver. The Ricker wavelet with
 * delay 1.2/f0 stays below 1e-3 of its peak until t = 0.36/f0; 0.3/f0 is used. */
static double first_reflection(const geometry *g)
{
    const double lead = 0.3 / g->f0;
    double best = 1e9;
    for (int r = 0; r < g->nrec; r++) {
        const double x = g->offsets[r];
        const double via_back = 2.0 * g->back + x;
        const double via_ahead = 2.0 * (g->ahead + g->offsets[g->nrec - 1] - x) + x;
        const double via_side = 2.0 * sqrt(g->side * g->side + x * x / 4.0);
        double p = via_back < via_ahead ? via_back : via_ahead;
        p = p < via_side ? p : via_side;
        if (p / C0 + lead < best)
            best = p / C0 + lead;
    }
    return best;
}

/* Run the geometry with spacing h and time step dt; fill the relative L2 error of each
 * receiver against the analytic solution. Returns the error of all receivers together. */
static double homogeneous_errors(const geometry *g, int order, double h, double dt,
                                 double errs[MAXREC])
{
    ck_assert_double_gt(first_reflection(g), g->tmax);
    const double ex = g->back + g->offsets[g->nrec - 1] + g->ahead, eyz = 2.0 * g->side;
    const int nx = (int)lround(ex / h) + 1, nyz = (int)lround(eyz / h) + 1;
    const double src[3] = {g->back, g->side, g->side};
    const long nt = (long)ceil(g->tmax / dt);
    char recs[1024] = "";
    for (int r = 0; r < g->nrec; r++) {
        char one[128];
        snprintf(one, sizeof one, "%s[%g,%g,%g]", r ? "," : "", src[0] + g->offsets[r],
                 src[1], src[2]);
        strcat(recs, one);
    }
    char json[2048];
    snprintf(json, sizeof json,
             "{\"kind\":\"acoustic\",\"grid\":{\"nx\":%d,\"ny\":%d,\"nz\":%d,\"dx\":%g,"
             "\"dy\":%g,\"dz\":%g},\"order\":%d,"
             "\"velocity\":{\"type\":\"constant\",\"value\":%g},"
             "\"time\":{\"nt\":%ld,\"dt\":%.17g},"
             "\"sources\":[{\"position\":[%g,%g,%g],\"wavelet\":{\"type\":\"ricker\","
             "\"f0\":%g,\"delay\":%.17g}}],"
             "\"receivers\":{\"points\":[%s]},"
             "\"boundary\":{\"type\":\"none\"}}",
             nx, nyz, nyz, h, h, h, order, C0, nt, dt, src[0], src[1], src[2], g->f0,
             1.2 / g->f0, recs);
    phys_run run;
    phys_run_spec(json, NULL, 0, &run);
    ck_assert_int_eq(run.nrec, g->nrec);
    fdw_source wav = {.wavelet = FDW_WAVELET_RICKER, .f0 = g->f0, .delay = 1.2 / g->f0,
                      .amplitude = 1.0};
    double *ana = malloc((size_t)run.ns * sizeof(double));
    double num = 0.0, den = 0.0;
    for (int r = 0; r < g->nrec; r++) {
        const double dist = g->offsets[r];
        for (long s = 0; s < run.ns; s++)
            ana[s] = fdw_source_value(&wav, s * run.dt - dist / C0, run.dt) /
                     (4.0 * M_PI * C0 * C0 * dist);
        const float *tr = run.traces + (size_t)r * run.ns;
        errs[r] = phys_rel_l2(tr, ana, run.ns);
        for (long s = 0; s < run.ns; s++) {
            num += (tr[s] - ana[s]) * (tr[s] - ana[s]);
            den += ana[s] * ana[s];
        }
    }
    free(ana);
    phys_run_free(&run);
    return sqrt(num / den);
}

/* Order 8, f0 = 12 Hz, h = 10 m: 6.7 points per wavelength at 2.5 f0. */
START_TEST(test_homogeneous_order8)
{
    const geometry *g = &ACCURACY;
    const double h = 10.0;
    const double dt = 0.8 * fdw_dt_max(8, h, h, h, C0);
    ck_assert_double_ge(C0 / (2.5 * g->f0) / h, 6.0);
    double errs[MAXREC];
    const double total = homogeneous_errors(g, 8, h, dt, errs);
    printf("analytic, order 8, h=%g m, dt=%.3g ms, %.1f points/wavelength at 2.5 f0:\n", h,
           dt * 1e3, C0 / (2.5 * g->f0) / h);
    for (int r = 0; r < g->nrec; r++)
        printf("  receiver at %5.0f m (%2.0f points): relative L2 error %.4f%%\n",
               g->offsets[r], g->offsets[r] / h, 100.0 * errs[r]);
    printf("  all receivers: %.4f%%\n", 100.0 * total);
    for (int r = 0; r < g->nrec; r++)
        ck_assert_msg(errs[r] < 0.02, "receiver %d: relative L2 error %.4f >= 2%%", r,
                      errs[r]);
}
END_TEST

/* Halve h and dt together (same Courant number): the error against the analytic solution
 * falls by the scheme's rate, 2nd order overall (time is 2nd order). */
static void convergence(int order, double lo, double hi)
{
    const geometry *g = &CONVERGENCE;
    const double h1 = 10.0, h2 = 5.0;
    const double dt1 = 0.5 * fdw_dt_max(order, h1, h1, h1, C0), dt2 = dt1 / 2.0;
    double e1[MAXREC], e2[MAXREC];
    const double t1 = homogeneous_errors(g, order, h1, dt1, e1);
    const double t2 = homogeneous_errors(g, order, h2, dt2, e2);
    const double rate = t1 / t2;
    printf("convergence, order %d, f0 %g Hz: h=%g m error %.4f%%, h=%g m error %.4f%%: ratio "
           "%.2f (order of accuracy %.2f)\n",
           order, g->f0, h1, 100.0 * t1, h2, 100.0 * t2, rate, log2(rate));
    ck_assert_msg(rate > lo && rate < hi, "order %d: error ratio %.2f outside (%g, %g)",
                  order, rate, lo, hi);
}

START_TEST(test_convergence_order2) { convergence(2, 3.0, 5.5); }
END_TEST

START_TEST(test_convergence_order4) { convergence(4, 3.0, 6.0); }
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("physics-analytic");
    TCase *tc = tcase_create("analytic");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_homogeneous_order8);
    tcase_add_test(tc, test_convergence_order2);
    tcase_add_test(tc, test_convergence_order4);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
