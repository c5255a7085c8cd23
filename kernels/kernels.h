/* kernels.h — the C-callable face of the CUDA code: device queries, memory, streams,
 * events, copies and kernel launches. Everything outside kernels/ reaches the GPU only
 * through these functions, so no C file includes a CUDA header. Every function that can
 * fail returns 0 on success or a non-zero CUDA error code; fdwk_strerror() names it. */
#ifndef FDW_KERNELS_H
#define FDW_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FDWK_MAX_RADIUS 8

typedef struct fdwk_stream_s *fdwk_stream; /* a cudaStream_t */
typedef struct fdwk_event_s *fdwk_event;   /* a cudaEvent_t */

const char *fdwk_strerror(int code);

/* ---- devices ------------------------------------------------------------ */
int fdwk_device_count(int *count);
int fdwk_device_name(int dev, char *name, size_t len);
int fdwk_set_device(int dev);
int fdwk_mem_info(uint64_t *free_bytes, uint64_t *total_bytes); /* current device */
int fdwk_device_sync(void);
/* Enable peer access from the current device to `peer`; *enabled says whether the two
 * GPUs can reach each other directly (copies are staged by the runtime otherwise). */
int fdwk_enable_peer(int peer, int *enabled);

/* ---- memory ------------------------------------------------------------- */
int fdwk_malloc(void **p, size_t bytes);
int fdwk_free(void *p);
int fdwk_host_alloc(void **p, size_t bytes); /* pinned */
int fdwk_host_free(void *p);
int fdwk_memset_async(void *p, int value, size_t bytes, fdwk_stream s);
int fdwk_h2d_async(void *dst, const void *src, size_t bytes, fdwk_stream s);
int fdwk_d2h_async(void *dst, const void *src, size_t bytes, fdwk_stream s);
int fdwk_d2d_async(void *dst, const void *src, size_t bytes, fdwk_stream s);
int fdwk_peer_async(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                    fdwk_stream s);
int fdwk_h2d(void *dst, const void *src, size_t bytes);
/* Asynchronous 2-D copy device -> host: height rows of width bytes (pitches in bytes). */
int fdwk_d2h_2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, fdwk_stream s);
/* Synchronous 2-D copy host -> device: height rows of width bytes (pitches in bytes). */
int fdwk_h2d_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                size_t height);
int fdwk_d2h(void *dst, const void *src, size_t bytes);

/* ---- streams and events ------------------------------------------------- */
int fdwk_stream_create(fdwk_stream *s, int high_priority);
int fdwk_stream_destroy(fdwk_stream s);
int fdwk_stream_sync(fdwk_stream s);
int fdwk_event_create(fdwk_event *e, int timing);
int fdwk_event_destroy(fdwk_event e);
int fdwk_event_record(fdwk_event e, fdwk_stream s);
int fdwk_event_sync(fdwk_event e);
/* Without blocking: *done = 1 when the work before the event's record has finished. */
int fdwk_event_query(fdwk_event e, int *done);
int fdwk_stream_wait(fdwk_stream s, fdwk_event e);
int fdwk_event_ms(fdwk_event start, fdwk_event end, float *ms);
/* The last launch error of this thread (cudaGetLastError), 0 if none. */
int fdwk_last_error(void);

/* ---- grid layout ---------------------------------------------------------
 * One device's slab of a field: interior nx x ny x nz, padded by `xoff` floats before
 * each row (32: >= radius, and interior rows start 128-byte aligned), rows of
 * `pitch` floats, `ypad` padding rows before and after the interior rows of a plane,
 * `zpad` ghost planes before and after. Element (i,j,k) with i in [-xoff, pitch-xoff),
 * j in [-ypad, ny+ypad), k in [-zpad, nz+zpad) is at origin + k*plane + j*pitch + i,
 * where origin = base + zpad*plane + ypad*pitch + xoff. Padding stays zero, except
 * the z ghosts, which hold the neighbours' planes or the free-surface mirror. */
typedef struct fdwk_layout {
    int nx, ny, nz;
    int xoff, ypad, zpad;
    long pitch, plane;
    size_t total;          /* floats to allocate, slack included */
} fdwk_layout;

void fdwk_layout_init(fdwk_layout *L, int nx, int ny, int nz, int radius);
static inline long fdwk_origin(const fdwk_layout *L)
{
    return (long)L->zpad * L->plane + (long)L->ypad * L->pitch + L->xoff;
}
static inline long fdwk_index(const fdwk_layout *L, int i, int j, int k)
{
    return fdwk_origin(L) + (long)k * L->plane + (long)j * L->pitch + i;
}

/* ---- finite-difference updates -------------------------------------------- */
typedef enum { FDWK_ACOUSTIC = 0, FDWK_STENCIL = 1 } fdwk_mode;

