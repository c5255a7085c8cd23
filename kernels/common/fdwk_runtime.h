/* fdwk_runtime.h — the C face of kernels/common: device queries, memory, streams, events,
 * copies, the padded grid layout every kind shares, and the small kernels around the stencil
 * (sources, receivers, free surface, extraction, random fill). The C11 host code reaches the
 * GPU only through this header and the kinds' headers (acoustic/, stencil/, derivative/), so
 * no C file includes a CUDA header. Every function that can fail returns 0 on success or a
 * non-zero CUDA error code; fdwk_strerror() names it. */
#ifndef FDWK_RUNTIME_H
#define FDWK_RUNTIME_H

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
/* The largest magnitude bits (|x| as float32 bits, NaN and infinity at or above 0x7f800000)
 * of n floats from p, combined into *out (device memory, which the caller zeroes first) by
 * atomicMax: the run's field watch. */
int fdwk_peak_bits(const float *p, size_t n, unsigned *out, fdwk_stream s);
/* Fills the interior of a field with a deterministic pseudo-random pattern (benchmarks). */
int fdwk_fill_random(float *field, const fdwk_layout *L, unsigned seed, float scale,
                     float offset, fdwk_stream s);

#ifdef __cplusplus
}
#endif
#endif
