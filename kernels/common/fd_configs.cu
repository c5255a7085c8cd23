// fd_configs.cu — the name of the 2.5D kernel's configuration for a kind and radius
// (fdwk_fd.h), from the tuned tables of fd_launch.cuh, for tools and tests.
#include "common/fd_launch.cuh"

extern "C" const char *fdwk_fd_config_name(fdwk_mode mode, int radius)
{
    if (radius < 1 || radius > FDWK_MAX_RADIUS)
        return nullptr;
    const fdwk::fd_default &d =
        mode == FDWK_ACOUSTIC ? fdwk::DEFAULT_ACOUSTIC[radius] : fdwk::DEFAULT_STENCIL[radius];
    return fdwk::SHAPES[d.config].desc;
}
