// tensor_map.cuh — host side of the Hopper tensor-memory accelerator for the kernels that
// use it (fd_step.cu's 2.5D kernels, derivative.cu's z kernel): the driver's
// cuTensorMapEncodeTiled through the runtime (no -lcuda link) and one 3-D float map.
#pragma once
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

namespace fdwk {

// cuTensorMapEncodeTiled through the runtime's driver entry point (no -lcuda link needed);
// NULL when the driver lacks it.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_fn()
{
    // A function-local static: initialised once, thread-safe (one host thread per GPU).
    static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            return (PFN_cuTensorMapEncodeTiled_v12000)p;
        return (PFN_cuTensorMapEncodeTiled_v12000) nullptr;
    }();
    return fn;
}

// A 3-D float tensor map: dims (d0, d1, d2) from base with row pitch and plane stride in
// floats, box (b0, b1, 1); out-of-bounds cells read as zero. Returns a CUDA error code.
inline int make_map(CUtensorMap *m, const float *base, long d0, long d1, long d2, long pitch,
             long plane, int b0, int b1)
{
    PFN_cuTensorMapEncodeTiled_v12000 fn = encode_fn();
    if (!fn) return (int)cudaErrorNotSupported;
    const cuuint64_t dims[3] = {(cuuint64_t)d0, (cuuint64_t)d1, (cuuint64_t)d2};
    const cuuint64_t strides[2] = {(cuuint64_t)pitch * 4, (cuuint64_t)plane * 4};
    const cuuint32_t box[3] = {(cuuint32_t)b0, (cuuint32_t)b1, 1};
    const cuuint32_t es[3] = {1, 1, 1};
    CUresult r = fn(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, (void *)base, dims, strides, box, es,
                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

} // namespace fdwk
