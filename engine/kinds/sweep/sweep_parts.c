/* sweep_parts.c — the sweep kind's two partitionings and their padded boxes (sweep_parts.h):
 * layout A cuts y like the slab plan cuts z (the first ny % P parts one plane more) and
 * stores y fastest, layout B is the plan's z slabs stored x fastest; the epochs that drive
 * exact skipping; a sub-sweep's view of a box. */
#include "kinds/sweep/sweep_parts.h"
#include "kinds/sweep/sweep.h"

/* Strides of a box stored in axis order ord (fastest first) with padding pad cells deep
 * along axis cut (one cell along the others), and its brick grid. */
static void box_layout(sweep_box *b, const int ord[3], int cut, int pad)
{
    int64_t s = 1, bs = 1;
    for (int a = 0; a < 3; a++)
        b->pad[a] = a == cut ? pad : 1;
    for (int q = 0; q < 3; q++) {
        const int a = ord[q];
        const int64_t ext = (int64_t)(b->hi[a] - b->lo[a]) + 2 * b->pad[a];
        b->stride[a] = s;
        b->bstride[a] = bs;
        s *= ext;
        bs *= (ext + (1 << SWEEP_BRICK_SHIFT) - 1) >> SWEEP_BRICK_SHIFT;
    }
    b->count = s;
    b->nbricks = bs;
}

int sweep_parts_init(sweep_parts *sp, const int n[3], const fdw_plan *plan, int reach)
{
    const int P = plan->ndev;
    sp->nparts = P;
    for (int a = 0; a < 3; a++)
        sp->n[a] = n[a];
    if (P < 1 || P > FDW_MAX_DEVICES || n[1] < P || n[2] < P)
        return -1;
    /* the reach: 1 with one part, else at most the narrowest part along either cut */
    reach = P == 1 || reach < 1 ? 1 : reach;
    for (int d = 0; d < P && reach > 1; d++) {
        const int ny = n[1] / P + (d < n[1] % P);
        reach = ny < reach ? ny : reach;
        reach = plan->nz[d] < reach ? plan->nz[d] : reach;
    }
    sp->reach = reach;
    static const int ORD_A[3] = {1, 0, 2}, ORD_B[3] = {0, 1, 2};
    int y = 0;
    for (int d = 0; d < P; d++) {
        const int ny = n[1] / P + (d < n[1] % P);
        sweep_box *A = &sp->a[d], *B = &sp->b[d];
        A->lo[0] = B->lo[0] = 0;
        A->hi[0] = B->hi[0] = n[0];
        A->lo[1] = y;
        A->hi[1] = y + ny;
        A->lo[2] = 0;
        A->hi[2] = n[2];
        B->lo[1] = 0;
        B->hi[1] = n[1];
        B->lo[2] = plan->z0[d];
        B->hi[2] = plan->z0[d] + plan->nz[d];
        if (ny < 1 || plan->nz[d] < 1)
            return -1;
        box_layout(A, ORD_A, 1, reach);
        box_layout(B, ORD_B, 2, reach);
        y += ny;
    }
    return 0;
}

void sweep_box_held(const sweep_parts *sp, const sweep_box *b, int lo[3], int hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = b->lo[a] > b->pad[a] ? b->lo[a] - b->pad[a] : 0;
        hi[a] = b->hi[a] + b->pad[a] < sp->n[a] ? b->hi[a] + b->pad[a] : sp->n[a];
    }
}

int sweep_op_direction(int op)
{
    switch (op) {
    case SWEEP_OP_XP: return 0;
    case SWEEP_OP_XM: return 1;
    case SWEEP_OP_YP: return 2;
    case SWEEP_OP_YM: return 3;
    case SWEEP_OP_ZP: return 4;
    case SWEEP_OP_ZM: return 5;
    default: return -1;
    }
}

int sweep_skip_before(long s, int op)
{
    return s > 1 ? sweep_epoch(s - 1, op) : 0;
}

int sweep_copy_after(long s, int op)
{
    if (op == SWEEP_OP_TO_B)
        return sweep_epoch(s, SWEEP_OP_TO_A);
    return s > 1 ? sweep_epoch(s - 1, SWEEP_OP_TO_B) : 0;
}

void sweep_view_of(const sweep_box *b, int axis, int sign, int cut_axis, sweep_view *w)
{
    sweep_plane_axes(axis, &w->u, &w->v);
    w->axis = axis;
    w->sign = sign;
    w->U = b->hi[w->u] - b->lo[w->u];
    w->V = b->hi[w->v] - b->lo[w->v];
    w->P = b->hi[axis] - b->lo[axis];
    w->su = b->stride[w->u];
    w->sv = b->stride[w->v];
    w->sp = b->stride[axis];
    w->bu = b->bstride[w->u];
    w->bv = b->bstride[w->v];
    w->bp = b->bstride[axis];
    w->ou = b->pad[w->u];
    w->ov = b->pad[w->v];
    w->op = b->pad[axis];
    w->base = b->pad[0] * b->stride[0] + b->pad[1] * b->stride[1] + b->pad[2] * b->stride[2];
    w->cut_u = cut_axis == w->u;
}
