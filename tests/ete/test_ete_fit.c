/* test_ete_fit.c — the ETE operator fit against evaluations that share none of its code:
 * the LP solver on problems with known optima and against vertex enumeration; the fitted
 * symbol against a direct sum over the 37 points; consistency (S(0) = 1, the |k|^2 term)
 * by finite differences; stability by a dense brute-force grid of the Nyquist cube; the
 * reported phase error against random points of the band; and the study of docs/ete.md
 * (issue 21's figures). */
#include "ete_study.h"
#include "kinds/ete/ete_lp.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the LP solver ---- */

START_TEST(test_lp_known)
{
    /* min -x - y  s.t. x + 2y <= 4, 3x + y <= 6, x >= 0, y >= 0: (1.6, 1.2), -2.8 */
    ete_lp *lp = ete_lp_new(2);
    const double rows[4][3] = {{1, 2, 4}, {3, 1, 6}, {-1, 0, 0}, {0, -1, 0}};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(ete_lp_add_row(lp, rows[i], rows[i][2]), 0);
    const double c[2] = {-1, -1};
    double z[2];
    ck_assert_int_eq(ete_lp_solve(lp, c, z), ETE_LP_OPTIMAL);
    ck_assert_double_eq_tol(z[0], 1.6, 1e-12);
    ck_assert_double_eq_tol(z[1], 1.2, 1e-12);
    /* a row added afterwards (warm start): x <= 1 moves the optimum to (1, 1.5) */
    const double cut[2] = {1, 0};
    ete_lp_add_row(lp, cut, 1.0);
    ck_assert_int_eq(ete_lp_solve(lp, c, z), ETE_LP_OPTIMAL);
    ck_assert_double_eq_tol(z[0], 1.0, 1e-12);
    ck_assert_double_eq_tol(z[1], 1.5, 1e-12);
    ete_lp_free(lp);
}
END_TEST

START_TEST(test_lp_infeasible_unbounded)
{
    ete_lp *lp = ete_lp_new(1);
    const double a = 1, na = -1, c = 1;
    double z;
    ete_lp_add_row(lp, &a, 1.0);   /* x <= 1 */
    ck_assert_int_eq(ete_lp_solve(lp, &c, &z), ETE_LP_UNBOUNDED); /* min x */
    ete_lp_add_row(lp, &na, -2.0); /* x >= 2 */
    ck_assert_int_eq(ete_lp_solve(lp, &c, &z), ETE_LP_INFEASIBLE);
    ete_lp_free(lp);
}
END_TEST

/* Random 3-variable LPs (a box |z_i| <= 10 and random half-spaces holding the origin)
 * against the best feasible vertex among all triples of rows. */
START_TEST(test_lp_random_vs_vertices)
{
    srand(12345);
    for (int trial = 0; trial < 40; trial++) {
        enum { N = 3, M = 26 };
        double A[M][N], b[M];
        int m = 0;
        for (int i = 0; i < N; i++)
            for (int s = -1; s <= 1; s += 2) {
                for (int j = 0; j < N; j++)
                    A[m][j] = j == i ? s : 0.0;
                b[m++] = 10.0;
            }
        for (; m < M; m++) {
            for (int j = 0; j < N; j++)
                A[m][j] = 2.0 * rand() / RAND_MAX - 1.0;
            b[m] = 0.5 + 3.0 * rand() / RAND_MAX;
        }
        double c[N];
        for (int j = 0; j < N; j++)
            c[j] = 2.0 * rand() / RAND_MAX - 1.0;
        ete_lp *lp = ete_lp_new(N);
        for (int i = 0; i < M; i++)
            ete_lp_add_row(lp, A[i], b[i]);
        double z[N];
        ck_assert_int_eq(ete_lp_solve(lp, c, z), ETE_LP_OPTIMAL);
        double got = 0;
        for (int j = 0; j < N; j++)
            got += c[j] * z[j];
        for (int i = 0; i < M; i++) {
            double v = 0;
            for (int j = 0; j < N; j++)
                v += A[i][j] * z[j];
            ck_assert_double_le(v, b[i] + 1e-9);
        }
        double best = INFINITY;
        for (int p = 0; p < M; p++)
            for (int q = p + 1; q < M; q++)
                for (int r = q + 1; r < M; r++) {
                    const int id[3] = {p, q, r};
                    double T[3][4];
                    for (int i = 0; i < 3; i++) {
                        for (int j = 0; j < 3; j++)
                            T[i][j] = A[id[i]][j];
                        T[i][3] = b[id[i]];
                    }
                    int ok = 1;
                    for (int k = 0; k < 3 && ok; k++) { /* Gauss-Jordan, partial pivot */
                        int pv = k;
                        for (int i = k + 1; i < 3; i++)
                            if (fabs(T[i][k]) > fabs(T[pv][k]))
                                pv = i;
                        if (fabs(T[pv][k]) < 1e-10) {
                            ok = 0;
                            break;
                        }
                        for (int j = 0; j < 4; j++) {
                            double t = T[k][j];
                            T[k][j] = T[pv][j];
                            T[pv][j] = t;
                        }
                        for (int i = 0; i < 3; i++)
                            if (i != k) {
                                double f = T[i][k] / T[k][k];
                                for (int j = 0; j < 4; j++)
                                    T[i][j] -= f * T[k][j];
                            }
                    }
                    if (!ok)
                        continue;
                    double x[3] = {T[0][3] / T[0][0], T[1][3] / T[1][1], T[2][3] / T[2][2]};
                    int feas = 1;
                    for (int i = 0; i < M && feas; i++) {
                        double v = 0;
                        for (int j = 0; j < N; j++)
                            v += A[i][j] * x[j];
                        feas = v <= b[i] + 1e-9;
                    }
                    if (feas)
                        best = fmin(best, c[0] * x[0] + c[1] * x[1] + c[2] * x[2]);
                }
        ck_assert_msg(fabs(got - best) < 1e-8, "trial %d: LP %.12g, vertices %.12g", trial,
                      got, best);
        ete_lp_free(lp);
    }
}
END_TEST

