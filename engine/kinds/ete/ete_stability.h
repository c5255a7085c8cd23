/* ete_stability.h — is the ETE operator, as assembled on a job's own model, stable?
 *
 * Each bin's fitted operator keeps its symbol within [-1, 1] (ete_fit.h), but that bounds
 * the update only where the velocity is constant: where bins meet (the edges and corners of
 * a body, blocks) the pair weights of two bins mix, and the assembled operator can have
 * eigenvalues outside the stable range although every bin's fit is inside it. So the
 * operator L of the undamped update p+ = 2p - p- + L p (ete.h: L = diag(alpha) Q, Q
 * symmetric) is checked on the model itself: L is self-adjoint in the inner product
 * <x, y> = sum x y / alpha, and Lanczos in that product gives its extreme eigenvalues.
 * The update is stable when every eigenvalue lies in [-4, 0] (S = 1 + lambda / 2 within
 * [-1, 1]); an eigenvalue below -4 grows as an oscillation of period 2 steps, one above 0
 * as a plain exponential.
 *
 * The operator is applied in double precision from the table's float weights, exactly as
 * the kernels assemble it: the bins outside the grid are the nearest grid point's, the
 * field is 0 outside the grid and, under a free surface, odd across plane 0 (held at 0)
 * with its bins mirrored. Internal to the ETE kind. */
#ifndef FDW_ETE_STABILITY_H
#define FDW_ETE_STABILITY_H

#include "kinds/ete/ete.h"

/* The update is stable when every eigenvalue of L lies in [ETE_LAMBDA_LO, ETE_LAMBDA_HI]:
 * S = 1 + lambda / 2 within [-1, 1], with a margin at -1 for the run's float32 weights and
 * arithmetic (each bin's own fit keeps 2e-4 there, ete_fit.h's ETE_STAB_MARGIN). */
#define ETE_LAMBDA_LO (-4.0 + 1e-5)
#define ETE_LAMBDA_HI 0.0

/* What the check found. A layered model (every plane one bin) is checked exactly, by
 * plane waves: the operator commutes with shifts along x and y, so its spectrum on the
 * grid lies within the union over in-plane wavenumbers of the spectra of the operator on
 * the z line, small banded symmetric matrices whose extreme eigenvalues bisection with
 * Cholesky factorisations finds (the wavenumbers sampled, then the extremes polished).
 * Any other model by Lanczos on the whole grid. */
typedef enum { ETE_SPECTRUM_LANCZOS = 0, ETE_SPECTRUM_LAYERED } ete_spectrum_method;

typedef struct ete_spectrum {
    ete_spectrum_method method;
    double lmin, lmax;         /* Lanczos: the extreme Ritz values, eigenvalues of L ...;
                                * layered: the extremes over the in-plane wavenumbers */
    double rmin, rmax;         /* ... each within this distance of one (residual bounds;
                                * layered: the bisection's tolerance) */
    int iterations;            /* Lanczos steps (operator applications); layered: 0 */
    double seconds;
} ete_spectrum;

/* The grid the operator lives on. */
typedef struct ete_grid {
    int nx, ny, nz;
    int free_surface;          /* plane k = 0 held at 0, the field odd across it */
} ete_grid;

/* The extreme eigenvalues of L on grid g with d's table and bin index (d->idx, the whole
 * grid). max_iter caps the Lanczos steps (0: the default, 300); it stops earlier once both
 * ends are within tol of an eigenvalue and no longer move, or as soon as one lies outside
 * the stable range (a Ritz value lies inside the spectrum, so that proves an eigenvalue
 * outside it). FDW_ERR_NOMEM when its vectors (34 B a point of the grid padded by 4) cannot
 * be had. */
fdw_status fdw_ete_spectrum(const ete_grid *g, const fdw_ete_data *d, int max_iter, double tol,
                            ete_spectrum *out, fdw_error *err);

/* The same by Lanczos whatever the model (fdw_ete_spectrum's path for a model that is not
 * layered; tests compare the two on layered models). */
fdw_status fdw_ete_lanczos(const ete_grid *g, const fdw_ete_data *d, int max_iter, double tol,
                           ete_spectrum *out, fdw_error *err);

/* 1 when what s found lies in the stable range. (Not a proof of stability: an end the
 * steps did not reach could lie beyond; the run's field watch is the last guard.) */
int fdw_ete_spectrum_stable(const ete_spectrum *s);

/* How much a mode of eigenvalue lambda grows a step: the larger root of z^2 - (2 +
 * lambda) z + 1 = 0 in magnitude (1 inside [-4, 0]). */
double fdw_ete_growth(double lambda);

/* (L p) at every point, in double precision (the operator the check analyses; tests
 * compare it with a step of the kernels). p and lp: nx*ny*nz values, x fastest. */
void fdw_ete_apply(const ete_grid *g, const fdw_ete_data *d, const double *p, double *lp);

#endif
