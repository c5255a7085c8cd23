/* backend.h — the table of functions a compute backend (cpu, cuda) provides, and the
 * problem description the engine hands it. The engine owns the time loop, outputs and
 * callbacks; a backend owns device memory, the stencil kernels and the ghost exchange
 * between the slabs of its devices. Nothing here knows of JSON, HTTP or SQLite. */
#ifndef FDW_BACKEND_H
#define FDW_BACKEND_H

#include "fdwave/fdwave.h"
#include "spec/spec.h"
#include "run/plan.h"

/* One injection or sampling stencil: a grid point (global flat index i + nx*(j + ny*k))
 * and its weight. A source or receiver at an off-grid position uses 8 of these
 * (trilinear). Global indices let the backend find the slab that owns the point. */
typedef struct fdw_tap {
    uint64_t index;
    float weight;
    int owner;                 /* which source (in src_taps) or receiver (in rec_taps) */
} fdw_tap;

/* Everything a backend needs to set up and advance one job. Arrays are host memory
 * owned by the engine and valid until destroy(). */
typedef struct fdw_problem {
    fdw_kind kind;
    int nx, ny, nz;
    int radius;                /* order/2 */

    /* acoustic: lap(u) = sum_axis sum_{m=-r..r} cA[|m|] u(.. +m ..), cA = Fornberg / h_A^2.
     * cx[0]+cy[0]+cz[0] is the centre weight. */
    float cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    /* (v*dt)^2 per point, nx*ny*nz, x fastest (acoustic only). */
    const float *vdt2;
    /* sponge: per-axis damping sigma*dt (dimensionless), length nx / ny / nz; zero in the
     * interior. Total damping at a point: q = qx[i] + qy[j] + qz[k]; the update is
     * u' = (2u - (1 - q) u_prev + vdt2 * lap(u) + src) / (1 + q). NULL: no sponge. */
    const float *qx, *qy, *qz;
    int free_surface;          /* plane k = 0 is held at u = 0, ghosts above mirror -u */

    /* CPML (boundary type "cpml"; then qx/qy/qz are NULL). Axis A (0 x, 1 y, 2 z) has a
     * layer of pml_w[A][0] points at its low end and pml_w[A][1] at its high end (0: no
     * layer there); pml_a[A], pml_b[A] hold the recursive-convolution coefficients per
     * global index along A (axis length; meaningful inside the layers only), pml_d1[A][m]
     * (m = 1..radius) the central first-derivative weights of the same radius, already
     * divided by h_A. NULL pml_a[A]: no layer on axis A. Each step, after the plain update
     * u' = (2u - u_prev) + vdt2 lap(u) and before the sources, for A = x, y, z in turn:
     *   1. for every point p of A's layers: psi_A(p) = b(p) psi_A(p) + a(p) D1_A u(p)
     *   2. then for every point p of A's layers, with g = D1_A psi_A (p) (psi_A is 0
     *      outside A's layers and outside the grid):
     *        zeta_A(p) = b(p) zeta_A(p) + a(p) (D2_A u(p) + g)
     *        u'(p) = u'(p) + vdt2(p) (g + zeta_A(p))
     * where D1_A f(p) = sum_m pml_d1[A][m] (f(p + m e_A) - f(p - m e_A)), D2_A u the
     * Laplacian's second difference along A (cA[0] u + sum_m cA[m] (u(+m) + u(-m))), u the
     * field at time it, a/b taken at p's index along A; psi and zeta start at zero. So a
     * point in two or three layers (edges, corners) gets the x, then y, then z term. A slab
     * boundary never lies within pml_w[2][0] + radius planes of the top or pml_w[2][1] +
     * radius of the bottom (the engine rejects such a plan), so psi_z never crosses one.
 * With a free surface there is no z layer at the top, and global plane 0 keeps u' = 0:
 * its x and y terms update psi and zeta but are not added to u'. */
    int pml_w[3][2];
    const float *pml_a[3], *pml_b[3];
    float pml_d1[3][FDW_MAX_RADIUS + 1];

    /* Time convention: step(it) turns u(it*dt) into u((it+1)*dt).
     * Sources: after the update of step it, every tap adds wavelets[owner*nt + it] *
     * tap.weight to u((it+1)*dt) at tap.index (no division by the sponge factor). The
     * wavelets are already multiplied by dt^2 / (dx*dy*dz), so this discretises
     * u_tt = v^2 lap(u) + f(t) delta(x - xs). */
    int nsrc_taps;
    const fdw_tap *src_taps;
    const float *wavelets;     /* nsources * nt */
    long nt;

    /* Receivers: slot s holds u(s * rec_interval * dt); slot 0 is the zero initial state.
     * After step it, if (it+1) % rec_interval == 0, slot (it+1)/rec_interval receives, for
     * each receiver r, the sum over its taps of u[index]*weight. nrec_slots =
     * nt/rec_interval + 1. */
    int nreceivers;
    int nrec_taps;
    const fdw_tap *rec_taps;
    int rec_interval;
    long nrec_slots;

    /* stencil kind: D' = sc[0] D + sum_{i=1..r} sc[i] * (6 neighbours at distance i),
     * with zero outside the grid. Initial field init (nx*ny*nz). */
    float sc[FDW_MAX_RADIUS + 1];
    /* derivative kind: periodic d/d(axis) with coefficients dc[1..4] (already / h):
     * f'(i) = sum_m dc[m] (f(i+m) - f(i-m)). */
    fdw_axis deriv_axis;
    float dc[5];
    const float *init;         /* stencil / derivative initial field; NULL for acoustic */

    /* Distributed run: NULL for one process. Otherwise this process holds only slab
     * comm->rank of the plan (the plan has comm->size slabs); the ghost planes shared with
     * other ranks' slabs go through comm, sources are injected by the rank owning the
     * tap's plane, and a receiver is recorded by the rank owning the lowest plane of its
     * taps (fdw_receiver_slabs in distrib.h), reading a tap below its slab from its ghost
     * planes. Backends that cannot run distributed reject a problem with comm set. */
    const struct fdw_comm *comm;
} fdw_problem;

