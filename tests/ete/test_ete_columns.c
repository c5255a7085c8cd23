/* test_ete_columns.c — fdwk_ete_columns (kernels/ete/fdwk_ete.h), the host code that finds
 * the distinct columns of the ETE table for the shared-table GPU kernels, on tables built
 * from fitted operators (a cube: 6 distinct columns; dz != dx = dy: 11), with the columns'
 * transposed copy, and on tables where two columns differ in one bin only (not merged).
 * Runs without a GPU. */
#include "ete/fdwk_ete.h"
#include "kinds/ete/ete_fit.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NB 40

/* A table of NB bins from the fits of Courant numbers r_b = (0.2 + 0.02 b) (1, 1, rz). */
static void fitted_table(double rz, float *t)
{
    for (int b = 0; b < NB; b++) {
        const double r = 0.2 + 0.02 * b;
        const ete_band band = {{r, r, r * rz}, 0.5 * r * fmax(1.0, rz), 0, 0};
        ete_op op;
        ck_assert_int_eq(ete_fit(&band, &op), ETE_FIT_OK);
        for (int s = 0; s < 16; s++)
            t[b * 16 + s] = (float)op.c[s];
    }
}

/* col and src describe exactly the bitwise-equal columns of t. */
static void check_map(const float *t, int ncol, const unsigned char *col, const int *src)
{
    for (int s = 0; s < 16; s++) {
        ck_assert_int_lt(col[s], ncol);
        ck_assert_int_le(src[col[s]], s); /* a column's first slot */
        for (int u = 0; u < 16; u++) {
            int same = 1;
            for (int b = 0; b < NB; b++)
                same &= memcmp(&t[b * 16 + s], &t[b * 16 + u], sizeof(float)) == 0;
            ck_assert_msg((col[s] == col[u]) == same, "slots %d and %d: columns %d and %d, "
                          "equal %d", s, u, col[s], col[u], same);
        }
    }
}

START_TEST(test_cube_and_unequal)
{
    float t[NB * 16];
    unsigned char col[16];
    int src[16];
    fitted_table(1.0, t);
    int n = fdwk_ete_columns(t, NB, col, src, NULL);
    check_map(t, n, col, src);
    ck_assert_int_eq(n, 6); /* centre, 4 axis distances shared by x, y, z, one edge weight */
    fitted_table(1.6, t);
    float tc[NB * 16];
    n = fdwk_ete_columns(t, NB, col, src, tc);
    check_map(t, n, col, src);
    ck_assert_int_eq(n, 11); /* centre, x = y and z axes, the xy edge and the x/yz edges */
    for (int s = 0; s < 16; s++) /* the transposed copy the GPU kernels read */
        for (int b = 0; b < NB; b++)
            ck_assert(memcmp(&tc[col[s] * NB + b], &t[b * 16 + s], sizeof(float)) == 0);
}
END_TEST

START_TEST(test_one_bin_differs)
{
    float t[NB * 16];
    unsigned char col[16];
    int src[16];
    fitted_table(1.0, t);
    t[(NB - 1) * 16 + 9] = nextafterf(t[(NB - 1) * 16 + 9], 1.0f); /* z, m = 1, last bin */
    const int n = fdwk_ete_columns(t, NB, col, src, NULL);
    check_map(t, n, col, src);
    ck_assert_int_eq(n, 7);
    ck_assert_int_ne(col[9], col[1]);
    ck_assert_int_eq(col[5], col[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ete-columns");
    TCase *tc = tcase_create("columns");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cube_and_unequal);
    tcase_add_test(tc, test_one_bin_differs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
