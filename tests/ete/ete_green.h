/* ete_green.h — a homogeneous box (2000 m/s, h = 10 m, no absorbing layer) against the
 * analytic 3-D Green's function f(t - r/c) / (4 pi c^2 r): the relative L2 error of a kind's
 * traces at receivers 10 to 38 points from the source, before any face reflection arrives.
 * test_ete_physics checks the seed's claim with it at one resolution; ete_accuracy prints
 * docs/ete.md's table across resolutions. */
#ifndef FDW_ETE_GREEN_H
#define FDW_ETE_GREEN_H

#define ETE_GREEN_C0 2000.0
#define ETE_GREEN_H 10.0
#define ETE_GREEN_NREC 5
#define ETE_GREEN_NEAR 1     /* receivers [0, NEAR) lie in the source's near field */
#define ETE_GREEN_TMAX 0.38  /* seconds of propagation */

extern const double ete_green_offsets[ETE_GREEN_NREC];

/* Run kind ("ete" or "acoustic", order 8) with a Ricker of f0 Hz and time step dt (0:
 * "auto"); returns the error of the receivers from NEAR on together, err[] each one's, the
 * loop's wall time and the dt used; NaN when dt auto is refused (the reason on stderr). A
 * failed run fails the calling check test (physics_util.h). */
double ete_green_error(const char *kind, double f0, double dt, double err[ETE_GREEN_NREC],
                       double *seconds, double *dt_used);

#endif
