/* cpu_acoustic_avx512.c — the acoustic row kernels written with AVX-512F intrinsics, picked
 * at run time by cpu_acoustic.c when the processor has AVX-512F (the portable kernels in
 * cpu_acoustic.c run otherwise).
 *
 * Why a hand-written kernel: at order 8 the compiler's vectorisation of the portable loop
 * spends its time on 2r + 1 unaligned x-neighbour loads per vector, on refilling L1 with
 * the 2r z-neighbour lines of every vector, and on waiting for the three streams that come
 * from memory (the leading z plane of u, u_prev and vdt2). Here:
 *  - the x neighbours are lane shifts (valignd) of aligned vectors already in registers,
 *    every other load is aligned (rows and x = 0 start on 64-byte boundaries), and each
 *    neighbour pair costs one add and one fused multiply-add;
 *  - two planes (k, k + 1) are updated in the same walk over a row, so the z lines they
 *    share are loaded once: 2r + 2 lines for two output vectors instead of 4r;
 *  - the memory streams are prefetched a row ahead in the order the rows are visited.
 *
 * Arithmetic per point (the same for every point, whatever its slab, block, plane pair or
 * lane):
 *     t   = fma chain from c0 u over the x pairs m = 1..r, then the y pairs m = 1..r
 *     lap = fma chain from t over the z pairs m = 1..r
 *     u'  = fma(vdt2, lap, 2u - u_prev)                                  undamped
 *     u'  = fma(vdt2, lap, 2u - (1 - q) u_prev) / (1 + q)                damped
 * where each pair is u[+m] + u[-m] and "2u - x" is one fused operation. For q == 0 both
 * forms give the same bits (2u is exact, 1 - 0 = 1, and x / 1 = x), so where the sponge
 * starts never changes a result. The fused operations round differently from the portable
 * kernels (a few ulps): each machine runs one kernel for every point, which keeps N slabs
 * equal to 1 slab bit for bit.
 *
 * A row is done in chunks of FDW_AVX_CHUNK points in two passes (the centre, x and y terms
 * of each plane into a buffer that stays in L1, then the z terms and the update), so each
 * pass keeps its stream pointers in registers. Points past nx in the last vector of a row
 * are computed and not stored (masked store): the padding of u_prev stays zero. */
#include "kinds/acoustic/cpu_acoustic_kernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define FDW_AVX512 __attribute__((target("avx512f")))
#define FDW_INLINE static inline __attribute__((always_inline)) FDW_AVX512

/* Points of a row per two-pass chunk (a multiple of 16). */
#define FDW_AVX_CHUNK 512

/* How far ahead, in rows of the block walk (see prefetch_offset), the memory streams are
 * prefetched, and with which hint. Measured on the AMD EPYC build VM at order 8, 256^3: one
 * row ahead into L1 is best; 2-16 rows, prefetcht1 (L2) or a second, farther prefetch were
 * equal or slower, and no software prefetch at all 25% slower. */
#ifndef FDW_AVX_PF_ROWS
#define FDW_AVX_PF_ROWS 1
#endif
#ifndef FDW_AVX_PF_HINT
#define FDW_AVX_PF_HINT _MM_HINT_T0
#endif

/* x neighbour pair u[x+m] + u[x-m] for the 16 points of c, from lane shifts of c, p (the
 * 16 points before c) and n (the 16 after it). */
#define FDW_XR(m)                                                                       \
    _mm512_castsi512_ps(                                                                \
        _mm512_alignr_epi32(_mm512_castps_si512(n), _mm512_castps_si512(c), (m)))
#define FDW_XL(m)                                                                       \
    _mm512_castsi512_ps(                                                                \
        _mm512_alignr_epi32(_mm512_castps_si512(c), _mm512_castps_si512(p), 16 - (m)))
#define FDW_XTERM(m)                                                                    \
    if (R >= (m))                                                                       \
        acc = _mm512_fmadd_ps(cx[m], _mm512_add_ps(FDW_XR(m), FDW_XL(m)), acc);

/* Pass 1 over points [i0, i1) of one row of one plane (i1 - i0 a multiple of 16):
 * t = c0 u + x pairs + y pairs. When pa is not NULL, pa, pb and pc are prefetched at the
 * same x as u, one line each per vector. */
