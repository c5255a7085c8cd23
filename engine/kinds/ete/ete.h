/* ete.h — the ETE kind's data (seed: Fang et al. 2015): its spec members (fdw_spec.kspec),
 * its problem data (fdw_problem.kdata) read by the CPU and CUDA hooks, and the update both
 * backends compute, in one fixed order of operations so they agree bit for bit.
 *
 * Update (the seed's eq. 5, p+ = 2 sum_j c_j p_j - p-, written as 2p - p- + L with
 * L = sum_j 2 c_j (p_j - p), which holds because the weights of a consistent operator sum
 * to 1). Bins go up with the velocity. Each point has a bin b = idx[point] and a table row
 * w = table + b * ETE_TABLE_STRIDE: w[0] = alpha(b) = (v_b dt / h_min)^2 and w[s] =
 * g_s(b) = 2 c_s(b) / alpha(b) (ete_fit.h's slots), the fitted weights normalised by alpha.
 * The weight of the pair (point, neighbour j) is alpha(b) g_s(max(b, b_j)), s the slot of
 * j's offset: the point's own alpha times the normalised weights of the faster of the two.
 * So L = diag(alpha) Q with Q symmetric and its rows summing to zero: the operator is
 * similar to a symmetric one (real eigenvalues) and keeps constant density, p_tt = v^2
 * lap(p) at long wavelengths, as the acoustic kind (a velocity step reflects with
 * (v2 - v1) / (v2 + v1)); where the velocity is constant it is each bin's fitted operator.
 * Of the symmetric choices of g for a pair with two velocities, only the faster one's is
 * stable at 2.25 times the order-8 FD limit: the slower one's, their mean and the seed's
 * form (each point's own row alone) grow without bound in the test models (docs/ete.md).
 * Outside the grid a point's bin is that of the nearest grid point (the index array's
 * padding and ghost planes hold it), but above a free surface, where the field is the odd
 * image of the grid's, the bins are the image's too (mirrored across plane 0): so the
 * operator stays symmetric there, and its stability is that of ete_stability.h. With u = p(t),
 * t(dx,dy,dz) = (alpha(b) g_s(max(b, b_j))) (u(dx,dy,dz) - u), and p- = p(t - dt),
 * overwritten by p(t + dt):
 *     ax = t(-1,0,0) + t(1,0,0);  ax = ax + (t(-m,0,0) + t(m,0,0)), m = 2..4
 *     ay, az alike along y and z (slots 5..8, 9..12; x: 1..4)
 *     exy = (t(-1,-1,0) + t(1,-1,0)) + (t(-1,1,0) + t(1,1,0))     (slot 13)
 *     exz = (t(-1,0,-1) + t(1,0,-1)) + (t(-1,0,1) + t(1,0,1))     (slot 14)
 *     eyz = (t(0,-1,-1) + t(0,1,-1)) + (t(0,-1,1) + t(0,1,1))     (slot 15)
 *     L   = (((ax + ay) + az) + exy) + (exz + eyz)
 *     p+  = (2u - p-) + L                              where q = 0
 *     p+  = ((2u - (1 - q) p-) + L) / (1 + q)          where q != 0 (the sponge)
 * with q = qx[i] + (qy[j] + qz[k]); every operation rounded (no fused multiply-add). A free
 * surface holds global plane 0 at 0; the ghost planes above it mirror -p. */
#ifndef FDW_ETE_H
#define FDW_ETE_H

#include "kinds/ete/ete_fit.h"
#include "run/backend.h"

#include <stdint.h>

#define ETE_TABLE_STRIDE 16    /* floats per bin row (ETE_NCOEF) */
#define ETE_MAX_BINS 65536     /* a bin index is 16 bits */

/* Binning: without ete.nv, a model of at most ETE_MAX_BINS distinct velocities gets one bin
 * per value (no binning error); otherwise log-spaced bins of relative width at most
 * ETE_BIN_WIDTH (velocity error <= half of it), at most ETE_MAX_BINS of them. */
#define ETE_BIN_WIDTH 5e-5

struct fdw_ete_data;

/* dt auto's default accuracy target: the worst relative phase-velocity error over the
 * band (0.1 %: the band's edge drifts a tenth of a wavelength in 100 wavelengths). At 15
 * points per wavelength at a Ricker's f0 it keeps dt at 2.2-2.4 times the order-8 FD limit
 * (docs/ete.md, "Time step"). */
#define ETE_PHASE_ERROR_DEFAULT 1e-3

typedef struct fdw_ete_spec {
    int nv;                    /* ete.nv: bins asked for; 0 automatic */
    double fmax;               /* band by frequency: |k| <= 2 pi fmax / v (Hz); or 0 */
    double ppw;                /* band by points per wavelength: |k| <= 2 pi / (ppw h_max) */
    double max_phase_error;    /* dt auto's target; 0: ETE_PHASE_ERROR_DEFAULT */
    double dt_fit_max;         /* largest dt a stable consistent operator exists for */
    double phase_error;        /* worst phase error at the checked velocities, at dt */
    double excess;             /* given dt: largest phase error minus its target */
    /* The operator assembled on the model at dt (ete_stability.h), checked at parse unless
     * deferred (fdw_parse_opts.defer_model_checks): its table and index, which the run
     * borrows (NULL when deferred), the extreme eigenvalues found, the Lanczos steps and
     * seconds the check took (every dt tried), and the dt auto had chosen before it
     * came down to a stable one (0: it did not). */
    struct fdw_ete_data *data;
    int checked;
    double lambda_min, lambda_max;
    int check_steps;
    double check_s;
    int check_layered;         /* checked by plane waves (a layered model), not Lanczos */
    double dt_unstable;
} fdw_ete_spec;

/* The fit problem of velocity v at time step dt. */
void fdw_ete_band(const fdw_spec *spec, double v, double dt, ete_band *b);

typedef struct fdw_ete_data {
    int nv;                    /* bins */
    float *table;              /* nv x ETE_TABLE_STRIDE weights (see above) */
    const uint16_t *idx;       /* bin per point, nx*ny*nz, x fastest */
    /* The fit report, per bin: velocity, worst phase error in its band, largest |S| over
     * the Nyquist cube (a bin interpolated between two fitted nodes reports the convex
     * bound of theirs); and over all bins. */
    double *bin_v, *bin_err, *bin_max;
    double worst_err, worst_max;
    double binning_error;      /* largest |v - v_bin| / v over the model's points */
    int nodes;                 /* operators fitted (the rest interpolated in v^2) */
    int borrowed;              /* the arrays are a survey's share (ete.c): not freed here */
} fdw_ete_data;

/* The bin at global (i, j, k), any integers: the nearest grid point's, mirrored across
 * plane 0 above a free surface. */
static inline uint16_t fdw_ete_bin(const fdw_problem *p, const fdw_ete_data *d, long i, long j,
                                   long k)
{
    if (p->free_surface && k < 0)
        k = -k;
    i = i < 0 ? 0 : i >= p->nx ? p->nx - 1 : i;
    j = j < 0 ? 0 : j >= p->ny ? p->ny - 1 : j;
    k = k < 0 ? 0 : k >= p->nz ? p->nz - 1 : k;
    return d->idx[((size_t)k * (size_t)p->ny + (size_t)j) * (size_t)p->nx + (size_t)i];
}

/* Fill d's bins, table and index from the velocity model v (npts values) for spec: sets
 * every member. On failure d holds what was allocated for the caller to free. */
fdw_status fdw_ete_build_table(const fdw_spec *spec, const float *v, size_t npts,
                               fdw_ete_data *d, fdw_error *err);

#endif
