/* sweep_point.h — the sweep kind's local update of one grid point, written once for the
 * CPU reference (C11, engine/kinds/sweep/cpu_sweep_planes.c) and the CUDA kernels
 * (kernels/sweep/sweep.cu), so the two evaluate the same operations in the same order:
 * with correctly rounded sqrt and fma on both sides (and -fmad=false in the kernels, no
 * contraction in ISO C), the GPU is bit-identical to the CPU. docs/sweep.md derives it.
 *
 * The point x is updated from the 3 x 3 patch of the upwind plane: its 9 vertices
 * (index 3 (q + 1) + (p + 1) for the offsets p along u and q along v of the plane), the 16
 * segments between them (12 grid edges and the 4 cell diagonals through the centre) and
 * the 8 triangles of the fan around the centre, T linear on each. A candidate is the
 * smallest T(y) + N(x - y) over one simplex, in closed form (stationary point of a convex
 * function, kept only when it lies inside the simplex); the new value is the smallest of
 * the old value and the candidates. Every test is written so that a NaN (an unreached,
 * +inf vertex gives inf - inf) fails it, so simplices with an unreached vertex give no
 * candidate. A simplex is skipped when min(T on its vertices) + (the least distance from x
 * to it) cannot beat the best value so far: the same decision on every backend.
 *
 * Two forms: Randers (constant F, psi, a: N(d) = (sqrt(a |d|^2 + (b.d)^2) - b.d) / a with
 * b = psi a, a = F^2 - |b|^2, every constant precomputed per sweep direction) and the
 * isotropic field form (psi = 0, F a field: N(d) = |d| S(x) with S = 1/F at the updated
 * point). Included twice by sweep_geom.h: SW_REAL double / SW_SUF _d / SW_FMA fma /
 * SW_SQRT sqrt, and float / _f / fmaf / sqrtf (never the double functions on floats). */
#ifndef SWEEP_POINT_COMMON_H
#define SWEEP_POINT_COMMON_H

#ifdef __CUDACC__
#define SW_HD __host__ __device__ __forceinline__
#else
#define SW_HD static inline
#endif

/* The fan: triangles (k, v1, v2) with vertex 4 (the centre) as v0, and segments
 * (k, v0, v1); vertex (p, q) is 3 (q + 1) + (p + 1). */
#define SW_TRIANGLES(X)                                                                    \
    X(0, 5, 8) X(1, 7, 8) X(2, 3, 6) X(3, 7, 6) X(4, 3, 0) X(5, 1, 0) X(6, 5, 2) X(7, 1, 2)
#define SW_SEGMENTS(X)                                                                     \
    X(0, 4, 5) X(1, 4, 3) X(2, 4, 7) X(3, 4, 1) X(4, 4, 8) X(5, 4, 6) X(6, 4, 0)           \
    X(7, 4, 2) X(8, 5, 8) X(9, 7, 8) X(10, 3, 6) X(11, 7, 6) X(12, 3, 0) X(13, 1, 0)       \
    X(14, 5, 2) X(15, 1, 2)

/* Constants per segment and per triangle (the members of sw_geo's rows):
 *   segment  c0 = -b.d0/a, be = b.e/a, ia = a/sqrt(A), s = s*, sm1 = s* - 1,
 *            k1 = sqrt(D/A), m2 = sqrt(D)/a, nmin (least N(x - y) on it)
 *   triangle c0, be1, be2, W = a^2 A^-1 (11, 12, 22), z1, z2, zs = z1 + z2 - 1,
 *            m = sqrt(D)/a, nmin
 * with d0 = x - y0, e = y1 - y0, A = e^T M e (E^T M E), s* (z*) the foot of x, D the
 * squared M-distance of x to the simplex's line (plane), M = a I + b b^T. The field form
 * uses the constants of the unit Euclidean metric (F = 1, b = 0: c0 = be = 0, ia = 1/|e|,
 * m2 and m the Euclidean distance, W = (E^T E)^-1) and scales them by S at the point. */
enum { SW_S_C0, SW_S_BE, SW_S_IA, SW_S_S, SW_S_SM1, SW_S_K1, SW_S_M2, SW_S_NMIN, SW_SEG_N };
enum { SW_T_C0, SW_T_BE1, SW_T_BE2, SW_T_W11, SW_T_W12, SW_T_W22, SW_T_Z1, SW_T_Z2, SW_T_ZS,
       SW_T_M, SW_T_NMIN, SW_TRI_N };

#endif

#if defined(SW_REAL) && defined(SW_SUF) && defined(SW_FMA) && defined(SW_SQRT)
#define SW_CAT2(a, b) a##b
#define SW_CAT(a, b) SW_CAT2(a, b)
#define SW_NAME(n) SW_CAT(n, SW_SUF)

/* One sweep direction's constants: vertex distances (Randers N, or Euclidean |d|), then
 * the segments' and triangles' rows. */
