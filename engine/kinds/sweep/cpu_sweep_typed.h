/* cpu_sweep_typed.h — the CPU engine's sub-sweep rows and shuffle copies for one storage
 * precision; cpu_sweep_ops.c includes it twice (SW_REAL double / SW_SUF _d, float / _f).
 * Not a header of its own: it has no include guard on purpose. */
#if !defined(SW_REAL) || !defined(SW_SUF)
#error "cpu_sweep_typed.h is included by cpu_sweep_ops.c with SW_REAL and SW_SUF defined"
#endif
#define SWT_CAT2(a, b) a##b
#define SWT_CAT(a, b) SWT_CAT2(a, b)
#define SWT(n) SWT_CAT(n, SW_SUF)

/* Update row v of plane p (upwind plane p - sign) of part d. */
SWEEP_CPU_CLONES static void SWT(row)(const sweep_cpu *c, const subsweep_ctx *x, int d, int v, int p,
                     row_stats *rs)
{
    const sweep_view *w = &x->w[d];
    const sweep_cpu_part *part = &c->part[d];
    SW_REAL *T = (SW_REAL *)part->t[x->layout] + w->base;
    const SW_REAL *S = part->s[x->layout] ? (const SW_REAL *)part->s[x->layout] + w->base : NULL;
    int32_t *stamp = part->stamp[x->layout];
    const SWT(sw_geo) *g = x->geo;
    const int pu = p - w->sign;
    const int64_t rowp = (int64_t)v * w->sv + (int64_t)p * w->sp;
    const int64_t up = (int64_t)pu * w->sp;
    const int64_t bpu = (int64_t)((pu + 1) >> SWEEP_BRICK_SHIFT) * w->bp;
    const int64_t bv0 = (int64_t)(v >> SWEEP_BRICK_SHIFT) * w->bv;
    const int64_t bv1 = (int64_t)((v + 2) >> SWEEP_BRICK_SHIFT) * w->bv;
    const int64_t bown = (int64_t)((v + 1) >> SWEEP_BRICK_SHIFT) * w->bv +
                         (int64_t)((p + 1) >> SWEEP_BRICK_SHIFT) * w->bp;
    for (int u = 0; u < w->U; u++) {
        if (x->skip_before != INT32_MIN) {
            const int64_t bu0 = (int64_t)(u >> SWEEP_BRICK_SHIFT) * w->bu;
            const int64_t bu1 = (int64_t)((u + 2) >> SWEEP_BRICK_SHIFT) * w->bu;
            int32_t m = load_stamp(stamp, bpu + bv0 + bu0);
            m = imax(m, load_stamp(stamp, bpu + bv0 + bu1));
            m = imax(m, load_stamp(stamp, bpu + bv1 + bu0));
            m = imax(m, load_stamp(stamp, bpu + bv1 + bu1));
            if (m < x->skip_before)
                continue;
        }
        SW_REAL t[9];
        for (int q = -1; q <= 1; q++)
            for (int pp = -1; pp <= 1; pp++)
                t[3 * (q + 1) + (pp + 1)] =
                    T[(int64_t)(u + pp) * w->su + (int64_t)(v + q) * w->sv + up];
        const int64_t at = (int64_t)u * w->su + rowp;
        const SW_REAL told = T[at];
        const SW_REAL tnew = S ? SWT(sw_update_field)(g, t, told, S[at])
                               : SWT(sw_update_randers)(g, t, told);
        rs->computed++;
        if (!(tnew < told))
            continue;
        T[at] = tnew;
        store_stamp(stamp, bown + (int64_t)((u + 1) >> SWEEP_BRICK_SHIFT) * w->bu, x->epoch);
        rs->changed++;
        if (told == (SW_REAL)INFINITY)
            rs->reached++;
        else if ((double)(told - tnew) > rs->max_change)
            rs->max_change = (double)(told - tnew);
        /* the neighbours' copies of a cell next to a cut */
        const int cu = w->cut_u ? u : v, cn = w->cut_u ? w->U : w->V;
        for (int side = 0; side < 2; side++) {
            const int nb = side ? d + 1 : d - 1;
            if ((side ? cu != cn - 1 : cu != 0) || nb < 0 || nb >= c->parts.nparts)
                continue;
            const sweep_view *wn = &x->w[nb];
            const sweep_cpu_part *pn = &c->part[nb];
            const int hc = side ? -1 : (w->cut_u ? wn->U : wn->V); /* its halo along the cut */
            const int hu = w->cut_u ? hc : u, hv = w->cut_u ? v : hc;
            SW_REAL *Tn = (SW_REAL *)pn->t[x->layout] + wn->base;
            Tn[(int64_t)hu * wn->su + (int64_t)hv * wn->sv + (int64_t)p * wn->sp] = tnew;
            store_stamp(pn->stamp[x->layout],
                        (int64_t)((hu + 1) >> SWEEP_BRICK_SHIFT) * wn->bu +
                            (int64_t)((hv + 1) >> SWEEP_BRICK_SHIFT) * wn->bv +
                            (int64_t)((p + 1) >> SWEEP_BRICK_SHIFT) * wn->bp,
                        x->epoch);
        }
    }
}

/* Copy the cells [lo, hi) of box sb (array st, stamps ss) into box db (dt, ds) where the
 * source brick changed after copy_after; a changed cell marks its brick with epoch. */
static void SWT(copy_box)(const sweep_box *sb, const SW_REAL *st, const int32_t *ss,
                          const sweep_box *db, SW_REAL *dt, int32_t *ds, const int lo[3],
                          const int hi[3], int copy_after, int epoch)
{
#pragma omp parallel for schedule(static) collapse(2)
    for (int z = lo[2]; z < hi[2]; z++)
        for (int y = lo[1]; y < hi[1]; y++)
            for (int x = lo[0]; x < hi[0]; x++) {
                if (ss[sweep_box_brick(sb, x, y, z)] <= copy_after)
                    continue;
                const SW_REAL v = st[sweep_box_index(sb, x, y, z)];
                SW_REAL *o = &dt[sweep_box_index(db, x, y, z)];
                if (*o != v) {
                    *o = v;
                    store_stamp(ds, sweep_box_brick(db, x, y, z), epoch);
                }
            }
}

#undef SWT
#undef SWT_CAT
#undef SWT_CAT2
