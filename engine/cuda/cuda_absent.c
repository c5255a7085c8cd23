/* cuda_absent.c — stands in for the CUDA backend in builds without nvcc: no GPUs. */
#include "run/backend.h"
#include "core/error.h"

const fdw_backend *fdw_cuda_backend(void) { return NULL; }

const fdw_backend *fdw_cuda_backend_for(const struct fdw_kind_ops *kind)
{
    (void)kind;
    return NULL;
}

int fdw_gpu_count(void) { return 0; }

fdw_status fdw_gpu_info(int id, fdw_device_info *info, fdw_error *err)
{
    (void)info;
    return fdw_fail(err, FDW_ERR_UNSUPPORTED, NULL,
                    "GPU %d requested but this build has no CUDA backend", id);
}