typedef struct SW_NAME(sw_geo) {
    SW_REAL vn[9];
    SW_REAL seg[16][SW_SEG_N];
    SW_REAL tri[8][SW_TRI_N];
} SW_NAME(sw_geo);

SW_HD SW_REAL SW_NAME(sw_min)(SW_REAL a, SW_REAL b) { return b < a ? b : a; }

/* The new value of a point whose old value is told, from the patch t[9]. one and ns scale
 * the metric: 1 and 1 for the Randers form, S^2 and S for the field form (whose constants
 * have c0 = be = 0, so the additions of those leave the values as they are). */
SW_HD SW_REAL SW_NAME(sw_update)(const SW_NAME(sw_geo) *g, const SW_REAL *t, SW_REAL told,
                                 SW_REAL one, SW_REAL ns)
{
    SW_REAL best = told;
#define SW_V(v) { const SW_REAL c_ = t[v] + g->vn[v] * ns; if (c_ < best) best = c_; }
    SW_V(4) SW_V(5) SW_V(3) SW_V(7) SW_V(1) SW_V(8) SW_V(6) SW_V(0) SW_V(2)
#undef SW_V
#define SW_TRI(k, i1, i2)                                                                  \
    {                                                                                      \
        const SW_REAL *c_ = g->tri[k];                                                     \
        const SW_REAL t0 = t[4], t1 = t[i1], t2 = t[i2];                                   \
        if (SW_NAME(sw_min)(t0, SW_NAME(sw_min)(t1, t2)) + c_[SW_T_NMIN] * ns < best) {    \
            const SW_REAL a1 = (t1 - t0) + c_[SW_T_BE1], a2 = (t2 - t0) + c_[SW_T_BE2];    \
            const SW_REAL w1 = SW_FMA(c_[SW_T_W11], a1, c_[SW_T_W12] * a2);                \
            const SW_REAL w2 = SW_FMA(c_[SW_T_W12], a1, c_[SW_T_W22] * a2);                \
            const SW_REAL q = one - SW_FMA(a1, w1, a2 * w2);                               \
            if (q > (SW_REAL)0) {                                                          \
                const SW_REAL r = SW_SQRT(q), m = c_[SW_T_M];                              \
                if (c_[SW_T_Z1] * r >= w1 * m && c_[SW_T_Z2] * r >= w2 * m &&              \
                    c_[SW_T_ZS] * r <= (w1 + w2) * m) {                                    \
                    const SW_REAL v_ = ((t0 + c_[SW_T_C0]) +                               \
                                        SW_FMA(a1, c_[SW_T_Z1], a2 * c_[SW_T_Z2])) + m * r; \
                    if (v_ < best) best = v_;                                              \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }
    SW_TRIANGLES(SW_TRI)
#undef SW_TRI
#define SW_SEG(k, i0, i1)                                                                  \
    {                                                                                      \
        const SW_REAL *c_ = g->seg[k];                                                     \
        const SW_REAL t0 = t[i0], t1 = t[i1];                                              \
        if (SW_NAME(sw_min)(t0, t1) + c_[SW_S_NMIN] * ns < best) {                         \
            const SW_REAL a_ = (t1 - t0) + c_[SW_S_BE];                                    \
            const SW_REAL gm = a_ * c_[SW_S_IA];                                           \
            const SW_REAL q = one - gm * gm;                                               \
            if (q > (SW_REAL)0) {                                                          \
                const SW_REAL r = SW_SQRT(q), gk = gm * c_[SW_S_K1];                       \
                if (gk < c_[SW_S_S] * r && gk > c_[SW_S_SM1] * r) {                        \
                    const SW_REAL v_ = ((t0 + c_[SW_S_C0]) + a_ * c_[SW_S_S]) +            \
                                       c_[SW_S_M2] * r;                                    \
                    if (v_ < best) best = v_;                                              \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }
    SW_SEGMENTS(SW_SEG)
#undef SW_SEG
    /* A decrease below SW_KEEP of the old value keeps the old value (float: the sub-sweeps'
     * simplices round differently, and without it far points went on falling by a few ulps
     * sweep after sweep, defeating the skipping; 0 for double). */
    if (SW_KEEP > 0 && best > told - told * SW_KEEP)
        best = told;
    return best;
}

/* The Randers form (constant F, psi, a). */
SW_HD SW_REAL SW_NAME(sw_update_randers)(const SW_NAME(sw_geo) *g, const SW_REAL *t,
                                         SW_REAL told)
{
    return SW_NAME(sw_update)(g, t, told, (SW_REAL)1, (SW_REAL)1);
}

/* The isotropic field form: S is the slowness 1/F at the point. */
SW_HD SW_REAL SW_NAME(sw_update_field)(const SW_NAME(sw_geo) *g, const SW_REAL *t,
                                       SW_REAL told, SW_REAL S)
{
    return SW_NAME(sw_update)(g, t, told, S * S, S);
}

#undef SW_NAME
#undef SW_CAT
#undef SW_CAT2
#endif
