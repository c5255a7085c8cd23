/* cpu_backend_impl.h — internals shared by the files of the CPU backend (cpu_backend.c,
 * cpu_acoustic.c, cpu_stencil.c, cpu_derivative.c, halo_cpu.c, cpu_cpml.c). Not part of
 * the engine's interface: the rest of the engine sees only fdw_cpu_backend() in backend.h.
 *
 * Memory layout of one slab (one virtual device owning global planes [z0, z0+nz)):
 * a buffer holds nz + 2r planes (r ghost planes above and below the owned ones); every
 * plane is px * py floats with the grid's nx * ny points at offset (FDW_CPU_XOFF, r): r
 * zero rows above and below, FDW_CPU_XOFF (>= r) zero columns before a row and at least r
 * after it, px rounded up to 16 floats. Rows start 64-byte aligned and so does x = 0, so
 * every load but the x neighbours' touches a single cache line.
 * So the stencil never needs a branch: the outside of the grid is stored zeros (or the
 * free-surface mirror, or periodic copies for the derivative kind). */
#ifndef FDW_CPU_BACKEND_IMPL_H
#define FDW_CPU_BACKEND_IMPL_H

#include "run/backend.h"
#include "fdwave/comm.h"

#include <omp.h>
#include <stddef.h>
#include <stdint.h>

/* Zero columns before x = 0 of every row: one cache line, at least FDW_MAX_RADIUS. */
#define FDW_CPU_XOFF 16

/* A source tap resolved to a slab: offset from the slab's point (0,0, local plane 0). */
typedef struct cpu_tap {
    ptrdiff_t offset;
    int k;                     /* local owned plane, to inject with the range that updates it */
    int owner;
    float weight;
} cpu_tap;

/* A receiver tap resolved to the slab that owns its point. */
typedef struct cpu_rec_tap {
    int slab;
    ptrdiff_t offset;
    int owner;
    float weight;
} cpu_rec_tap;

typedef struct cpu_slab {
    int z0, nz;                /* owned global planes [z0, z0+nz) */
    float *buf[2];             /* fields (wave kinds: u and u_prev; others: field and out) */
    void *kstate;              /* the kind's own state of this slab (cpu_kind.h) */
    int nsrc;
    cpu_tap *src;              /* taps in owned planes, in the problem's order */
    uint64_t bytes;            /* memory held for this slab */
} cpu_slab;

typedef struct cpu_ctx {
    fdw_problem prob;          /* shallow copy; arrays belong to the engine */
    int nx, ny, nz, r;
    int px, py;                /* padded row length and rows per plane */
    ptrdiff_t plane;           /* px * py */
    ptrdiff_t origin;          /* offset of point (0,0) of owned plane 0 in a buffer */
    int yblock;                /* rows per cache block */
    int ndev;
    cpu_slab slab[FDW_MAX_DEVICES];
    int cur;                   /* buf[cur] holds the current field u(it*dt) */
    const struct fdw_cpu_ops *ops; /* the kind's hooks (cpu_kind.h) */
    int sponge;                /* wave kinds: any of prob.qx/qy/qz given */
    float *qx, *qy, *qz;       /* sponge per axis (nx, ny, nz), zeros where prob's is NULL */
    int xlo, xhi;              /* qx is exactly 0 on [xlo, xhi): the undamped row part */
    int ntaps_rec;
    cpu_rec_tap *rec;
    float *traces;             /* nrec_slots * nreceivers */
    /* Distributed run (prob.comm set): this process holds one slab, slab gslab of the
     * plan's nslabs; its ghost planes next to other ranks come through comm. One process:
     * gslab 0, nslabs = ndev. */
    const fdw_comm *comm;
    int gslab, nslabs;
    fdw_plan plan;             /* copy of the plan (memory of every slab, for progress) */
    int ghosts_stale;          /* field kinds: the initial field's ghosts not filled */
    void *ckpt_block;          /* checkpoints' host image (cpu_checkpoint.c); NULL: none yet */
    size_t ckpt_size;
} cpu_ctx;

/* The kernels are compiled for AVX-512, AVX2 and baseline x86-64 and the best one is
 * picked at load time (the build does not use -march). Floating-point contraction is off
 * in ISO C mode, so every clone computes each point with the same roundings. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FDW_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FDW_CPU_CLONES
#endif

static inline float *cpu_base(const cpu_ctx *c, const cpu_slab *s, int b)
{
    return s->buf[b] + c->origin;
}

/* (y block, plane) pairs per OpenMP task when a kernel walks nb blocks over nk planes:
 * runs of consecutive planes of one block (the z walk reuses the planes in cache), about
 * four per thread so that a thread the OS holds back does not stall the others. */