FDW_INLINE void pass_xy(float *restrict t, const float *u, int i0, int i1, ptrdiff_t sy,
                        __m512 c0, const __m512 *cx, const __m512 *cy, const int R,
                        const float *pa, const float *pb, const float *pc)
{
    __m512 p = _mm512_load_ps(u + i0 - 16), c = _mm512_load_ps(u + i0);
    for (int i = i0; i < i1; i += 16) {
        if (pa) {
            _mm_prefetch((const char *)(pa + i), FDW_AVX_PF_HINT);
            _mm_prefetch((const char *)(pb + i), FDW_AVX_PF_HINT);
            _mm_prefetch((const char *)(pc + i), FDW_AVX_PF_HINT);
        }
        __m512 n = _mm512_load_ps(u + i + 16);
        __m512 acc = _mm512_mul_ps(c0, c);
        FDW_XTERM(1)
        FDW_XTERM(2)
        FDW_XTERM(3)
        FDW_XTERM(4)
        FDW_XTERM(5)
        FDW_XTERM(6)
        FDW_XTERM(7)
        FDW_XTERM(8)
        for (int m = 1; m <= R; m++)
            acc = _mm512_fmadd_ps(cy[m],
                                  _mm512_add_ps(_mm512_load_ps(u + i + m * sy),
                                                _mm512_load_ps(u + i - m * sy)),
                                  acc);
        _mm512_store_ps(t + (i - i0), acc);
        p = c;
        c = n;
    }
}

/* The update of the vector at x = i of one plane from its Laplacian: undamped when q is
 * NULL, damped with *q otherwise; lanes outside `keep` are not stored. */
FDW_INLINE void update_vec(float *up, const float *u, const float *v, int i, __m512 lap,
                           const __m512 *q, __mmask16 keep)
{
    __m512 c = _mm512_load_ps(u + i), o = _mm512_load_ps(up + i);
    if (q) {
        const __m512 one = _mm512_set1_ps(1.0f);
        o = _mm512_fnmadd_ps(_mm512_sub_ps(one, *q), o, _mm512_add_ps(c, c));
        o = _mm512_fmadd_ps(_mm512_load_ps(v + i), lap, o);
        o = _mm512_div_ps(o, _mm512_add_ps(one, *q));
    } else {
        o = _mm512_fmsub_ps(_mm512_set1_ps(2.0f), c, o);
        o = _mm512_fmadd_ps(_mm512_load_ps(v + i), lap, o);
    }
    if (keep == (__mmask16)0xffff)
        _mm512_store_ps(up + i, o);
    else
        _mm512_mask_store_ps(up + i, keep, o);
}

/* Everything a row walk needs besides the row itself. */
typedef struct row_ctx {
    const cpu_acoustic_args *a;
    __m512 c0, cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    __mmask16 tail;            /* lanes of the last vector of a row that lie inside it */
    int nxv;                   /* nx rounded up to a vector */
    int nxf;                   /* points in whole vectors */
} row_ctx;

/* Pass 2 over points [b0, b1) of one row of planes k .. k + NP - 1 (offset o of the row in
 * plane k): the z pairs from 2R + NP loaded lines and the updates. DAMP: some point of
 * these rows is damped (qyz[p] is the plane's qy + qz); otherwise all are undamped. */
FDW_INLINE void pass_z(const row_ctx *x, ptrdiff_t o, int b0, int b1,
                       float (*t)[FDW_AVX_CHUNK], const float *qyz, const int R, const int NP,
                       const int DAMP)
{
    const cpu_acoustic_args *a = x->a;
    const ptrdiff_t sz = a->sz;
    const float *u = a->u + o;
    for (int i = b0; i < b1; i += 16) {
        __m512 z[2 * FDW_MAX_RADIUS + 2];
        for (int m = -R; m < R + NP; m++)
            z[m + R] = _mm512_load_ps(u + i + m * sz);
        __mmask16 keep = i < x->nxf ? (__mmask16)0xffff : x->tail;
        for (int p = 0; p < NP; p++) {
            __m512 lap = _mm512_load_ps(t[p] + (i - b0));
            for (int m = 1; m <= R; m++)
                lap = _mm512_fmadd_ps(x->cz[m], _mm512_add_ps(z[R + p + m], z[R + p - m]), lap);
            float *up = a->up + o + p * sz;
            const float *uc = u + p * sz, *v = a->v + o + p * sz;
            if (DAMP && !(qyz[p] == 0.0f && i >= a->xlo && i + 16 <= a->xhi)) {
                __m512 q = _mm512_add_ps(_mm512_maskz_loadu_ps(keep, a->qx + i),
                                         _mm512_set1_ps(qyz[p]));
                update_vec(up, uc, v, i, lap, &q, keep);
            } else {
                update_vec(up, uc, v, i, lap, NULL, keep);
            }
        }
    }
}

/* Where the streams are prefetched while row j of planes k .. k + NP - 1 is updated: the
 * row FDW_AVX_PF_ROWS further on in the walk over rows [j0, j1) and then the next planes,
 * as an offset from row j (0 when those planes lie past the owned ones: nothing to fetch).
 * *halo says whether the leading planes' rows R above are fetched too, so that the leading
 * planes' rows [j0 - R, j1 + R) (what the y sums need R planes later) all come in. */