/* Configurations of the 2.5D kernel: TX threads per row (the tile's width), BY rows of
 * threads x RY outputs per thread in y; every load issued P planes ahead. FDWK_TILE_AUTO
 * picks the tuned default for the radius and mode (the environment variable
 * FDW_CUDA_TILE=n forces configuration n where it exists, for tuning and tests). A..D exist
 * for every radius, E..G for radius <= 4, T3, T5 and V1..V8 (TMA) for every radius, the others for
 * radius 4 (order 8) only. */
typedef enum {
    FDWK_TILE_AUTO = 0,
    FDWK_TILE_A = 1,          /* 32x16 tile: 32x8 threads, 2 outputs each, P = 1 */
    FDWK_TILE_B = 2,          /* 32x32 tile: 32x8 threads, 4 outputs each, P = 2 */
    FDWK_TILE_C = 3,          /* 64x8 tile: 64x4 threads, 2 outputs each, P = 1 */
    FDWK_TILE_D = 4,          /* 64x16 tile: 64x8 threads, 2 outputs each, P = 1 */
    FDWK_TILE_32x16_P2 = 5,   /* 32x16, P = 2 */
    FDWK_TILE_32x16_P3 = 6,   /* 32x16, P = 3 */
    FDWK_TILE_64x16_T256 = 7, /* 64x16 tile: 64x4 threads, 4 outputs each, P = 1 */
    FDWK_TILE_128x4 = 8,      /* 128x4 tile: 128x2 threads, 2 outputs each, P = 1 */
    FDWK_TILE_64x8_T512 = 9,  /* 64x8 tile: 64x8 threads, 1 output each, P = 1 */
    FDWK_TILE_32x32_P1 = 10,  /* 32x32 tile: 32x8 threads, 4 outputs each, P = 1 */
    FDWK_TILE_E = 11,         /* cp.async (fd25a.cuh), radius <= 4: 32x16, L = 2 planes */
    FDWK_TILE_F = 12,         /* cp.async, radius <= 4: 32x16, L = 3 */
    FDWK_TILE_G = 13,         /* cp.async, radius <= 4: 64x8 (64x4 threads), L = 2 */
    /* Bulk tensor copies (TMA, fd25t.cuh): T3 and T5 for every radius, the others for
     * radius 4 only; L = planes in flight beyond the R + 1 the ring holds for the z queue;
     * TP = stages of the separate u_prev / (v dt)^2 ring (none: they share the u stage). */
    FDWK_TILE_T1 = 14,        /* 32x16 tile: 32x8 threads, 2 outputs each, L = 2 */
    FDWK_TILE_T2 = 15,        /* 32x16 tile: 32x8 threads, 2 outputs each, L = 4 */
    FDWK_TILE_T3 = 16,        /* 64x16 tile: 64x4 threads, 4 outputs each, L = 2 */
    FDWK_TILE_T4 = 17,        /* 128x8 tile: 128x2 threads, 4 outputs each, L = 1 */
    FDWK_TILE_T5 = 18,        /* 64x16 tile: 64x8 threads, 2 outputs each, L = 1 */
    FDWK_TILE_T6 = 19,        /* 32x32 tile: 32x8 threads, 4 outputs each, L = 1 */
    FDWK_TILE_T7 = 20,        /* 64x16 tile: 64x8 threads, 2 outputs each, L = 2, TP = 2 */
    FDWK_TILE_T8 = 21,        /* 64x16 tile: 64x4 threads, 4 outputs each, L = 2, TP = 2 */
    FDWK_TILE_T9 = 22,        /* 128x8 tile: 128x4 threads, 2 outputs each, L = 1, TP = 2 */
    /* TMA with 4 consecutive x points per thread (fd25v.cuh, 16-byte shared loads), every
     * radius: */
    FDWK_TILE_V1 = 23,        /* 64x16 tile: 16x16 threads, L = 1 */
    FDWK_TILE_V2 = 24,        /* 128x8 tile: 32x8 threads, L = 1 */
    FDWK_TILE_V3 = 25,        /* 64x16 tile: 16x16 threads, L = 2 */
    FDWK_TILE_V4 = 26,        /* 128x16 tile: 32x16 threads, L = 1 */
    /* ... updating 2 planes per iteration (half the barriers and register-queue moves): */
    FDWK_TILE_V5 = 27,        /* 64x16 tile: 16x16 threads, L = 1 */
    FDWK_TILE_V6 = 28,        /* 128x8 tile: 32x8 threads, L = 1 */
    FDWK_TILE_V7 = 29,        /* 64x16 tile: 16x16 threads, L = 2 */
    FDWK_TILE_V8 = 30,        /* 128x16 tile: 32x16 threads, L = 1 */
    FDWK_TILE_COUNT
} fdwk_tile;

/* Human-readable description of a configuration ("32x16 tile, 32x8 thr, P=3"). */
const char *fdwk_tile_name(fdwk_tile t);

struct fdwk_pml_args; /* below: the CPML passes */