/* ---- the fit ---- */

/* S at theta by a direct sum over the 37 points with their slot's coefficient. */
static double direct_symbol(const double *c, const double th[3])
{
    double s = c[ETE_SLOT_C0];
    for (int a = 0; a < 3; a++)
        for (int m = 1; m <= 4; m++)
            for (int sg = -1; sg <= 1; sg += 2)
                s += c[1 + 4 * a + m - 1] * cos(sg * m * th[a]);
    static const int pa[3] = {0, 0, 1}, pb[3] = {1, 2, 2};
    for (int e = 0; e < 3; e++)
        for (int s1 = -1; s1 <= 1; s1 += 2)
            for (int s2 = -1; s2 <= 1; s2 += 2)
                s += c[ETE_SLOT_XY + e] * cos(s1 * th[pa[e]] + s2 * th[pb[e]]);
    return s;
}

static double urand(void) { return (double)rand() / RAND_MAX; }

/* Everything a fit claims, checked independently. */
static void check_fit(const ete_band *b)
{
    ete_op op;
    ck_assert_int_eq(ete_fit(b, &op), ETE_FIT_OK);
    /* the symbol */
    for (int t = 0; t < 200; t++) {
        const double th[3] = {M_PI * (2 * urand() - 1), M_PI * (2 * urand() - 1),
                              M_PI * (2 * urand() - 1)};
        ck_assert_double_eq_tol(ete_symbol(op.c, th), direct_symbol(op.c, th), 1e-12);
    }
    /* consistency */
    const double zero[3] = {0, 0, 0};
    ck_assert_double_eq_tol(direct_symbol(op.c, zero), 1.0, 1e-11);
    for (int a = 0; a < 3; a++) {
        const double h = 1e-3;
        double p[3] = {0, 0, 0}, m[3] = {0, 0, 0};
        p[a] = h;
        m[a] = -h;
        const double d2 = (direct_symbol(op.c, p) - 2.0 + direct_symbol(op.c, m)) / (h * h);
        ck_assert_msg(fabs(d2 + b->r[a] * b->r[a]) < 1e-5 * (1 + b->r[a] * b->r[a]),
                      "axis %d: S'' = %.9g, -r^2 = %.9g", a, d2, -b->r[a] * b->r[a]);
    }
    /* stability on a dense grid of the cube (S is even in each component) */
    const int n = 72;
    double smax = -INFINITY, smin = INFINITY;
    for (int k = 0; k <= n; k++)
        for (int j = 0; j <= n; j++)
            for (int i = 0; i <= n; i++) {
                const double th[3] = {M_PI * i / n, M_PI * j / n, M_PI * k / n};
                const double s = direct_symbol(op.c, th);
                smax = fmax(smax, s);
                smin = fmin(smin, s);
                double p2 = 0;
                for (int a = 0; a < 3; a++)
                    p2 += (b->r[a] * th[a]) * (b->r[a] * th[a]);
                if (!b->stability_only && sqrt(p2) > ETE_OUT_FACTOR * b->phimax)
                    ck_assert_msg(s <= cos(b->phimax) + 1e-9, "S = %.9f beyond the band at "
                                  "(%.3f, %.3f, %.3f), above cos(phimax) = %.9f", s, th[0],
                                  th[1], th[2], cos(b->phimax));
            }
    ck_assert_double_le(smax, 1.0 + 1e-9);
    ck_assert_double_ge(smin, -1.0 + ETE_STAB_MARGIN - 1e-9);
    ck_assert_double_ge(op.max_abs, fmax(smax, -smin) - 1e-12);
    ck_assert_double_le(op.max_abs, 1.0 + 1e-9);
    /* the reported phase error against random points of the band */
    double worst = 0;
    for (int t = 0; t < 20000; t++) {
        double u[3] = {2 * urand() - 1, 2 * urand() - 1, 2 * urand() - 1};
        const double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (nu < 1e-3 || nu > 1)
            continue;
        const double phi = b->phimax * (0.02 + 0.98 * urand());
        double th[3];
        int inside = 1;
        for (int a = 0; a < 3; a++) {
            th[a] = phi * u[a] / nu / b->r[a];
            inside &= fabs(th[a]) <= M_PI;
        }
        if (!inside)
            continue;
        const double s = direct_symbol(op.c, th);
        worst = fmax(worst, fabs(acos(fmax(-1.0, fmin(1.0, s))) / phi - 1.0));
    }
    printf("fit r = (%.3f, %.3f, %.3f), phimax %.3f: reported %.3e, random points %.3e, max "
           "|S| %.12f\n", b->r[0], b->r[1], b->r[2], b->phimax, op.phase_err, worst, op.max_abs);
    ck_assert_double_le(worst, 1.05 * op.phase_err + 1e-7);
    ck_assert_double_ge(worst, 0.5 * op.phase_err);
}

