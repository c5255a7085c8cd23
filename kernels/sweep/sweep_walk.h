// sweep_walk.h — how a block of the sweep kind's sub-sweep kernel (sweep.cu) walks its
// part: its cells (the part's plane linearised u fastest, with the cells beyond its cuts it
// also computes), the blocks it waits for, the first plane that can change, which cells a
// plane computes, and one cell's update with its stores into the neighbours' copies. Written
// for the host and the device alike, so the kernel's logic can also be driven by a host
// program that plays the blocks in any order their waits allow (how it was checked against
// the CPU engine without a GPU); the kernel adds the waits, the barriers and the flags.
#ifndef FDWK_SWEEP_WALK_H
#define FDWK_SWEEP_WALK_H

#include "sweep/fdwk_sweep.h"
#include "../../engine/kinds/sweep/sweep_geom.h"

#include <climits>
#include <cmath>

#ifdef __CUDACC__
#define SWK_HD __host__ __device__ __forceinline__
#else
#define SWK_HD inline
#endif

namespace swk {

constexpr int SHIFT = 3; // bricks of 8 x 8 x 8 cells (engine/kinds/sweep/sweep_parts.h)

// A load of a value other blocks may change during the launch (bypassing L1 on the GPU).
template <typename V> SWK_HD V ld(const V *p)
{
#ifdef __CUDA_ARCH__
    return __ldcg(p);
#else
    return *p;
#endif
}

// A load of a value nothing changes during the launch (the slowness).
template <typename V> SWK_HD V ld_const(const V *p)
{
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

// The block of a part of nb blocks over n cells that owns cell q (blocks own
// [b n / nb, (b + 1) n / nb)).
SWK_HD int owner(long long q, long long n, int nb) { return (int)(((q + 1) * nb - 1) / n); }

SWK_HD long long brick(const fdwk_sweep_view &w, int u, int v, int p)
{
    return (long long)((u + w.ou) >> SHIFT) * w.bu + (long long)((v + w.ov) >> SHIFT) * w.bv +
           (long long)((p + w.op) >> SHIFT) * w.bp;
}

// A part's plane as its blocks walk it: its own U x V cells and, along the cut, e0 cells
// before and e1 after (its neighbours' cells it computes too), linearised u fastest: Ul
// cells per row, Vl rows; local u = column - uo, v = row - vo.
struct Ext {
    int Ul, Vl, uo, vo;
};

SWK_HD Ext ext_of(const fdwk_sweep_view &w, bool cut_u)
{
    Ext x;
    x.Ul = cut_u ? w.U + w.e0 + w.e1 : w.U;
    x.Vl = cut_u ? w.V : w.V + w.e0 + w.e1;
    x.uo = cut_u ? w.e0 : 0;
    x.vo = cut_u ? 0 : w.e0;
    return x;
}

// The blocks [lo, hi] (of nb over the plane x) that own rows r0..r1 (clipped; lo > hi when
// none).
SWK_HD void row_owners(const Ext &x, int nb, int r0, int r1, int &lo, int &hi)
{
    r0 = r0 > 0 ? r0 : 0;
    r1 = r1 < x.Vl - 1 ? r1 : x.Vl - 1;
    lo = 1;
    hi = 0;
    if (r0 > r1)
        return;
    const long long n = (long long)x.Ul * x.Vl;
    lo = owner((long long)r0 * x.Ul, n, nb);
    hi = owner((long long)(r1 + 1) * x.Ul - 1, n, nb);
}

// One block: its part, its index there, its cells [q0, q1) of each plane (rows v0..v1 of
// the walk), and the blocks it waits for: its own part's [lo[0], hi[0]] before every plane,
// and each neighbour's [lo[s], hi[s]] (s = 1: before, 2: after) whose cells it reads beyond
// its part's own, before the planes that follow a wait across the cut.
struct Block {
    int pi, b;
    long long q0, q1;
    int v0, v1;
    Ext x;
    int lo[3], hi[3];
};

SWK_HD Block block_of(const fdwk_sweep_part *parts, int nparts, int block, bool cut_u)
{
    Block k;
    k.pi = 0;
    while (k.pi + 1 < nparts && block >= parts[k.pi + 1].block0)
        k.pi++;
    const fdwk_sweep_part &pt = parts[k.pi];
    k.b = block - pt.block0;
    k.x = ext_of(pt.w, cut_u);
    const long long n = (long long)k.x.Ul * k.x.Vl;
    k.q0 = k.b * n / pt.nblocks;
    k.q1 = (k.b + 1) * n / pt.nblocks;
    k.v0 = (int)(k.q0 / k.x.Ul);
    k.v1 = k.q1 > k.q0 ? (int)((k.q1 - 1) / k.x.Ul) : k.v0;
    row_owners(k.x, pt.nblocks, k.v0 - 1, k.v1 + 1, k.lo[0], k.hi[0]);
    for (int s = 0; s < 2; s++) {
        k.lo[s + 1] = 1;
        k.hi[s + 1] = 0;
        const int nb = pt.nb_blocks[s];
        if (nb == 0)
            continue;
        const fdwk_sweep_view &nw = pt.nb[s];
        const Ext nx = ext_of(nw, cut_u);
        if (cut_u) { // the same rows, across the cut
            row_owners(nx, nb, k.v0 - 1, k.v1 + 1, k.lo[s + 1], k.hi[s + 1]);
            continue;
        }
        // cut along v: the rows read beyond the part's own, local r = row - e0
        const int r0 = k.v0 - 1 - pt.w.e0, r1 = k.v1 + 1 - pt.w.e0;
        if (s == 0) { // rows -e0 .. -1: its last e0 rows
            const int a = r0 > -pt.w.e0 ? r0 : -pt.w.e0, b = r1 < -1 ? r1 : -1;
            if (a <= b)
                row_owners(nx, nb, nw.V + a + nw.e0, nw.V + b + nw.e0, k.lo[1], k.hi[1]);
        } else { // rows V .. V + e1 - 1: its first e1 rows
            const int V = pt.w.V, last = V + pt.w.e1 - 1;
            const int a = r0 > V ? r0 : V, b = r1 < last ? r1 : last;
            if (a <= b)
                row_owners(nx, nb, a - V + nw.e0, b - V + nw.e0, k.lo[2], k.hi[2]);
        }
    }
    return k;
}

// The first step whose upwind plane can hold a value changed since the skip threshold:
// from the least (sign > 0) or greatest (sign < 0) active brick layer over every part (the
// pre-pass; plane c lies in layer (c + 1) >> SHIFT, the sweep axis being padded by one
// cell). P when there is none.
SWK_HD int first_step(const int *const *acts, int nacts, int P, int sign)
{
    int lmin = INT_MAX, lmax = -1;
    for (int i = 0; i < nacts; i++) {
        const int a0 = ld(acts[i]), a1 = ld(acts[i] + 1);
        lmin = a0 < lmin ? a0 : lmin;
        lmax = a1 > lmax ? a1 : lmax;
    }
    if (lmin > lmax)
        return P;
    // sign > 0: step s reads plane s - 1, in layer s >> 3; sign < 0: plane P - s, in layer
    // (P - s + 1) >> 3
    const long long s = sign > 0 ? (long long)lmin << SHIFT : (long long)P - 6 - ((long long)lmax << SHIFT);
    return s < 1 ? 1 : s > P ? P : (int)s;
}

// One plane of one block: the plane p and its upwind plane, the cells computed along the
// cut [clo, chi) (its own N and W - k beyond each cut, k: the plane's place after the last
// wait across the cut), the reach, the skip threshold and the epoch.
struct Plane {
    int p, pu, clo, chi, N, W, skip_before, epoch;
    bool cut_u;
};

SWK_HD Plane plane_of(const fdwk_sweep_view &w, bool cut_u, int P, int sign, int s, int W,
                      int skip_before, int epoch)
{
    Plane pl;
    pl.p = sign > 0 ? s : P - 1 - s;
    pl.pu = pl.p - sign;
    const int k = (s - 1) % W + 1;
    pl.N = cut_u ? w.U : w.V;
    pl.clo = w.e0 ? k - W : 0;
    pl.chi = w.e1 ? pl.N + W - k : pl.N;
    pl.W = W;
    pl.skip_before = skip_before;
    pl.epoch = epoch;
    pl.cut_u = cut_u;
    return pl;
}

// Whether a wait across the cut comes before step s (the planes after it read what the
// neighbours computed up to s - 1).
SWK_HD bool waits_across(int s, int W) { return (s - 1) % W == 0; }

// A block's figures of the sub-sweep.
struct Figures {
    double mx;
    unsigned long long changed, reached, computed;
};

template <typename R>
SWK_HD R update(const void *g, const R *t, R told, R S, bool field)
{
    if constexpr (sizeof(R) == 8)
        return field ? sw_update_field_d((const sw_geo_d *)g, t, told, S)
                     : sw_update_randers_d((const sw_geo_d *)g, t, told);
    else
        return field ? sw_update_field_f((const sw_geo_f *)g, t, told, S)
                     : sw_update_randers_f((const sw_geo_f *)g, t, told);
}

// The cell at walk position (col, row) of plane pl of part pt (w: a copy of pt.w the
// caller keeps in registers; pt itself is read only for a changed cell near a cut):
// skipped when outside the plane's cells or (exactly) when its upwind patch has not
// changed, else updated; a changed own cell within e0 / e1 of a cut is also stored, with
// its stamp, into that neighbour's copy. With W > 1 the values beyond a cut (and their
// stamps) may arrive at any time between two waits, so a cell whose patch holds them is
// always computed.
template <typename R, bool FIELD>
SWK_HD void cell(const void *geo, const fdwk_sweep_view &w, const fdwk_sweep_part &pt,
                 const Ext &x, const Plane &pl, int col, int row, Figures &f)
{
    const int u = col - x.uo, v = row - x.vo, c = pl.cut_u ? u : v;
    if (c < pl.clo || c >= pl.chi)
        return;
    const bool own = c >= 0 && c < pl.N;
    const bool edge = pl.W > 1 && ((w.e0 && c <= 0) || (w.e1 && c >= pl.N - 1));
    if (pl.skip_before != INT_MIN && !edge) {
        const long long bp = (long long)((pl.pu + w.op) >> SHIFT) * w.bp;
        const long long bu0 = (long long)((u - 1 + w.ou) >> SHIFT) * w.bu;
        const long long bu1 = (long long)((u + 1 + w.ou) >> SHIFT) * w.bu;
        const long long bv0 = (long long)((v - 1 + w.ov) >> SHIFT) * w.bv;
        const long long bv1 = (long long)((v + 1 + w.ov) >> SHIFT) * w.bv;
        int m = ld(w.stamp + bp + bv0 + bu0);
        int m1 = ld(w.stamp + bp + bv0 + bu1);
        m = m1 > m ? m1 : m;
        m1 = ld(w.stamp + bp + bv1 + bu0);
        m = m1 > m ? m1 : m;
        m1 = ld(w.stamp + bp + bv1 + bu1);
        m = m1 > m ? m1 : m;
        if (m < pl.skip_before)
            return;
    }
    R *T = (R *)w.t;
    const long long up = (long long)pl.pu * w.sp;
    R t[9];
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int qq = -1; qq <= 1; qq++)
#ifdef __CUDACC__
#pragma unroll
#endif
        for (int pp = -1; pp <= 1; pp++)
            t[3 * (qq + 1) + (pp + 1)] =
                ld(T + (long long)(u + pp) * w.su + (long long)(v + qq) * w.sv + up);
    const long long at = (long long)u * w.su + (long long)v * w.sv + (long long)pl.p * w.sp;
    const R told = ld(T + at);
    const R tnew = update<R>(geo, t, told, FIELD ? ld_const((const R *)w.s + at) : (R)0, FIELD);
    f.computed += own;
    if (!(tnew < told))
        return;
    T[at] = tnew;
    w.stamp[brick(w, u, v, pl.p)] = pl.epoch;
    if (!own) // a neighbour's cell: its owner counts it and stores it here too
        return;
    f.changed++;
    if (told == (R)INFINITY)
        f.reached++;
    else if ((double)(told - tnew) > f.mx)
        f.mx = (double)(told - tnew);
    for (int side = 0; side < 2; side++) {
        if (pt.nb_blocks[side] == 0 || (side ? c < pl.N - w.e1 : c >= w.e0))
            continue;
        const fdwk_sweep_view &nw = pt.nb[side];
        const int hc = side ? c - pl.N : c + (pl.cut_u ? nw.U : nw.V);
        const int hu = pl.cut_u ? hc : u, hv = pl.cut_u ? v : hc;
        ((R *)nw.t)[(long long)hu * nw.su + (long long)hv * nw.sv + (long long)pl.p * nw.sp] = tnew;
        nw.stamp[brick(nw, hu, hv, pl.p)] = pl.epoch;
    }
}

} // namespace swk

#endif
