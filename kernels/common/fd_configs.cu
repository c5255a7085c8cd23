// fd_configs.cu — the names of the 2.5D kernel's configurations (fdwk_fd.h), from the one
// list in fd_launch.cuh, so tools and tests can enumerate and label them.
#include "common/fd_launch.cuh"

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
