/* ete_study.h — the study of docs/ete.md (issue 21): on a cube, the band of 6 points per
 * wavelength, the best ETE fit at Courant number r as issue 21 stated it (|S| <= 1, the
 * plain worst case) and as the kind fits (also no wavenumber outside the band at a
 * frequency inside it, the phi^2-weighted worst case), against the order-8 acoustic scheme
 * at r / 5 and at 0.9 of its own stability limit. ete_study prints it as the docs' table; test_ete_fit checks its
 * claims. */
#ifndef FDW_ETE_STUDY_H
#define FDW_ETE_STUDY_H

#include "kinds/ete/ete_fit.h"

typedef struct ete_study_row {
    double r;
    int st_stab, st;           /* ete_fit_status: issue 21's fit, the kind's */
    double err_stab, max_stab; /* worst phase error in the band, largest |S| */
    double err, max_abs;
    double fd_fifth;           /* order-8 FD at r / 5 over the same band */
    double fd_limit;           /* order-8 FD at 0.9 of its limit (independent of r) */
} ete_study_row;

/* The order-8 scheme's Courant limit on a cube, 2 / sqrt(3 lambda) = 0.4529. */
double ete_study_fd8_limit(void);
void ete_study_row_at(double r, ete_study_row *row);
/* The largest r of a fit: under stability alone, and under the kind's constraints. */
double ete_study_limit(int stability_only);

#endif
