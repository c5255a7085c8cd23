/* host_memory.c — first touch and copies over the host's threads (host_memory.h). */
#include "core/host_memory.h"

#include <string.h>

void fdw_touch_pages(void *p, size_t bytes)
{
    char *b = p;
    const long pages = (long)((bytes + 4095) / 4096);
#pragma omp parallel for schedule(static)
    for (long q = 0; q < pages; q++)
        b[(size_t)q * 4096] = 0;
}

void fdw_copy_parallel(void *dst, const void *src, size_t n)
{
    const size_t piece = (size_t)1 << 20;
    const long pieces = (long)((n + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (long q = 0; q < pieces; q++) {
        const size_t o = (size_t)q * piece;
        memcpy((char *)dst + o, (const char *)src + o, n - o < piece ? n - o : piece);
    }
}