START_TEST(test_fit_cube)
{
    srand(7);
    const double rs[3] = {0.5, 1.0, 1.8};
    for (int i = 0; i < 3; i++) {
        const ete_band b = {{rs[i], rs[i], rs[i]}, rs[i] * 2 * M_PI / 6, rs[i] > 1.5, i == 1};
        check_fit(&b);
    }
}
END_TEST

/* Small Courant numbers (a dt well below the fit's limit, e.g. the seed's Table 3 case at
 * 1 ms on a 10 m grid from 1800 m/s: r = 0.18): S - 1 is O(r^2) there, and the fit must not
 * lose its feasible set to rounding (the plain form S = sum c b found none below r = 0.2). */
START_TEST(test_fit_small_courant)
{
    srand(9);
    const double rs[4] = {0.02, 0.05, 0.09, 0.18};
    for (int i = 0; i < 4; i++) {
        const ete_band b = {{rs[i], rs[i], rs[i]}, rs[i] * 2 * M_PI / 7.2, 0, 0};
        check_fit(&b);
    }
    const ete_band bu = {{0.05, 0.05, 0.1}, 0.1 * 2 * M_PI / 7.2, 0, 0};
    check_fit(&bu);
}
END_TEST

/* A scan of bands (Courant numbers 0.05-1.25, z spacing 1, 0.6 and 1.6 times the others'
 * ratio, 4, 8 and 12 points per wavelength): the LP never stalls (a degenerate LP once
 * cycled to the iteration limit, refusing such a job with "the LP solver stalled"), and a
 * cube at 8 points per wavelength or more fits up to r = 1. */
START_TEST(test_fit_scan)
{
    static const double ratios[3] = {1.0, 0.6, 1.6};
    int n = 0, ok = 0;
    for (int q = 0; q < 3; q++)
        for (int i = 0; i <= 20; i++)
            for (int w = 1; w <= 3; w++) {
                const double r = 0.05 + 0.06 * i, r2 = r * ratios[q], ppw = 4.0 * w;
                const ete_band b = {{r, r, r2}, fmax(r, r2) * 2 * M_PI / ppw, 0, 0};
                if (b.phimax >= 0.99 * M_PI)
                    continue; /* not a band: a wave turns by at most pi a step */
                ete_op op;
                const ete_fit_status st = ete_fit(&b, &op);
                ck_assert_msg(st == ETE_FIT_OK || st == ETE_FIT_UNSTABLE,
                              "r (%.2f, %.2f, %.2f), phimax %.3f: status %d", r, r, r2,
                              b.phimax, (int)st);
                if (q == 0 && ppw >= 8 && r <= 1.0)
                    ck_assert_msg(st == ETE_FIT_OK, "cube r %.2f, %g ppw: no fit", r, ppw);
                n++;
                ok += st == ETE_FIT_OK;
            }
    printf("fit scan: %d bands, %d fitted, the rest without a stable fit\n", n, ok);
}
END_TEST

