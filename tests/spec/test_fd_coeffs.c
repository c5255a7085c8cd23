/* test_fd_coeffs.c — Fornberg weights against the known closed forms, exactness on
 * polynomials for every order 2..16, lambda, and the stability limit (Courant number). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "core/fd_coeffs.h"
#include "spec/spec.h"

START_TEST(order8_second_derivative)
{
    double c[FDW_MAX_RADIUS + 1];
    ck_assert_int_eq(fdw_fd2_coeffs(8, c), 0);
    const double want[5] = {-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560};
    for (int m = 0; m <= 4; m++)
        ck_assert_double_eq_tol(c[m], want[m], 1e-14);
}
END_TEST

START_TEST(order8_first_derivative)
{
    double c[FDW_MAX_RADIUS + 1];
    ck_assert_int_eq(fdw_fd1_coeffs(8, c), 0);
    const double want[5] = {0, 4.0 / 5, -1.0 / 5, 4.0 / 105, -1.0 / 280};
    for (int m = 0; m <= 4; m++)
        ck_assert_double_eq_tol(c[m], want[m], 1e-14);
}
END_TEST

START_TEST(order2_and_4_closed_forms)
{
    double c[FDW_MAX_RADIUS + 1];
    ck_assert_int_eq(fdw_fd2_coeffs(2, c), 0);
    ck_assert_double_eq_tol(c[0], -2.0, 1e-15);
    ck_assert_double_eq_tol(c[1], 1.0, 1e-15);
    ck_assert_int_eq(fdw_fd2_coeffs(4, c), 0);
    ck_assert_double_eq_tol(c[0], -5.0 / 2, 1e-15);
    ck_assert_double_eq_tol(c[1], 4.0 / 3, 1e-15);
    ck_assert_double_eq_tol(c[2], -1.0 / 12, 1e-15);
    ck_assert_int_eq(fdw_fd1_coeffs(2, c), 0);
    ck_assert_double_eq_tol(c[1], 0.5, 1e-15);
}
END_TEST

/* Sum rules: the order-2r second-derivative stencil applied to x^p gives p(p-1) x^(p-2)
 * at 0, i.e. 2 for p = 2 and 0 for every other p <= 2r+1 (odd powers cancel by symmetry);
 * the first-derivative stencil gives 1 for p = 1 and 0 for every other p <= 2r. */
START_TEST(polynomial_exactness)
{
    int order = _i;
    int r = order / 2;
    double c2[FDW_MAX_RADIUS + 1], c1[FDW_MAX_RADIUS + 1];
    ck_assert_int_eq(fdw_fd2_coeffs(order, c2), 0);
    ck_assert_int_eq(fdw_fd1_coeffs(order, c1), 0);
    for (int p = 0; p <= order + 1; p++) {
        double d2 = p == 0 ? c2[0] : 0.0, d1 = 0.0, scale = 1.0;
        for (int m = 1; m <= r; m++) {
            double mp = pow(m, p), mneg = pow(-m, p);
            d2 += c2[m] * (mp + mneg);
            d1 += c1[m] * (mp - mneg);
            scale += fabs(c2[m]) * 2 * mp;
        }
        double want2 = p == 2 ? 2.0 : 0.0, want1 = p == 1 ? 1.0 : 0.0;
        ck_assert_msg(fabs(d2 - want2) <= 1e-12 * scale, "order %d fd2 on x^%d: %g (want %g)",
                      order, p, d2, want2);
        if (p <= order)
            ck_assert_msg(fabs(d1 - want1) <= 1e-12 * scale,
                          "order %d fd1 on x^%d: %g (want %g)", order, p, d1, want1);
    }
    /* ... and not exact one degree higher than the order guarantees (x^(order+2)): the
     * weights are of that order, no more. */
    double d2 = 0, d1 = 0;
    for (int m = 1; m <= r; m++) {
        d2 += c2[m] * 2 * pow(m, order + 2);
        d1 += c1[m] * 2 * pow(m, order + 1);
    }
    ck_assert_msg(fabs(d2) > 1e-6, "order %d fd2 unexpectedly exact on x^%d", order, order + 2);
    ck_assert_msg(fabs(d1) > 1e-6, "order %d fd1 unexpectedly exact on x^%d", order, order + 1);
}
END_TEST

START_TEST(bad_orders)
{
    double c[FDW_MAX_RADIUS + 2];
    ck_assert_int_eq(fdw_fd2_coeffs(0, c), -1);
    ck_assert_int_eq(fdw_fd2_coeffs(7, c), -1);
    ck_assert_int_eq(fdw_fd2_coeffs(18, c), -1);
    ck_assert_int_eq(fdw_fd1_coeffs(-2, c), -1);
    ck_assert(isnan(fdw_fd2_lambda(3)));
    ck_assert(isnan(fdw_dt_max(8, 0, 1, 1, 1000)));
    ck_assert(isnan(fdw_dt_max(8, 1, 1, 1, -1)));
}
END_TEST

START_TEST(lambda_values)
{
    ck_assert_double_eq_tol(fdw_fd2_lambda(2), 4.0, 1e-14);
    ck_assert_double_eq_tol(fdw_fd2_lambda(4), 5.0 / 2 + 2 * (4.0 / 3 + 1.0 / 12), 1e-14);
    double want8 = 205.0 / 72 + 2 * (8.0 / 5 + 1.0 / 5 + 8.0 / 315 + 1.0 / 560);
    ck_assert_double_eq_tol(fdw_fd2_lambda(8), want8, 1e-13);
    /* lambda grows with the order, toward the limit of the exact operator's bound. */
    for (int o = 4; o <= 16; o += 2)
        ck_assert(fdw_fd2_lambda(o) > fdw_fd2_lambda(o - 2));
}
END_TEST

START_TEST(dt_max_courant)
{
    double h = 10, v = 3000;
    double dt = fdw_dt_max(8, h, h, h, v);
    double courant = v * dt / h;
    ck_assert_msg(fabs(courant - 0.453) < 0.0005, "order-8 Courant number %.5f", courant);
    /* order 2 on a cube: 2 / sqrt(3 * 4) = 1/sqrt(3) */
    ck_assert_double_eq_tol(v * fdw_dt_max(2, h, h, h, v) / h, 1.0 / sqrt(3.0), 1e-12);
    /* anisotropic spacing: the formula, and a smaller dt than the coarsest cube */
    double lam = fdw_fd2_lambda(8);
    double want = 2.0 / (v * sqrt(lam * (1 / 100.0 + 1 / 400.0 + 1 / 25.0)));
    ck_assert_double_eq_tol(fdw_dt_max(8, 10, 20, 5, v), want, 1e-15);
    ck_assert(fdw_dt_max(8, 10, 20, 5, v) < fdw_dt_max(8, 20, 20, 20, v));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fd_coeffs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, order8_second_derivative);
    tcase_add_test(tc, order8_first_derivative);
    tcase_add_test(tc, order2_and_4_closed_forms);
    for (int o = 2; o <= 16; o += 2)
        tcase_add_loop_test(tc, polynomial_exactness, o, o + 1);
    tcase_add_test(tc, bad_orders);
    tcase_add_test(tc, lambda_values);
    tcase_add_test(tc, dt_max_courant);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
