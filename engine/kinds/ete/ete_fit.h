/* ete_fit.h — the ETE operator fit (seed: Fang et al. 2015, eq. 4; Liu et al. 2014): the
 * coefficients of the 37-point stencil whose symbol matches cos(v dt |k|), the update's
 * time evolution operator, under consistency and stability constraints.
 *
 * Stencil and symbol. In grid units theta_a = k_a h_a (a = x, y, z), the 37 points are the
 * centre, (+-m, 0, 0), (0, +-m, 0), (0, 0, +-m) for m = 1..4 and the 12 points (+-1, +-1, 0),
 * (+-1, 0, +-1), (0, +-1, +-1). With coefficient slots c[16] (ETE_SLOT_*) the symbol is
 *     S(theta) = c0 + 2 sum_a sum_m c_a[m] cos(m theta_a)
 *              + 4 (e_xy cos th_x cos th_y + e_xz cos th_x cos th_z + e_yz cos th_y cos th_z)
 * and the update p(t + dt) = 2 sum_j c_j p(x + dx_j, t) - p(t - dt) has the amplification
 * roots of l^2 - 2 S l + 1 = 0: on the unit circle when |S| <= 1, so the scheme is stable;
 * the exact evolution has S = cos(phi), phi = v dt |k|.
 *
 * The fit at Courant numbers r_a = v dt / h_a over the band phi <= phimax (all k with
 * v dt |k| <= phimax; a band given as a wavenumber kmax is phimax = v dt kmax) is the linear
 * program
 *     minimise  max over the band of |S - cos phi| / (phi sin phi (phi / phimax)^2)
 *     subject to  S(0) = 1,  d2S/dth_a2 (0) = -r_a^2   (consistency: S = 1 - phi^2/2 + ...)
 *                 -1 + ETE_STAB_MARGIN <= S <= 1 on the whole Nyquist cube [-pi, pi]^3,
 *                 S <= cos(phimax) where v dt |k| > ETE_OUT_FACTOR phimax,
 * whose objective is the linearised relative phase-velocity error, weighted so that it must
 * fall like phi^2 towards low frequencies (as a finite-difference scheme's does): a plain
 * worst case (minimax) spreads the band edge's error evenly over the band, and a Ricker's
 * energy near f0 then travels with it; the weight gives the band edge a little more error
 * (7.5e-4 instead of 5.4e-4 at r = 1) and a trace 1.7 times less (docs/ete.md). The last
 * bound keeps
 * every wavenumber outside the band from oscillating at a frequency inside it: without it
 * the fit is free to put S near 1 far from the band (at r = 1.08, S = 1 at the Nyquist
 * corner), and a source then pumps a standing checkerboard mode that swamps the wave. Axes of equal spacing
 * share their coefficients (a cube: 6 distinct values). The cube constraint is enforced on
 * a grid and then, until no violation is left, at every local extreme of S found on a finer
 * grid and polished by Newton's method (ete_fit.c). A fit reports its worst relative phase
 * error |arccos(S)/phi - 1| over a finer sampling of the band and max |S| over the cube. */
#ifndef FDW_ETE_FIT_H
#define FDW_ETE_FIT_H

#define ETE_NCOEF 16
enum {
    ETE_SLOT_C0 = 0,     /* centre */
    ETE_SLOT_X = 1,      /* x axis, m = 1..4 at ETE_SLOT_X + m - 1 */
    ETE_SLOT_Y = 5,
    ETE_SLOT_Z = 9,
    ETE_SLOT_XY = 13,    /* the 4 points (+-1, +-1, 0) */
    ETE_SLOT_XZ = 14,
    ETE_SLOT_YZ = 15
};

/* S never goes below -1 + ETE_STAB_MARGIN: a root pair at -1 would grow linearly, and the
 * margin keeps the float coefficients (rounded) stable. */
#define ETE_STAB_MARGIN 1e-4
/* Beyond this multiple of the band's edge S stays below cos(phimax) (see above). */
#define ETE_OUT_FACTOR 1.15

/* One fit's problem: the Courant numbers of the three axes and the band. */
typedef struct ete_band {
    double r[3];               /* v dt / h_a, > 0 */
    double phimax;             /* band edge in phase per step, 0 < phimax < pi */
    int stability_only;        /* 1: without the out-of-band bound (issue 21's study) */
    int minimax;               /* 1: the plain worst case, without the (phi/phimax)^2 weight */
} ete_band;

/* A fitted operator and what it achieves. */
typedef struct ete_op {
    double c[ETE_NCOEF];
    double phase_err;          /* worst |arccos(S)/phi - 1| in the band */
    double max_abs;            /* largest |S| over the Nyquist cube (1 at k = 0) */
} ete_op;

typedef enum {
    ETE_FIT_OK = 0,
    ETE_FIT_UNSTABLE,          /* no consistent operator with |S| <= 1 exists at these r */
    ETE_FIT_NOMEM,
    ETE_FIT_SOLVER             /* the LP solver failed numerically */
} ete_fit_status;

/* Fit the operator of band b. */
ete_fit_status ete_fit(const ete_band *b, ete_op *op);

/* The symbol of coefficients c at theta (grid units). */
double ete_symbol(const double *c, const double th[3]);

/* Worst relative phase error of c over band b (the fit's verification sampling). */
double ete_phase_error(const double *c, const ete_band *b);

/* The same phase error for the acoustic kind's scheme at order 8 (2nd order in time) run
 * with dt * ratio: S = 1 + (1/2) sum_a (ratio r_a)^2 D8(theta_a), phase ratio * phi. */
double ete_fd8_phase_error(const ete_band *b, double ratio);

/* The largest s for which an operator meeting the constraints exists at r_a = s w_a and
 * phimax = s pf (w: the axes' v / h_a, pf: the band's phase per unit s, both up to a
 * common factor), to a relative 1e-4, from the first feasible s of 0.25, 0.5, ... / max w
 * up; a fit the solver cannot finish counts as infeasible; 0 when none is feasible (or out
 * of memory). pf <= 0: the limit of |S| <= 1 alone (stability_only). */
double ete_stable_limit(const double w[3], double pf);

#endif
