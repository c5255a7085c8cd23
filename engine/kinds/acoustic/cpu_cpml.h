/* cpu_cpml.h — the acoustic kind's CPML on the CPU: per slab, the auxiliary fields psi and
 * zeta of each axis over that axis's layer points only, and the two-pass correction of
 * acoustic.h applied to a range of freshly updated planes (before the sources are added).
 * vdt2 is the slab's (v dt)^2 buffer (its first owned plane at index 0). */
#ifndef FDW_CPU_CPML_H
#define FDW_CPU_CPML_H

#include "cpu/cpu_backend_impl.h"

#include <stdint.h>

/* CPML state of one slab; NULL when the problem has no CPML. */
typedef struct cpu_cpml cpu_cpml;

/* Bytes of CPML state the slab of global planes [z0, z0 + nz) holds (0 without CPML). */
uint64_t cpu_cpml_bytes(const fdw_problem *p, int z0, int nz);

/* Zeroed psi/zeta storage for slab s of context c (whose nx, ny, prob are set); NULL
 * when out of memory. */
cpu_cpml *cpu_cpml_create(const cpu_ctx *c, const cpu_slab *s);
void cpu_cpml_destroy(cpu_cpml *m);
/* psi and zeta of each axis with a layer (up to 6 parts, backend.h), for checkpoints;
 * returns how many (0 for NULL). */
int cpu_cpml_state(const cpu_cpml *m, fdw_state_part *parts);

/* The CPML correction of local owned planes [ka, kb) of slab s, whose plain update into
 * buf[1 - cur] is complete: for x, y, then z, psi from u = buf[cur], then zeta and
 * u' += vdt2 (D1 psi + zeta) at every layer point (OpenMP inside). A z layer's planes in
 * the slab must lie all inside [ka, kb) or all outside it (the plan rule of backend.h
 * guarantees this for the ranges cpu_backend.c uses). */
void cpu_cpml_planes(const cpu_ctx *c, const cpu_slab *s, const cpu_cpml *m,
                     const float *vdt2, int ka, int kb);

#endif
