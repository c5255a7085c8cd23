// occupancy_cap.cuh — the benchmark knob FDW_CUDA_MAXBLOCKS=N: the dynamic shared memory a
// launch asks for so that at most N of its blocks fit on one SM. The sweeps use it to vary
// how many blocks (streams of memory requests) an SM runs without changing the kernel's
// code or registers. Unset or 0: the kernel's own shared memory, no cap.
#pragma once
#include <cuda_runtime.h>
#include <cstdlib>

namespace fdwk {

inline int cap_smem(int base_bytes)
{
    const char *e = getenv("FDW_CUDA_MAXBLOCKS");
    const int n = e ? atoi(e) : 0;
    if (n < 1) return base_bytes;
    int dev = 0, per_sm = 0, optin = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    int s = per_sm / n - 1024; // each resident block also reserves 1 KiB
    if (s > optin) s = optin;
    return s > base_bytes ? s : base_bytes;
}

} // namespace fdwk
