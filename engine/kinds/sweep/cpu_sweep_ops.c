/* cpu_sweep_ops.c — the CPU engine's two operations (cpu_sweep.h): a sub-sweep, plane after
 * plane, every part's rows of a plane in parallel (OpenMP), each point skipped when its
 * upwind patch is unchanged since its last update in this direction (exact: the update
 * would give the same value, docs/sweep.md); and the shuffle between the layouts. A brick
 * stamp is written by every thread that changes a value in the brick, all with the same
 * epoch, so the stores are relaxed atomics; a skip decision may see a stamp set in the
 * same plane step or not, which changes only how many points are computed, never T. */
#include "kinds/sweep/cpu_sweep.h"

#include <limits.h>
#include <omp.h>
#include <stdint.h>

typedef struct subsweep_ctx {
    int layout, epoch, skip_before;
    const void *geo;           /* sw_geo_d or sw_geo_f */
    sweep_view w[FDW_MAX_DEVICES];
} subsweep_ctx;

typedef struct row_stats {
    double max_change;
    uint64_t changed, reached, computed;
} row_stats;

static inline int32_t load_stamp(const int32_t *s, int64_t b)
{
    return __atomic_load_n(&s[b], __ATOMIC_RELAXED);
}

static inline void store_stamp(int32_t *s, int64_t b, int32_t epoch)
{
    __atomic_store_n(&s[b], epoch, __ATOMIC_RELAXED);
}

static inline int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

/* The rows are compiled for x86-64-v3 (FMA in hardware: fma() becomes one instruction) and
 * baseline x86-64 (fma() from libm), picked at load time; both round every fma exactly, so
 * they give the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SWEEP_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SWEEP_CPU_CLONES
#endif

#define SW_REAL double
#define SW_SUF _d
#include "kinds/sweep/cpu_sweep_typed.h"
#undef SW_REAL
#undef SW_SUF
#define SW_REAL float
#define SW_SUF _f
#include "kinds/sweep/cpu_sweep_typed.h"
#undef SW_REAL
#undef SW_SUF

void sweep_cpu_subsweep(sweep_cpu *c, int dir, int epoch, int skip_before, sweep_stats *st)
{
    subsweep_ctx x;
    const int axis = dir / 2, sign = dir % 2 ? -1 : 1;
    x.layout = axis == 1 ? SWEEP_LAYOUT_B : SWEEP_LAYOUT_A;
    x.epoch = epoch;
    x.skip_before = skip_before;
    x.geo = c->f64 ? (const void *)&c->d->geo[dir] : (const void *)&c->d->geo_f[dir];
    const int np = c->parts.nparts;
    long rows = 0, first[FDW_MAX_DEVICES + 1];
    for (int d = 0; d < np; d++) {
        const sweep_box *b = x.layout == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
        sweep_view_of(b, axis, sign, x.layout == SWEEP_LAYOUT_A ? 1 : 2, &x.w[d]);
        first[d] = rows;
        rows += x.w[d].V;
    }
    first[np] = rows;
    const int P = x.w[0].P;
    double mx = st->max_change;
    uint64_t changed = 0, reached = 0, computed = 0;
    for (int s = 1; s < P; s++) {
        const int p = sign > 0 ? s : P - 1 - s;
#pragma omp parallel for schedule(static) reduction(max : mx) reduction(+ : changed, reached, computed)
        for (long r = 0; r < rows; r++) {
            int d = 0;
            while (r >= first[d + 1])
                d++;
            row_stats rs = {mx, 0, 0, 0};
            if (c->f64)
                row_d(c, &x, d, (int)(r - first[d]), p, &rs);
            else
                row_f(c, &x, d, (int)(r - first[d]), p, &rs);
            if (rs.max_change > mx)
                mx = rs.max_change;
            changed += rs.changed;
            reached += rs.reached;
            computed += rs.computed;
        }
    }
    st->max_change = mx;
    st->changed += changed;
    st->reached += reached;
    st->computed += computed;
}

void sweep_cpu_shuffle(sweep_cpu *c, int to, int epoch, int copy_after)
{
    const int np = c->parts.nparts, from = 1 - to;
    for (int e = 0; e < np; e++) {
        const sweep_box *db = to == SWEEP_LAYOUT_A ? &c->parts.a[e] : &c->parts.b[e];
        int hlo[3], hhi[3];
        sweep_box_held(&c->parts, db, hlo, hhi);
        for (int d = 0; d < np; d++) {
            const sweep_box *sb = from == SWEEP_LAYOUT_A ? &c->parts.a[d] : &c->parts.b[d];
            int lo[3], hi[3], empty = 0;
            for (int a = 0; a < 3; a++) { /* held by e, owned by d */
                lo[a] = hlo[a] > sb->lo[a] ? hlo[a] : sb->lo[a];
                hi[a] = hhi[a] < sb->hi[a] ? hhi[a] : sb->hi[a];
                empty |= lo[a] >= hi[a];
            }
            if (empty)
                continue;
            if (c->f64)
                copy_box_d(sb, c->part[d].t[from], c->part[d].stamp[from], db, c->part[e].t[to],
                           c->part[e].stamp[to], lo, hi, copy_after, epoch);
            else
                copy_box_f(sb, c->part[d].t[from], c->part[d].stamp[from], db, c->part[e].t[to],
                           c->part[e].stamp[to], lo, hi, copy_after, epoch);
        }
    }
}
