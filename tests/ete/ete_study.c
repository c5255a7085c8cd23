/* ete_study.c — prints docs/ete.md's study table: the best ETE fit against Courant number
 * r on a cube (band: 6 points per wavelength), under the stability constraints alone and
 * under the kind's constraints, with order-8 FD at r / 5 and at 0.9 of its limit, and the
 * largest r each admits. Usage: ete_study (markdown on stdout). */
#include "ete_study.h"

#include <stdio.h>

static void cell(int st, double err)
{
    if (st == ETE_FIT_OK)
        printf(" %.2e |", err);
    else
        printf(" %s |", st == ETE_FIT_UNSTABLE ? "none" : "failed");
}

int main(void)
{
    static const double rs[] = {0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.02, 1.1, 1.2, 1.25, 1.4,
                                1.6, 1.8, 2.0, 2.2};
    const double lim = ete_study_fd8_limit();
    printf("| r = v dt / h | r / FD-8 limit | ETE, issue 21's fit (\\|S\\| <= 1, minimax) | "
           "ETE, the kind's fit | FD-8 at r / 5 | FD-8 at 0.9 of its limit |\n"
           "|---|---|---|---|---|---|\n");
    for (unsigned i = 0; i < sizeof rs / sizeof *rs; i++) {
        ete_study_row row;
        ete_study_row_at(rs[i], &row);
        printf("| %.2f | %.2f |", rs[i], rs[i] / lim);
        cell(row.st_stab, row.err_stab);
        cell(row.st, row.err);
        printf(" %.2e | %.2e |\n", row.fd_fifth, row.fd_limit);
    }
    const double a = ete_study_limit(1), b = ete_study_limit(0);
    printf("\nLargest r of a fit (FD-8 limit %.4f): |S| <= 1 alone %.3f (%.2f x); the kind's "
           "constraints %.3f (%.2f x).\n", lim, a, a / lim, b, b / lim);
    return 0;
}
