/* cpu_sweep.h — the sweep kind's CPU engine inside (cpu_sweep.c: the backend table,
 * memory, the sweep's order of operations; cpu_sweep_ops.c: the sub-sweeps and shuffles
 * over the parts, OpenMP inside). Each part is one virtual device holding its box of
 * layout A and of layout B (sweep_parts.h); a neighbour's halo and brick stamps are
 * written directly, as a GPU writes its peer's. */
#ifndef FDW_CPU_SWEEP_H
#define FDW_CPU_SWEEP_H

#include "kinds/sweep/sweep.h"
#include "kinds/sweep/sweep_parts.h"
#include "run/backend.h"

typedef struct sweep_cpu_part {
    void *t[2];                /* T in layout A and B (float64 or float32) */
    void *s[2];                /* field runs: slowness 1/F per cell of A and B, else NULL */
    int32_t *stamp[2];         /* epoch of each brick's last change, -1: never finite */
    uint64_t bytes;
} sweep_cpu_part;

typedef struct sweep_cpu {
    sweep_engine head;         /* first: the kind's hooks read it through fdw_run_state.ctx */
    fdw_problem prob;          /* shallow copy */
    const fdw_sweep_data *d;
    sweep_parts parts;
    sweep_cpu_part part[FDW_MAX_DEVICES];
    int f64;
    int no_skip;               /* fdw_tuning.sweep_full: compute every point */
    long sweeps;               /* completed sweeps */
    sweep_stats *log;          /* one per sweep, prob.nt of them */
} sweep_cpu;

/* One sub-sweep of direction dir (0..5) on every part, at epoch; points whose upwind patch
 * lies in bricks unchanged since skip_before are skipped (skip_before = INT32_MIN: none).
 * Adds to st. */
void sweep_cpu_subsweep(sweep_cpu *c, int dir, int epoch, int skip_before, sweep_stats *st);
/* The shuffle into layout to (SWEEP_LAYOUT_A or _B): every held cell of every part of it
 * from the parts of the other layout, where the source brick changed after copy_after;
 * changed cells get epoch in the destination's bricks. */
void sweep_cpu_shuffle(sweep_cpu *c, int to, int epoch, int copy_after);
/* Element size of the run's precision. */
static inline size_t sweep_cpu_elem(const sweep_cpu *c) { return c->f64 ? 8 : 4; }

#endif
