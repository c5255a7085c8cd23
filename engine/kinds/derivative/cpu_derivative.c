/* cpu_derivative.c — the derivative kind on the CPU: 8th-order periodic first derivative
 * along one axis, out of place:
 *     out(p) = sum_{m=1..4} dc[m] * (f(p + m e) - f(p - m e))
 * The periodic neighbours come from the padding (x, y: filled by cpu_fill_periodic_pad)
 * or the ghost planes (z: the ring exchange), so the kernel never wraps an index. */
#include "kinds/derivative/cpu_derivative.h"
#include "kinds/derivative/derivative.h"

typedef struct derivative_args {
    float *out;                /* result at (0,0) of local plane 0 */
    const float *in;
    ptrdiff_t sy, sz;
    ptrdiff_t st;              /* stride along the derivative's axis */
    int nx;
    float dc[5];
} derivative_args;

FDW_CPU_CLONES static void derivative_rows(const derivative_args *a, int k, int j0, int j1)
{
    const float d1 = a->dc[1], d2 = a->dc[2], d3 = a->dc[3], d4 = a->dc[4];
    const ptrdiff_t st = a->st;
    const int nx = a->nx;
    for (int j = j0; j < j1; j++) {
        ptrdiff_t o = (ptrdiff_t)k * a->sz + (ptrdiff_t)j * a->sy;
        float *restrict out = a->out + o;
        const float *restrict f = a->in + o;
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
    if (kb <= ka)
        return;
    derivative_args a;
    a.out = cpu_base(c, s, 1 - c->cur);
    a.in = cpu_base(c, s, c->cur);
    a.sy = c->px;
    a.sz = c->plane;
    const fdw_derivative_data *d = c->prob.kdata;
    a.st = d->axis == FDW_AXIS_X ? 1 : d->axis == FDW_AXIS_Y ? (ptrdiff_t)c->px : c->plane;
    a.nx = c->nx;
    for (int m = 0; m < 5; m++)
        a.dc[m] = d->dc[m];
    const int ny = c->ny, yb = c->yblock, nb = (ny + yb - 1) / yb;
    const int chunk = cpu_chunk(nb, kb - ka);
#pragma omp parallel for collapse(2) schedule(dynamic, chunk)
    for (int b = 0; b < nb; b++)
        for (int k = ka; k < kb; k++) {
            int j0 = b * yb, j1 = j0 + yb < ny ? j0 + yb : ny;
            derivative_rows(&a, k, j0, j1);
        }
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