FDW_INLINE ptrdiff_t prefetch_offset(const cpu_acoustic_args *a, int k, int j, int j0, int j1,
                                     int *halo, const int R, const int NP)
{
    int jj = j + FDW_AVX_PF_ROWS, kk = k;
    while (jj >= j1) {
        jj -= j1 - j0;
        kk += NP;
    }
    *halo = jj < j0 + 2 * R;
    if (kk + NP > a->nzl || (kk == k && jj == j))
        return 0;
    return (ptrdiff_t)(kk - k) * a->sz + (ptrdiff_t)(jj - j) * a->sy;
}

/* Rows [j0, j1) of planes k .. k + NP - 1. */
FDW_INLINE void rows_avx512(const row_ctx *x, int k, int j0, int j1, const int R, const int NP)
{
    const cpu_acoustic_args *a = x->a;
    const ptrdiff_t sy = a->sy, sz = a->sz;
    __attribute__((aligned(64))) float t[NP][FDW_AVX_CHUNK];
    for (int j = j0; j < j1; j++) {
        const ptrdiff_t o = (ptrdiff_t)k * sz + (ptrdiff_t)j * sy;
        int halo;
        const ptrdiff_t pf = prefetch_offset(a, k, j, j0, j1, &halo, R, NP);
        float qyz[2] = {0.0f, 0.0f};
        int damp = 0;
        if (a->qx)
            for (int p = 0; p < NP; p++) {
                qyz[p] = a->qy[j] + a->qz[k + p];
                damp |= !(qyz[p] == 0.0f && a->xlo == 0 && a->xhi == a->nx);
            }
        for (int b0 = 0; b0 < x->nxv; b0 += FDW_AVX_CHUNK) {
            int b1 = b0 + FDW_AVX_CHUNK < x->nxv ? b0 + FDW_AVX_CHUNK : x->nxv;
            for (int p = 0; p < NP; p++) {
                const ptrdiff_t op = o + p * sz, f = op + pf;
                pass_xy(t[p], a->u + op, b0, b1, sy, x->c0, x->cx, x->cy, R,
                        pf ? a->u + f + R * sz + R * sy : NULL, a->up + f, a->v + f);
                if (pf && halo)
                    for (int i = b0; i < b1; i += 16)
                        _mm_prefetch((const char *)(a->u + f + R * sz - R * sy + i),
                                     FDW_AVX_PF_HINT);
            }
            if (damp)
                pass_z(x, o, b0, b1, t, qyz, R, NP, 1);
            else
                pass_z(x, o, b0, b1, t, qyz, R, NP, 0);
        }
    }
}

/* Planes [k0, k1), rows [j0, j1): pairs of planes, then a last single one. */
FDW_INLINE void planes_avx512(const cpu_acoustic_args *a, int k0, int k1, int j0, int j1,
                              const int R)
{
    row_ctx x;
    x.a = a;
    for (int m = 0; m <= R; m++) {
        x.cx[m] = _mm512_set1_ps(a->cx[m]);
        x.cy[m] = _mm512_set1_ps(a->cy[m]);
        x.cz[m] = _mm512_set1_ps(a->cz[m]);
    }
    x.c0 = _mm512_set1_ps(a->c0);
    x.nxv = (a->nx + 15) & ~15;
    x.nxf = a->nx & ~15;
    x.tail = (a->nx & 15) ? (__mmask16)((1u << (a->nx & 15)) - 1u) : (__mmask16)0xffff;
    int k = k0;
    for (; k + 2 <= k1; k += 2)
        rows_avx512(&x, k, j0, j1, R, 2);
    if (k < k1)
        rows_avx512(&x, k, j0, j1, R, 1);
}

#define FDW_AVX_KERNEL(R)                                                               \
    static FDW_AVX512 void acoustic_avx512_r##R(const cpu_acoustic_args *a, int k0,      \
                                                int k1, int j0, int j1)                 \
    {                                                                                   \
        planes_avx512(a, k0, k1, j0, j1, R);                                            \
    }
FDW_AVX_KERNEL(1)
FDW_AVX_KERNEL(2)
FDW_AVX_KERNEL(3)
FDW_AVX_KERNEL(4)
FDW_AVX_KERNEL(5)
FDW_AVX_KERNEL(6)
FDW_AVX_KERNEL(7)
FDW_AVX_KERNEL(8)

cpu_acoustic_fn cpu_acoustic_avx512_kernel(int r)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f"))
        return NULL;
    switch (r) {
    case 1: return acoustic_avx512_r1;
    case 2: return acoustic_avx512_r2;
    case 3: return acoustic_avx512_r3;
    case 4: return acoustic_avx512_r4;
    case 5: return acoustic_avx512_r5;
    case 6: return acoustic_avx512_r6;
    case 7: return acoustic_avx512_r7;
    case 8: return acoustic_avx512_r8;
    }
    return NULL;
}

#else /* no x86-64 GCC/Clang: only the portable kernels */

cpu_acoustic_fn cpu_acoustic_avx512_kernel(int r)
{
    (void)r;
    return NULL;
}

#endif
