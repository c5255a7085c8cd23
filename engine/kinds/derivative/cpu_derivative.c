/* cpu_derivative.c — the derivative kind on the CPU: 8th-order periodic first derivative
 * along one axis, out of place:
 *     out(p) = sum_{m=1..4} dc[m] * (f(p + m e) - f(p - m e))
 * The periodic neighbours come from the padding (x, y: filled by cpu_fill_periodic_pad)
 * or the ghost planes (z: the ring exchange), so the kernel never wraps an index. */
#include "kinds/derivative/cpu_derivative.h"
#include "kinds/derivative/derivative.h"

typedef struct derivative_args {
    cpu_planes p;
    ptrdiff_t st;              /* stride along the derivative's axis */
    float dc[5];
} derivative_args;

FDW_CPU_CLONES static void derivative_rows(const void *arg, int k, int j0, int j1)
{
    const derivative_args *a = arg;
    const float d1 = a->dc[1], d2 = a->dc[2], d3 = a->dc[3], d4 = a->dc[4];
    const ptrdiff_t st = a->st;
    const int nx = a->p.nx;
    for (int j = j0; j < j1; j++) {
        ptrdiff_t o = (ptrdiff_t)k * a->p.sz + (ptrdiff_t)j * a->p.sy;
        float *restrict out = a->p.out + o;
        const float *restrict f = a->p.in + o;
#pragma GCC ivdep
        for (int i = 0; i < nx; i++) {
            float acc = d1 * (f[i + st] - f[i - st]);
            acc += d2 * (f[i + 2 * st] - f[i - 2 * st]);
            acc += d3 * (f[i + 3 * st] - f[i - 3 * st]);
            acc += d4 * (f[i + 4 * st] - f[i - 4 * st]);
            out[i] = acc;
        }
    }
}

static void derivative_planes(const cpu_ctx *c, const cpu_slab *s, int ka, int kb)
{
    derivative_args a;
    a.p = cpu_planes_of(c, s);
    const fdw_derivative_data *d = c->prob.kdata;
    a.st = d->axis == FDW_AXIS_X ? 1 : d->axis == FDW_AXIS_Y ? (ptrdiff_t)c->px : c->plane;
    for (int m = 0; m < 5; m++)
        a.dc[m] = d->dc[m];
    cpu_walk_planes(c, ka, kb, derivative_rows, &a);
}

/* Along x or y the periodic neighbours come from the row padding, filled here each step:
 * no ghost exchange. Along z they come from the ring exchange of the ghost planes. */
static int derivative_begin_step(const cpu_ctx *c, long it)
{
    (void)it;
    const fdw_derivative_data *d = c->prob.kdata;
    if (d->axis == FDW_AXIS_Z)
        return 1;
    cpu_fill_periodic_pad(c, c->cur, d->axis);
    return 0;
}

const fdw_cpu_ops fdw_derivative_cpu = {
    .begin_step = derivative_begin_step,
    .planes = derivative_planes,
};
