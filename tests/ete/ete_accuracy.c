/* ete_accuracy.c — docs/ete.md's accuracy table across resolutions (issue 25, item 3): for
 * Ricker f0s of 8 to 20 points per wavelength at f0 (h = 10 m, 2000 m/s), ETE at its auto
 * dt against order-8 FD at a fifth of that dt and at 0.9 of its own limit, by the analytic
 * Green's function of ete_green.h. Prints a Markdown table; not a test (about a minute a
 * row on 2 cores), run as a check suite so that a failed run reports why.
 * Usage: ete_accuracy [PPW...] */
#include "core/fd_coeffs.h"
#include "ete_green.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void row(double ppw)
{
    const double f0 = ETE_GREEN_C0 / (ppw * ETE_GREEN_H);
    const double fd = fdw_dt_max(8, ETE_GREEN_H, ETE_GREEN_H, ETE_GREEN_H, ETE_GREEN_C0);
    double x[ETE_GREEN_NREC], t_e, t_f, t_l, dt_e, dt_f, dt_l;
    const double e = ete_green_error("ete", f0, 0.0, x, &t_e, &dt_e);
    if (isnan(e)) {
        printf("| %g | %.1f | refused | | | |\n", ppw, f0);
        return;
    }
    const double near_e = x[0];
    const double f = ete_green_error("acoustic", f0, dt_e / 5.0, x, &t_f, &dt_f);
    const double l = ete_green_error("acoustic", f0, 0.9 * fd, x, &t_l, &dt_l);
    printf("| %g | %.1f | %.2f x (%.3f ms) | %.2f%% (%.2f%%) | %.2f%% | %.2f%% |\n", ppw, f0,
           dt_e / fd, dt_e * 1e3, 100 * e, 100 * near_e, 100 * f, 100 * l);
    fflush(stdout);
}

static double g_ppw[16];  /* the rows asked for (main's arguments), read by the loop test */
static int g_rows;

START_TEST(test_row)
{
    row(g_ppw[_i]);
}
END_TEST

int main(int argc, char **argv)
{
    static const double dflt[] = {8, 10, 12, 15, 20};
    for (int i = 1; i < argc && g_rows < 16; i++)
        g_ppw[g_rows++] = atof(argv[i]);
    for (size_t i = 0; g_rows == 0 && i < sizeof dflt / sizeof *dflt; i++)
        g_ppw[i] = dflt[i];
    if (g_rows == 0)
        g_rows = (int)(sizeof dflt / sizeof *dflt);
    printf("| points per wavelength at f0 | f0 (Hz) | ETE dt auto (x the FD-8 limit) | ETE "
           "error (10 points away) | FD-8 at dt / 5 | FD-8 at 0.9 of its limit |\n"
           "|---|---|---|---|---|---|\n");
    fflush(stdout);
    Suite *su = suite_create("ete-accuracy");
    TCase *tc = tcase_create("rows");
    tcase_set_timeout(tc, 0);
    tcase_add_loop_test(tc, test_row, 0, g_rows);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_SILENT);
    const int failed = srunner_ntests_failed(sr);
    srunner_print(sr, CK_NORMAL);
    srunner_free(sr);
    return failed ? 1 : 0;
}
