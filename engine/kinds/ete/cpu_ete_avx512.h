/* cpu_ete_avx512.h — the ETE operator L (ete.h) of 16 consecutive points at a time with
 * AVX-512F, for cpu_ete.c's rows: every lane does the scalar kernel's operations in its
 * order (no fused operations), so the result is the scalar kernel's, bit for bit. */
#ifndef FDW_CPU_ETE_AVX512_H
#define FDW_CPU_ETE_AVX512_H

#include <stddef.h>
#include <stdint.h>

/* L of points 0 .. n - 1 of a row (u and ix at its first point; sy, sz the row and plane
 * strides; n a multiple of 16) into l. */
typedef void (*cpu_ete_row_fn)(const float *u, const uint16_t *ix, const float *table,
                               ptrdiff_t sy, ptrdiff_t sz, float *l, int n);

/* The AVX-512 row function, or NULL where the processor (or the compiler) has none. */
cpu_ete_row_fn cpu_ete_avx512_row(void);

#endif