typedef struct fdw_backend fdw_backend;

struct fdw_backend {
    const char *name;          /* "cpu", "cuda" */

    /* Allocate every device's slab as the plan says, upload the model/initial field,
     * zero the wavefields. Fails with FDW_ERR_NOMEM naming bytes needed and free. */
    fdw_status (*create)(const fdw_problem *prob, const fdw_plan *plan, void **ctx,
                         fdw_error *err);
    void (*destroy)(void *ctx);

    /* Advance one step (acoustic: u(it*dt) -> u((it+1)*dt) including sponge, free surface,
     * source injection, receiver recording and the ghost exchange; stencil: one application
     * D <- c0 D + ...; derivative: out <- d/d(axis) of the current field, then the field
     * becomes out (so repeated iterations differentiate repeatedly; iteration 1's output
     * is what is checked against the analytic derivative). Asynchronous backends may return
     * before the work ends; any later call orders after it. */
    fdw_status (*step)(void *ctx, long it, fdw_error *err);

    /* Start copying the current wavefield on regions to host buffers (each sized for its
     * region: nx*ny, nx*nz, ny*nz or nx*ny*nz floats). The copy reflects the state after
     * all steps issued so far, even when later steps are issued before it completes. The
     * host buffers hold it once extract_done() says so, or after wait(). */
    fdw_status (*extract)(void *ctx, int nregions, const fdw_slice *regions, float **host,
                          fdw_error *err);
    /* Without blocking: finish every extract whose copies have completed (their host
     * buffers now hold the data) and set *done to 1 when none is still in flight. Lets the
     * loop go on issuing steps while a snapshot travels to the host. */
    fdw_status (*extract_done)(void *ctx, int *done, fdw_error *err);
    /* Block until all issued work and extracts are complete. */
    fdw_status (*wait)(void *ctx, fdw_error *err);

    /* Copy receiver slots [first, first+count) to host, nreceivers floats per slot. */
    fdw_status (*fetch_receivers)(void *ctx, long first, long count, float *host,
                                  fdw_error *err);

    /* Per-device memory held (bytes) for progress reports; may be NULL. */
    uint64_t (*device_bytes)(void *ctx, int dev);

    /* Called before the host builds the model: FDW_ERR_NOMEM, naming the bytes needed and
     * free, when the wavefields alone of the plan's slabs cannot fit their devices, so a
     * job far too large fails at once instead of after filling tens of GiB of host
     * memory (create still makes the exact check). NULL where device memory is not a
     * separate limit (the CPU backend). */
    fdw_status (*precheck)(fdw_kind kind, int nx, int ny, int radius, const fdw_plan *plan,
                           fdw_error *err);
};

/* The CPU backend; always present. */
const fdw_backend *fdw_cpu_backend(void);
/* The CUDA backend, or NULL when built without CUDA. */
const fdw_backend *fdw_cuda_backend(void);

#endif
