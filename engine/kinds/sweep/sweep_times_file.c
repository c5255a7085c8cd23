/* sweep_times_file.c — reading an initial-time volume (raw little-endian float64 or
 * float32, x fastest) chunk by chunk as float64, for the spec's check of every sample and
 * the problem's initial times (sweep.h). */
#include "kinds/sweep/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMES_CHUNK 65536

int sweep_read_times(const char *path, int f64, uint64_t count,
                     int (*each)(void *user, uint64_t first, const double *v, size_t n),
                     void *user)
{
    const size_t es = f64 ? 8 : 4;
    FILE *f = fopen(path, "rb");
    unsigned char *raw = malloc(TIMES_CHUNK * es);
    double *v = malloc(TIMES_CHUNK * sizeof(double));
    int rc = !f || !raw || !v ? -1 : 0;
    for (uint64_t at = 0; rc == 0 && at < count; at += TIMES_CHUNK) {
        const size_t want = count - at < TIMES_CHUNK ? (size_t)(count - at) : TIMES_CHUNK;
        if (fread(raw, es, want, f) != want) {
            rc = -1;
            break;
        }
        for (size_t q = 0; q < want; q++) {
            if (f64) {
                memcpy(&v[q], raw + 8 * q, 8);
            } else {
                float x;
                memcpy(&x, raw + 4 * q, 4);
                v[q] = x;
            }
        }
        rc = each(user, at, v, want) ? 1 : 0;
    }
    if (f)
        fclose(f);
    free(raw);
    free(v);
    return rc;
}
