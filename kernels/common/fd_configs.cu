// fd_configs.cu — the 2.5D kernel's configurations as data for tools and tests (fdwk_fd.h):
// their names, from the one list in fd_launch.cuh, and whether one fits the current device.
#include "common/fd_launch.cuh"

namespace {

// Dynamic shared memory of configuration n at radius R (launch_fd25's ring), -1 if none.
template <int R, bool AC>
int smem_bytes(int n)
{
    switch (n) {
#define FDWK_X(name, TXV, BY, L, NB, desc) \
    case fdwk::FD_##name: return fdwk::tma_geom<R, 4 * TXV, BY, L + NB - 1, AC>::SMEM_BYTES;
        FDWK_FD_CONFIGS(FDWK_X)
#undef FDWK_X
    default: return -1;
    }
}

template <bool AC>
int smem_for(int radius, int n)
{
    switch (radius) {
    case 1: return smem_bytes<1, AC>(n);
    case 2: return smem_bytes<2, AC>(n);
    case 3: return smem_bytes<3, AC>(n);
    case 4: return smem_bytes<4, AC>(n);
    case 5: return smem_bytes<5, AC>(n);
    case 6: return smem_bytes<6, AC>(n);
    case 7: return smem_bytes<7, AC>(n);
    case 8: return smem_bytes<8, AC>(n);
    default: return -1;
    }
}

} // namespace

extern "C" int fdwk_fd_config_count(void) { return fdwk::FD_END - 1; }

extern "C" const char *fdwk_fd_config_name(int n)
{
    switch (n) {
#define FDWK_X(name, TXV, BY, L, NB, desc) \
    case fdwk::FD_##name: return desc;
        FDWK_FD_CONFIGS(FDWK_X)
#undef FDWK_X
    default: return nullptr;
    }
}

extern "C" int fdwk_fd_config_fits(fdwk_mode mode, int radius, int n)
{
    const int bytes = mode == FDWK_ACOUSTIC ? smem_for<true>(radius, n) : smem_for<false>(radius, n);
    int dev = 0, optin = 0;
    if (bytes < 0 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return 0;
    return bytes <= optin;
}
