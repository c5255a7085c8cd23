// runtime.cu — thin C wrappers over the CUDA runtime (devices, memory, streams, events,
// copies) and the grid layout (fdwk_runtime.h), so that the C11 host code of the backend
// never includes a CUDA header.
#include "common/fdwk_runtime.h"
#include <cuda_runtime.h>

extern "C" {

const char *fdwk_strerror(int code) { return cudaGetErrorString((cudaError_t)code); }

int fdwk_device_count(int *count)
{
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        *count = 0;
        cudaGetLastError(); // clear the sticky "no device" error
    }
    return (int)e;
}

int fdwk_device_name(int dev, char *name, size_t len)
{
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, dev);
    if (e != cudaSuccess) return (int)e;
    size_t i = 0;
    for (; len && i + 1 < len && p.name[i]; ++i) name[i] = p.name[i];
    if (len) name[i] = 0;
    return 0;
}

int fdwk_set_device(int dev) { return (int)cudaSetDevice(dev); }

int fdwk_mem_info(uint64_t *free_bytes, uint64_t *total_bytes)
{
    size_t f = 0, t = 0;
    cudaError_t e = cudaMemGetInfo(&f, &t);
    *free_bytes = f;
    *total_bytes = t;
    return (int)e;
}

int fdwk_device_sync(void) { return (int)cudaDeviceSynchronize(); }

int fdwk_enable_peer(int peer, int *enabled)
{
    int dev = 0, can = 0;
    *enabled = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if (dev == peer) { *enabled = 1; return 0; }
    e = cudaDeviceCanAccessPeer(&can, dev, peer);
    if (e != cudaSuccess) return (int)e;
    if (!can) return 0;
    e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) { cudaGetLastError(); e = cudaSuccess; }
    if (e == cudaSuccess) *enabled = 1;
    return (int)e;
}

int fdwk_malloc(void **p, size_t bytes)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) { *p = nullptr; cudaGetLastError(); }
    return (int)e;
}
int fdwk_free(void *p) { return p ? (int)cudaFree(p) : 0; }
int fdwk_host_alloc(void **p, size_t bytes)
{
    cudaError_t e = cudaMallocHost(p, bytes);
    if (e != cudaSuccess) { *p = nullptr; cudaGetLastError(); }
    return (int)e;
}
int fdwk_host_free(void *p) { return p ? (int)cudaFreeHost(p) : 0; }

int fdwk_memset_async(void *p, int value, size_t bytes, fdwk_stream s)
{
    return (int)cudaMemsetAsync(p, value, bytes, (cudaStream_t)s);
}
int fdwk_h2d_async(void *dst, const void *src, size_t bytes, fdwk_stream s)
{
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)s);
}
int fdwk_d2h_async(void *dst, const void *src, size_t bytes, fdwk_stream s)
{
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)s);
}
int fdwk_d2d_async(void *dst, const void *src, size_t bytes, fdwk_stream s)
{
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)s);
}
int fdwk_peer_async(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                    fdwk_stream s)
{
    return (int)cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, (cudaStream_t)s);
}
int fdwk_h2d(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}
int fdwk_d2h(void *dst, const void *src, size_t bytes)
{
    return (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}
int fdwk_d2h_2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, fdwk_stream s)
{
    return (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                  cudaMemcpyDeviceToHost, (cudaStream_t)s);
}
int fdwk_h2d_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                size_t height)
{
    return (int)cudaMemcpy2D(dst, dpitch, src, spitch, width, height, cudaMemcpyHostToDevice);
}

int fdwk_stream_create(fdwk_stream *s, int high_priority)
{
    int lo = 0, hi = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&lo, &hi);
    if (e != cudaSuccess) return (int)e;
    cudaStream_t st;
    e = cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, high_priority ? hi : lo);
    *s = (fdwk_stream)st;
    return (int)e;
}
int fdwk_stream_destroy(fdwk_stream s) { return s ? (int)cudaStreamDestroy((cudaStream_t)s) : 0; }
int fdwk_stream_sync(fdwk_stream s) { return (int)cudaStreamSynchronize((cudaStream_t)s); }
int fdwk_event_create(fdwk_event *ev, int timing)
{
    cudaEvent_t e;
    cudaError_t rc = cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming);
    *ev = (fdwk_event)e;
    return (int)rc;
}
int fdwk_event_destroy(fdwk_event e) { return e ? (int)cudaEventDestroy((cudaEvent_t)e) : 0; }
int fdwk_event_record(fdwk_event e, fdwk_stream s)
{
    return (int)cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s);
}
int fdwk_event_sync(fdwk_event e) { return (int)cudaEventSynchronize((cudaEvent_t)e); }
int fdwk_event_query(fdwk_event e, int *done)
{
    const cudaError_t r = cudaEventQuery((cudaEvent_t)e);
    *done = r == cudaSuccess;
    if (r == cudaErrorNotReady) {
        (void)cudaGetLastError(); // not an error: clear it so later checks do not see it
        return 0;
    }
    return (int)r;
}
int fdwk_stream_wait(fdwk_stream s, fdwk_event e)
{
    return (int)cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0);
}
int fdwk_event_ms(fdwk_event start, fdwk_event end, float *ms)
{
    return (int)cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end);
}
int fdwk_last_error(void) { return (int)cudaGetLastError(); }

// Layout: xoff 32 floats (>= any radius), and rows padded to a multiple of 32 floats, so
// every interior row starts on a 128-byte boundary: a warp's row pieces and the tiles'
// stores then cover whole cache lines (rows 32 bytes past a line cost 1-2 points of the
// copy rate: docs/gpu.md, decisions). ypad and zpad equal the radius. Slack at the end
// covers the widest tile's guarded reads.
void fdwk_layout_init(fdwk_layout *L, int nx, int ny, int nz, int radius)
{
    L->nx = nx;
    L->ny = ny;
    L->nz = nz;
    L->xoff = 32;
    L->ypad = radius;
    L->zpad = radius;
    long w = L->xoff + (long)nx + (radius > 0 ? radius : 0);
    L->pitch = (w + 31) / 32 * 32;
    L->plane = L->pitch * (long)(ny + 2 * radius);
    L->total = (size_t)L->plane * (size_t)(nz + 2 * radius) + 64;
}

} // extern "C"