typedef struct fdwk_fd_args {
    fdwk_mode mode;
    int radius;              /* 1..8 */
    float *out;              /* acoustic: u(t-dt) on entry, u(t+dt) on exit; stencil: D' */
    const float *u;          /* u(t) / D, with valid ghosts */
    const float *vdt2;       /* acoustic: (v dt)^2, same layout */
    const float *qx, *qy, *qz; /* sponge damping per axis (qz by global k); NULL: none */
    int nx, ny;              /* slab interior */
    int k0, k1;              /* local planes to update */
    int kglob;               /* global index of local plane 0 */
    long pitch, plane;       /* layout; all pointers are interior origins */
    int free_surface;        /* write 0 on global plane 0 */
    int zchunk;              /* planes per block along z; 0: automatic */
    fdwk_tile tile;
    float c0;                /* centre weight (acoustic: cx0+cy0+cz0; stencil: sc0) */
    float cx[FDWK_MAX_RADIUS + 1], cy[FDWK_MAX_RADIUS + 1], cz[FDWK_MAX_RADIUS + 1];
    /* CPML per axis (host structs, NULL: no layer on that axis; k0/k1 as above): after
     * the update, fdwk_fd_step runs each axis's zeta pass (fdwk_pml_zeta) on the same
     * stream; fdwk_pml_psi must have been called for this step before the update (it does
     * nothing where the zeta call updates psi too, which is the usual case: cpml.cu). */
    const struct fdwk_pml_args *pml[3];
} fdwk_fd_args;

int fdwk_fd_step(const fdwk_fd_args *a, fdwk_stream s);

/* The seed paper's design for comparison in the benchmark: 16x16 threads, one output
 * each, order 8, acoustic, no sponge; same argument struct (radius must be 4). */
int fdwk_seed16_step(const fdwk_fd_args *a, fdwk_stream s);

/* Periodic 8th-order first derivative along axis (0 x, 1 y, 2 z), out of place, on a
 * layout without ghosts: out(i) = sum_m dc[m] (f(i+m) - f(i-m)), m = 1..4. */
int fdwk_derivative(float *out, const float *in, int nx, int ny, int nz, long pitch,
                    long plane, int axis, const float dc[5], fdwk_stream s);

/* ---- CPML (engine/backend.h states the recursion) ------------------------
 * One axis's layer points in local planes [k0, k1) of a slab. Layer index l along the axis:
 * l < w0 is global index l, l >= w0 is n - w1 + (l - w0). psi and zeta are compact:
 *   x: ((k * ny + j) * (w0 + w1) + l)      (k local, all planes of the slab)
 *   y: ((k * (w0 + w1) + l) * nx + i)
 *   z: ((l * ny + j) * nx + i)              (w0/w1: the layer planes this slab holds)
 * fdwk_pml_psi updates psi from u; fdwk_pml_zeta then updates zeta and adds the term to
 * out (skipping global plane 0 when free_surface is set). */
typedef struct fdwk_pml_args {
    int axis, radius;
    int nx, ny;              /* slab interior */
    long pitch, plane;       /* layout; u, out, vdt2 are interior origins */
    int k0, k1;              /* local planes */
    int kglob;               /* global index of local plane 0 */
    int n, w0, w1;           /* axis length (global) and layer widths */
    int free_surface;
    const float *a, *b;      /* per global axis index */
    const float *u, *vdt2;
    float *out, *psi, *zeta;
    float d1[FDWK_MAX_RADIUS + 1], d2[FDWK_MAX_RADIUS + 1];
} fdwk_pml_args;
int fdwk_pml_psi(const fdwk_pml_args *a, fdwk_stream s);
int fdwk_pml_zeta(const fdwk_pml_args *a, fdwk_stream s);

/* ---- sources, receivers, boundaries, extraction -------------------------- */
/* Sources: npoints distinct field offsets; point p adds, one tap after the other in
 * the order given, wavelets[owner[t]*nt + it] * weight[t] for t in [start[p], start[p+1]). */
int fdwk_inject(float *field, int npoints, const long *offset, const int *start,
                const int *owner, const float *weight, const float *wavelets, long nt,
                long it, fdwk_stream s);
/* Receivers: for r in [0, nrec), rec[slot*nrec + r] = sum over taps t in
 * [start[r], start[r+1]) of field[offset[t]] * weight[t], in tap order. */
int fdwk_record(float *rec, long slot, int nrec, const int *start, const long *offset,
                const float *weight, const float *field, fdwk_stream s);
/* Free-surface mirror: ghost planes -m := -(plane m), m = 1..radius, over whole padded
 * planes (plane 0 itself is zeroed by the update). field is the interior origin. */
int fdwk_free_surface(float *field, const fdwk_layout *L, int radius, fdwk_stream s);
/* Copies a box [i0,i0+ni) x [j0,j0+nj) x [k0,k0+nk) (local) of a field, x fastest, into a
 * compact array. */
int fdwk_gather(float *dst, const float *field, const fdwk_layout *L, int i0, int ni,
                int j0, int nj, int k0, int nk, fdwk_stream s);
/* Fills the interior of a field with a deterministic pseudo-random pattern (benchmarks). */
int fdwk_fill_random(float *field, const fdwk_layout *L, unsigned seed, float scale,
                     float offset, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
