/* ete_study_row.c — one row of the study of ete_study.h, and its limits. */
#include "ete_study.h"
#include "core/fd_coeffs.h"

#include <math.h>

#define BAND (2.0 * M_PI / 6.0) /* 6 points per wavelength: phimax = r theta_max */

double ete_study_fd8_limit(void) { return 2.0 / sqrt(3.0 * fdw_fd2_lambda(8)); }

void ete_study_row_at(double r, ete_study_row *row)
{
    ete_band b = {{r, r, r}, r * BAND, 1, 1};
    ete_op op;
    row->r = r;
    row->st_stab = (int)ete_fit(&b, &op);
    row->err_stab = op.phase_err;
    row->max_stab = op.max_abs;
    b.stability_only = 0;
    b.minimax = 0;
    row->st = (int)ete_fit(&b, &op);
    row->err = op.phase_err;
    row->max_abs = op.max_abs;
    row->fd_fifth = ete_fd8_phase_error(&b, 0.2);
    row->fd_limit = ete_fd8_phase_error(&b, 0.9 * ete_study_fd8_limit() / r);
}

double ete_study_limit(int stability_only)
{
    const double w[3] = {1, 1, 1};
    return ete_stable_limit(w, stability_only ? 0.0 : BAND);
}
