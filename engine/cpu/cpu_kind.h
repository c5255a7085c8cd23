/* cpu_kind.h — what a job kind gives the CPU backend (fdw_kind_ops.run.cpu): its per-slab
 * state and its update of a range of planes. The backend owns everything shared: slab
 * buffers, the multi-device step order (edge planes, ghost exchange, interior), and for
 * wave kinds the free-surface mirror, the sponge arrays, sources and receivers. */
#ifndef FDW_CPU_KIND_H
#define FDW_CPU_KIND_H

#include "cpu/cpu_backend_impl.h"

typedef struct fdw_cpu_ops {
    /* Bytes of the kind's own state in the slab of global planes [z0, z0 + nz), besides
     * the two field buffers (planes of plane_bytes each); may be NULL (none). */
    uint64_t (*slab_bytes)(const fdw_problem *p, int z0, int nz, uint64_t plane_bytes);
    /* Allocate and fill slab s's kind state (s->kstate) once its buffers exist; 0, or -1
     * when out of memory. NULL: no state (a field kind's initial field is uploaded by the
     * backend). */
    int (*slab_create)(const cpu_ctx *c, cpu_slab *s);
    void (*slab_destroy)(cpu_slab *s);
    /* Before the updates of step it (may be NULL). Returns 1 when this step exchanges
     * ghost planes along z, 0 when it needs none (a derivative along x or y). */
    int (*begin_step)(const cpu_ctx *c, long it);
    /* Update owned local planes [ka, kb) of slab s from buf[cur] into buf[1 - cur]
     * (OpenMP inside). */
    void (*planes)(const cpu_ctx *c, const cpu_slab *s, int ka, int kb);
    /* After planes [ka, kb) of slab s were updated, before the free surface and sources
     * (may be NULL): the acoustic CPML correction. */
    void (*after_planes)(const cpu_ctx *c, const cpu_slab *s, int ka, int kb);
    /* The arrays of slab s's kind state that change from step to step, for checkpoints
     * (at most FDW_MAX_STATE_PARTS into parts; returns how many). NULL: none change (what
     * slab_create derives from the problem is made again at resume). */
    int (*state)(const cpu_slab *s, fdw_state_part *parts);
} fdw_cpu_ops;

#endif
