/* host_memory.h — host memory that a run copies large blocks into (a checkpoint's image,
 * an image's download): its pages touched by the host's threads together, and memcpy
 * spread over them, because one thread faulting pages in or copying alone is slower than
 * the devices and the loop deliver. Internal to libfdwave. */
#ifndef FDW_HOST_MEMORY_H
#define FDW_HOST_MEMORY_H

#include <stddef.h>

/* Every page of p[0..bytes) written once (zero at one byte a page), by the OpenMP threads. */
void fdw_touch_pages(void *p, size_t bytes);

/* memcpy of n bytes in pieces over the OpenMP threads. */
void fdw_copy_parallel(void *dst, const void *src, size_t n);

#endif
