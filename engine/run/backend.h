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
 * and its weight. A source or receiver at an off-grid position uses up to 512 of these
 * (windowed sinc) or 8 (trilinear); run/positioning.h. Global indices let the backend
 * find the slab that owns the point. */
typedef struct fdw_tap {
    uint64_t index;
    float weight;
    int owner;                 /* which source (in src_taps) or receiver (in rec_taps) */
} fdw_tap;

struct fdw_kind_ops; /* kinds/kind.h */
struct fdw_ckpt_io;  /* run/ckpt_io.h */
struct fdw_ckpt_image; /* run/ckpt_image.h */

/* One array of a kind's slab state that changes as the run goes (the acoustic CPML's psi
 * and zeta), as the kind's state hooks list it for checkpoints: host memory on the CPU
 * backend, device memory on CUDA. */
typedef struct fdw_state_part {
    void *data;
    size_t bytes;
} fdw_state_part;
#define FDW_MAX_STATE_PARTS 8

/* Everything a backend needs to set up and advance one job. Arrays are host memory
 * owned by the engine and valid until destroy(). The shared parts are described here; the
 * kind's own coefficients and arrays are in kdata, whose type its folder declares
 * (kinds/<kind>/<kind>.h), read only by the kind's backend hooks. */
typedef struct fdw_problem {
    const struct fdw_kind_ops *kind;
    int nx, ny, nz;
    int radius;                /* order/2: the ghost depth */
    const void *kdata;         /* the kind's own problem data */

    /* ---- wave kinds (kind->wave) ----
     * Sponge: per-axis damping sigma*dt (dimensionless), length nx / ny / nz; zero in the
     * interior. Total damping at a point: q = qx[i] + qy[j] + qz[k]; how q enters the
     * update is the kind's (acoustic: u' = (2u - (1 - q) u_prev + vdt2 lap(u)) / (1 + q)).
     * NULL: no sponge. */
    const float *qx, *qy, *qz;
    int free_surface;          /* plane k = 0 is held at u = 0, ghosts above mirror -u */

    /* Time convention: step(it) turns u(it*dt) into u((it+1)*dt).
     * Sources: after the update of step it, every tap adds wavelets[owner*nt + it] *
     * tap.weight to u((it+1)*dt) at tap.index (no division by the sponge factor). The
     * wavelets are already multiplied by dt^2 / (dx*dy*dz), so this discretises
     * u_tt = v^2 lap(u) + f(t) delta(x - xs). */
    int nsrc_taps;
    const fdw_tap *src_taps;
    const float *wavelets;     /* nsources * nt */
    long nt;
    /* The run loop's steps: nt (a time step each) unless the kind's own engine counts its
     * work otherwise (the imaging kinds: their forward, recomputing and adjoint steps). */
    long nsteps;

    /* Receivers: slot s holds u(s * rec_interval * dt); slot 0 is the zero initial state.
     * After step it, if (it+1) % rec_interval == 0, slot (it+1)/rec_interval receives, for
     * each receiver r, the sum over its taps of u[index]*weight. nrec_slots =
     * nt/rec_interval + 1. */
    int nreceivers;
    int nrec_taps;
    const fdw_tap *rec_taps;
    int rec_interval;
    long nrec_slots;
    /* What the backends call receivers are rows (run/positioning.h): the taps of one
     * output receiver in one z plane. Output receiver r is the sum of rows
     * [rec_rows[r], rec_rows[r+1]) in order (fdw_receivers_combine); nrec_out of them.
     * rec_rows NULL: every row is a receiver (a problem built by hand). */
    int nrec_out;
    const int *rec_rows;

    /* ---- field kinds (!kind->wave): the initial field (nx*ny*nz), uploaded into the
     * current buffer at create. Each step writes the other buffer from it. ---- */
    const float *init;

    /* Choices forced for benchmarks and tests (fdw_run_opts.tuning); never NULL. */
    const fdw_tuning *tuning;

    /* Distributed run: NULL for one process. Otherwise this process holds only slab
     * comm->rank of the plan (the plan has comm->size slabs); the ghost planes shared with
     * other ranks' slabs go through comm, sources are injected by the rank owning the
     * tap's plane, and a receiver is recorded by the rank owning the lowest plane of its
     * taps (fdw_receiver_slabs in distrib.h), reading a tap below its slab from its ghost
     * planes. Backends that cannot run distributed reject a problem with comm set. */
    const struct fdw_comm *comm;
} fdw_problem;

/* Floats of region rg of the problem's grid (extract's host buffers are this size), or 0
 * when its index is outside the grid. */