static inline int cpu_chunk(int nb, int nk)
{
    long total = (long)nb * nk, parts = 4L * omp_get_max_threads();
    long chunk = (total + parts - 1) / parts;
    return chunk < 1 ? 1 : (int)chunk;
}

/* The field watch's peak (backend.h field_peak): the largest |value| of n floats at f
 * folded into *peak, *bad set where one is a NaN or an infinity; then the magnitude's
 * bits of what was folded (NaN where bad). */
void cpu_peak_fold(const float *f, size_t n, float *peak, int *bad);
uint32_t cpu_peak_bits(float peak, int bad);

/* What an out-of-place plane kernel (stencil, derivative) reads and writes on slab s:
 * point (0,0) of local plane 0 in the other buffer (out) and the current one (in), the
 * row and plane strides, the row length. */
typedef struct cpu_planes {
    float *out;
    const float *in;
    ptrdiff_t sy, sz;
    int nx;
} cpu_planes;

static inline cpu_planes cpu_planes_of(const cpu_ctx *c, const cpu_slab *s)
{
    const cpu_planes p = {s->buf[1 - c->cur] + c->origin, s->buf[c->cur] + c->origin, c->px,
                          c->plane, c->nx};
    return p;
}

/* A kernel's work on rows [j0, j1) of local plane k, its arguments at arg. */
typedef void (*cpu_rows_fn)(const void *arg, int k, int j0, int j1);
/* Local planes [ka, kb) of a slab walked in parallel as (y block of c->yblock rows, plane)
 * pairs with cpu_chunk's schedule: the plane-by-plane kinds' one loop. */
void cpu_walk_planes(const cpu_ctx *c, int ka, int kb, cpu_rows_fn fn, const void *arg);

/* Copy a grid array (nx*ny*nz, x fastest) into the owned planes of slab s's buffer whose
 * point (0,0) of local plane 0 is at dst. */
void cpu_upload(const cpu_ctx *c, const cpu_slab *s, float *dst, const float *src);
/* Zero a buffer of nplanes padded planes in parallel, in the kernels' schedule, so pages
 * are first touched by the threads that update them. */
void cpu_first_touch(const cpu_ctx *c, float *buf, int nplanes);

/* prob's sponge profiles copied whole (nx, ny and nz floats into *qx, *qy, *qz), zeros on
 * an axis without one (the kernels read all three); nothing when prob has none. Returns
 * 0, or -1 when out of memory (what was allocated is left for the caller to free). */
int cpu_copy_sponge(const fdw_problem *prob, float **qx, float **qy, float **qz);

/* Rows of the y blocks a kernel walks z with: as many as keep 2r + 1 planes of the block
 * (its halo rows included) within bytes, at least 8 and at most ny. */
int cpu_yblock_rows(const cpu_ctx *c, long bytes);

/* The first local plane of slab s's field buffer b, plane k's point (0, 0) at + k * plane. */
/* halo_cpu.c: fill the r ghost planes above and below every slab's owned planes in
 * buffer b with copies of the neighbouring slabs' owned planes. periodic: the grid wraps
 * in z (first and last slab are neighbours, a single slab is its own neighbour);
 * otherwise ghost planes outside the grid are left untouched (zero). */
void cpu_exchange_ghosts(const cpu_ctx *c, int b, int periodic);
/* Distributed run: the same fill for this process's slab, through c->comm (its ghost
 * planes from the neighbouring ranks' owned planes, its owned planes to them). Started,
 * then finished once the interior is computed (it touches neither the r owned planes
 * next to a neighbour nor the ghost planes of buffer b). Collective with the neighbours;
 * each returns 0, or non-zero when the communication failed. */
int cpu_exchange_remote_start(const cpu_ctx *c, int b, int periodic, void **pending);
int cpu_exchange_remote_finish(const cpu_ctx *c, void *pending);
/* Free surface: ghost planes above global plane 0 of buffer b get u(-m) = -u(m). */
void cpu_mirror_free_surface(const cpu_ctx *c, int b);
/* Derivative kind along x or y: fill the x (or y) padding of every owned row of buffer b
 * with periodic copies of the grid's values. */
void cpu_fill_periodic_pad(const cpu_ctx *c, int b, fdw_axis axis);

struct fdw_ckpt_io;
struct fdw_ckpt_image;
/* cpu_checkpoint.c: the backend table's prepare, capture and load (backend.h). */
fdw_status fdw_cpu_prepare(void *ctx, fdw_error *err);
fdw_status fdw_cpu_capture(void *ctx, struct fdw_ckpt_image *img, fdw_error *err);
fdw_status fdw_cpu_load(void *ctx, struct fdw_ckpt_io *io, fdw_error *err);

#endif