START_TEST(test_fit_unequal_spacing)
{
    srand(8);
    const ete_band b1 = {{0.5, 0.5, 1.0}, 0.9, 0, 0};   /* dz = dx / 2 */
    const ete_band b2 = {{0.6, 0.75, 1.0}, 0.8, 0, 0};  /* three spacings */
    check_fit(&b1);
    check_fit(&b2);
}
END_TEST

/* Issue 21's study (docs/ete.md): fits at 6 points per wavelength on a cube, under the
 * stability constraints alone (the figures), and under the kind's constraints. */
START_TEST(test_study)
{
    const double lim = ete_study_fd8_limit();
    ck_assert_double_eq_tol(lim, 0.4529, 1e-4);
    ete_study_row row;
    for (double r = 0.6; r <= 1.0001; r += 0.1) {
        ete_study_row_at(r, &row);
        printf("study r = %.2f: |S| <= 1 only %.3e (max |S| %.12f), kind %.3e, FD-8 at r/5 "
               "%.3e, at 0.9 limit %.3e\n", r, row.err_stab, row.max_stab, row.err,
               row.fd_fifth, row.fd_limit);
        ck_assert_int_eq(row.st_stab, ETE_FIT_OK);
        ck_assert_int_eq(row.st, ETE_FIT_OK);
        ck_assert_double_le(row.err_stab, 6e-4);      /* "about 4e-4 up to r = 1.0" */
        ck_assert_double_le(row.err, 1e-3);           /* the kind's weighted fit */
        ck_assert_double_lt(row.err, row.fd_fifth);   /* better than FD at a fifth of dt */
        ck_assert_double_le(row.max_abs, 1.0 + 1e-9);
    }
    ete_study_row_at(0.2, &row);                      /* FD-8 at one fifth of r = 1 */
    ck_assert_double_ge(row.fd_limit, 7.3e-3);        /* "7.7e-3 at 0.9 of its limit" */
    ck_assert_double_le(row.fd_limit, 8.2e-3);
    ete_study_row_at(1.0, &row);
    ck_assert_double_ge(row.fd_fifth, 1.7e-3);        /* "1.8e-3 ... at one fifth" */
    ck_assert_double_le(row.fd_fifth, 1.95e-3);
    ck_assert_double_lt(10 * row.err, row.fd_limit);
    ete_study_row_at(1.2, &row);                      /* worse than FD at 0.9 of its limit */
    ck_assert_int_eq(row.st_stab, ETE_FIT_OK);
    ck_assert_double_gt(row.err_stab, row.fd_limit);
    ck_assert_double_gt(row.err, row.fd_limit);
    ete_study_row_at(2.0, &row);                      /* stable but inaccurate */
    ck_assert_int_eq(row.st_stab, ETE_FIT_OK);
    ck_assert_double_gt(row.err_stab, 0.3);
    ck_assert_double_le(row.max_stab, 1.0 + 1e-9);
    ck_assert_int_eq(row.st, ETE_FIT_UNSTABLE);       /* no fit free of in-band parasites */
    const double smax = ete_study_limit(1), kmax = ete_study_limit(0);
    printf("largest r on a cube: |S| <= 1 only %.4f, the kind's constraints %.4f\n", smax,
           kmax);
    ck_assert_double_gt(smax, 2.0);
    ck_assert_double_lt(smax, 2.6);
    ck_assert_double_gt(kmax, 1.2);
    ck_assert_double_lt(kmax, 1.4);
    ete_band beyond = {{smax * 1.01, smax * 1.01, smax * 1.01}, 0.5, 1, 1};
    ete_op op;
    ck_assert_int_eq(ete_fit(&beyond, &op), ETE_FIT_UNSTABLE);
    beyond = (ete_band){{kmax * 1.01, kmax * 1.01, kmax * 1.01}, kmax * 1.01 * M_PI / 3, 0, 0};
    ck_assert_int_eq(ete_fit(&beyond, &op), ETE_FIT_UNSTABLE);
}
END_TEST

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    Suite *s = suite_create("ete-fit");
    TCase *tc = tcase_create("fit");
    tcase_set_timeout(tc, 100);
    tcase_add_test(tc, test_lp_known);
    tcase_add_test(tc, test_lp_infeasible_unbounded);
    tcase_add_test(tc, test_lp_random_vs_vertices);
    tcase_add_test(tc, test_fit_cube);
    tcase_add_test(tc, test_fit_small_courant);
    tcase_add_test(tc, test_fit_scan);
    tcase_add_test(tc, test_fit_unequal_spacing);
    tcase_add_test(tc, test_study);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