static inline size_t fdw_region_floats(const fdw_problem *p, const fdw_slice *rg)
{
    switch (rg->plane) {
    case FDW_PLANE_XY: return rg->index >= 0 && rg->index < p->nz ? (size_t)p->nx * p->ny : 0;
    case FDW_PLANE_XZ: return rg->index >= 0 && rg->index < p->ny ? (size_t)p->nx * p->nz : 0;
    case FDW_PLANE_YZ: return rg->index >= 0 && rg->index < p->nx ? (size_t)p->ny * p->nz : 0;
    case FDW_PLANE_VOLUME: return (size_t)p->nx * p->ny * p->nz;
    }
    return 0;
}

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
     * host buffers hold it once extract_done() says so, or after wait(). NULL: the table
     * takes no snapshots (FDW_ERR_UNSUPPORTED where one is asked for). */
    fdw_status (*extract)(void *ctx, int nregions, const fdw_slice *regions, float **host,
                          fdw_error *err);
    /* Without blocking: finish every extract whose copies have completed (their host
     * buffers now hold the data) and set *done to 1 when none is still in flight. Lets the
     * loop go on issuing steps while a snapshot travels to the host. NULL: an extract is
     * complete when it returns. */
    fdw_status (*extract_done)(void *ctx, int *done, fdw_error *err);
    /* Block until all issued work and extracts are complete. NULL: nothing runs after a
     * call returns (fdw_backend_wait). */
    fdw_status (*wait)(void *ctx, fdw_error *err);

    /* Copy receiver slots [first, first+count) to host, nreceivers floats per slot. NULL:
     * the table records none (a kind without receivers). */
    fdw_status (*fetch_receivers)(void *ctx, long first, long count, float *host,
                                  fdw_error *err);

    /* The largest |value| of the current field over every slab of this context, as the
     * bits of a float32 magnitude (which order like the magnitudes: a NaN or an infinity
     * reads at or above 0x7f800000), for the run's watch (run/watch.h). Called with no
     * work in flight (after wait); ghost planes and padding may be included (they hold
     * copies and zeros). NULL: the table has none (a kind's own engine). */
    fdw_status (*field_peak)(void *ctx, uint32_t *bits, fdw_error *err);

    /* Per-device memory held (bytes) for progress reports; may be NULL. */
    uint64_t (*device_bytes)(void *ctx, int dev);

    /* Called before the host builds the model: FDW_ERR_NOMEM, naming the bytes needed and
     * free, when the wavefields alone of the plan's slabs cannot fit their devices, so a
     * job far too large fails at once instead of after filling tens of GiB of host
     * memory (create still makes the exact check). NULL where device memory is not a
     * separate limit (the CPU backend). */
    fdw_status (*precheck)(const struct fdw_kind_ops *kind, int nx, int ny, int radius,
                           const fdw_plan *plan, fdw_error *err);

    /* Checkpoints (run/checkpoint.h). capture copies every value a later step reads that
     * create does not make again (the fields with their ghost planes, the kind's changing
     * state, the receiver slots recorded so far, which buffer is current) into the
     * context's host image (one block, pinned on CUDA, allocated once and kept until
     * destroy) and lists it in img (run/ckpt_image.h), in the order load reads it back.
     * It is called on the loop's thread with no work in flight (after wait) and returns
     * once the image holds the state; the image is then left alone (steps do not touch
     * it) until the next capture, so the checkpoint writer's thread can put it into the
     * file while the loop goes on. prepare allocates the image ahead of the first capture
     * (capture does when it has not been); it may run on another thread while steps run,
     * never at the same time as a capture, a load or destroy. load reads a file's
     * part back into a context create has just made from the same problem and plan
     * (after wait). NULL capture: this table (a kind's own engine) keeps no checkpoints. */
    fdw_status (*prepare)(void *ctx, fdw_error *err);
    fdw_status (*capture)(void *ctx, struct fdw_ckpt_image *img, fdw_error *err);
    fdw_status (*load)(void *ctx, struct fdw_ckpt_io *io, fdw_error *err);
};

/* be's wait, where it has one. */
static inline fdw_status fdw_backend_wait(const fdw_backend *be, void *ctx, fdw_error *err)
{
    return be->wait ? be->wait(ctx, err) : FDW_OK;
}

/* The CPU backend; always present. */
const fdw_backend *fdw_cpu_backend(void);
/* The CUDA backend, or NULL when built without CUDA. */
const fdw_backend *fdw_cuda_backend(void);
/* The table that runs kind on that backend: the kind's own engine where it brings one
 * (kind.h's run.cpu_engine, run.cuda_engine: a kind whose computation is not the shared
 * slab step), else the backend itself (NULL where it is absent). */
const fdw_backend *fdw_cpu_backend_for(const struct fdw_kind_ops *kind);
const fdw_backend *fdw_cuda_backend_for(const struct fdw_kind_ops *kind);

#endif
