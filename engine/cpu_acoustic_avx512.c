/* cpu_acoustic_avx512.c — the acoustic row kernels written with AVX-512F intrinsics, picked
 * at run time by cpu_acoustic.c when the processor has AVX-512F (the portable kernels in
 * cpu_acoustic.c run otherwise).
 *
 * Why a hand-written kernel: at order 8 the compiler's vectorisation of the portable loop
 * spends its time on 2r + 1 unaligned x-neighbour loads per vector and, mostly, waiting for
 * the three streams that come from memory (the leading z plane of u, u_prev and vdt2).
 * Here the x neighbours are lane shifts (valignd) of aligned vectors already in registers,
 * every other load is aligned (rows and x = 0 start on 64-byte boundaries), each neighbour
 * pair costs one add and one fused multiply-add, and the memory streams are prefetched a
 * row ahead in the order the rows are visited.
 *
 * Arithmetic per point (the same for every point, whatever its slab, block or lane):
 *     t   = fma chain over c0 u, then the x pairs m = 1..r, then the y pairs m = 1..r
 *     lap = fma chain from t over the z pairs m = 1..r
 *     u'  = fma(vdt2, lap, 2u - u_prev)                                  undamped
 *     u'  = fma(vdt2, lap, 2u - (1 - q) u_prev) / (1 + q)                damped
 * where each pair is u[+m] + u[-m] and "2u - x" is one fused operation. For q == 0 both
 * forms give the same bits (2u is exact, 1 - 0 = 1, and x / 1 = x), so where the sponge
 * starts never changes a result. The fused operations round differently from the portable
 * kernels (within a few ulps): each machine runs one kernel for every point, which keeps N
 * slabs equal to 1 slab bit for bit.
 *
 * A row is done in chunks of FDW_AVX_CHUNK points in two passes (the centre, x and y terms
 * into a buffer that stays in L1, then the z terms and the update), so each pass keeps its
 * stream pointers in registers. Points past nx in the last vector of a row are computed
 * and not stored (masked store): the padding of u_prev stays zero. */
#include "cpu_acoustic_kernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define FDW_AVX512 __attribute__((target("avx512f")))
#define FDW_INLINE static inline __attribute__((always_inline)) FDW_AVX512

/* Points of a row per two-pass chunk (a multiple of 16). */
#define FDW_AVX_CHUNK 512

/* How far ahead, in rows of the block walk (see prefetch_offset), the memory streams are
 * prefetched. */
#ifndef FDW_AVX_PF_ROWS
#define FDW_AVX_PF_ROWS 1
#endif
#ifndef FDW_AVX_PF_HINT
#define FDW_AVX_PF_HINT _MM_HINT_T0
#endif
#ifndef FDW_AVX_XLOADS
#define FDW_AVX_XLOADS 0
#endif

/* x neighbour pair u[x+m] + u[x-m] for the 16 points of c: lane shifts (valignd) of c, p
 * (the 16 points before c) and n (the 16 after it); or, for m <= FDW_AVX_XLOADS, two
 * unaligned loads. */
#define FDW_XR(m)                                                                       \
    _mm512_castsi512_ps(                                                                \
        _mm512_alignr_epi32(_mm512_castps_si512(n), _mm512_castps_si512(c), (m)))
#define FDW_XL(m)                                                                       \
    _mm512_castsi512_ps(                                                                \
        _mm512_alignr_epi32(_mm512_castps_si512(c), _mm512_castps_si512(p), 16 - (m)))
#define FDW_XPAIR(m)                                                                    \
    ((m) <= FDW_AVX_XLOADS                                                              \
         ? _mm512_add_ps(_mm512_loadu_ps(u + i + (m)), _mm512_loadu_ps(u + i - (m)))    \
         : _mm512_add_ps(FDW_XR(m), FDW_XL(m)))
#define FDW_XTERM(m)                                                                    \
    if (R >= (m))                                                                       \
        acc = _mm512_fmadd_ps(cx[m], FDW_XPAIR(m), acc);

/* The pair u[i + m s] + u[i - m s] (aligned loads). */
#define FDW_PAIR(s, m) _mm512_add_ps(_mm512_load_ps(u + i + (m) * (s)), _mm512_load_ps(u + i - (m) * (s)))

/* Pass 1 over points [i0, i1) (i1 - i0 a multiple of 16): t = c0 u + x pairs + y pairs.
 * pa, pb, pc (all NULL or none) are prefetched at the same x as u, one line per vector. */
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
#ifdef FDW_ACC2
        __m512 accy = _mm512_mul_ps(cy[1], FDW_PAIR(sy, 1));
        for (int m = 2; m <= R; m++)
            accy = _mm512_fmadd_ps(cy[m], FDW_PAIR(sy, m), accy);
        acc = _mm512_add_ps(acc, accy);
#else
        for (int m = 1; m <= R; m++)
            acc = _mm512_fmadd_ps(cy[m], FDW_PAIR(sy, m), acc);
#endif
        _mm512_store_ps(t + (i - i0), acc);
        p = c;
        c = n;
    }
}

/* Where the streams are prefetched while row j of plane k is updated: the row
 * FDW_AVX_PF_ROWS further on in the walk over rows [j0, j1) and then the next plane, as an
 * offset from row j (0 when that row lies past the owned planes: nothing to fetch).
 * *halo says whether the leading plane's row R above is fetched too, so that the leading
 * plane's rows [j0 - R, j1 + R) (what the y sums need R planes later) all come in. */
FDW_INLINE ptrdiff_t prefetch_offset(const cpu_acoustic_args *a, int k, int j, int j0, int j1,
                                     const int R, int *halo)
{
    int jj = j + FDW_AVX_PF_ROWS, kk = k;
    while (jj >= j1) {
        jj -= j1 - j0;
        kk++;
    }
    *halo = jj < j0 + 2 * R;
    if (kk >= a->nzl || (kk == k && jj == j))
        return 0;
    return (ptrdiff_t)(kk - k) * a->sz + (ptrdiff_t)(jj - j) * a->sy;
}

/* One row of plane k: points [0, nx) at up/u/v (pointers to x = 0 of the row), streams
 * prefetched at offset pf (0: none). qx == NULL: the undamped form everywhere; otherwise
 * q = qx[x] + qyz and the damped form for every vector that is not wholly inside the
 * undamped run [xlo, xhi) of a row with qyz == 0. */
FDW_INLINE void row_update(float *up, const float *u, const float *v, const float *qx, float qyz,
                           int xlo, int xhi, int nx, ptrdiff_t sy, ptrdiff_t sz, ptrdiff_t pf,
                           int halo, __m512 c0, const __m512 *cx, const __m512 *cy,
                           const __m512 *cz, const int R)
{
    __attribute__((aligned(64))) float t[FDW_AVX_CHUNK];
    const __m512 two = _mm512_set1_ps(2.0f), one = _mm512_set1_ps(1.0f);
    const __m512 vqyz = _mm512_set1_ps(qyz);
    const int nxv = (nx + 15) & ~15;
    const __mmask16 tail = (__mmask16)((1u << (nx & 15)) - 1u);
    const ptrdiff_t pfu = pf + (ptrdiff_t)R * sz + (ptrdiff_t)R * sy;
    const ptrdiff_t pfh = pf + (ptrdiff_t)R * sz - (ptrdiff_t)R * sy;
    for (int b0 = 0; b0 < nxv; b0 += FDW_AVX_CHUNK) {
        int b1 = b0 + FDW_AVX_CHUNK < nxv ? b0 + FDW_AVX_CHUNK : nxv;
        pass_xy(t, u, b0, b1, sy, c0, cx, cy, R, pf ? u + pfu : NULL, pf ? up + pf : NULL,
                pf ? v + pf : NULL);
        for (int i = b0; i < b1; i += 16) {
            if (pf && halo)
                _mm_prefetch((const char *)(u + i + pfh), FDW_AVX_PF_HINT);
            __m512 lap = _mm512_load_ps(t + (i - b0));
            for (int m = 1; m <= R; m++)
                lap = _mm512_fmadd_ps(cz[m], FDW_PAIR(sz, m), lap);
            __m512 c = _mm512_load_ps(u + i);
            __m512 o = _mm512_load_ps(up + i);
            int full = i + 16 <= nx;
            if (qx && !(qyz == 0.0f && i >= xlo && i + 16 <= xhi)) {
                __m512 q = full ? _mm512_loadu_ps(qx + i) : _mm512_maskz_loadu_ps(tail, qx + i);
                q = _mm512_add_ps(q, vqyz);
                o = _mm512_fnmadd_ps(_mm512_sub_ps(one, q), o, _mm512_add_ps(c, c));
                o = _mm512_fmadd_ps(_mm512_load_ps(v + i), lap, o);
                o = _mm512_div_ps(o, _mm512_add_ps(one, q));
            } else {
                o = _mm512_fmsub_ps(two, c, o);
                o = _mm512_fmadd_ps(_mm512_load_ps(v + i), lap, o);
            }
            if (full)
                _mm512_store_ps(up + i, o);
            else
                _mm512_mask_store_ps(up + i, tail, o);
        }
    }
}

/* Rows [j0, j1) of local plane k. */
FDW_INLINE void rows_avx512(const cpu_acoustic_args *a, int k, int j0, int j1, const int R)
{
    __m512 cx[FDW_MAX_RADIUS + 1], cy[FDW_MAX_RADIUS + 1], cz[FDW_MAX_RADIUS + 1];
    for (int m = 0; m <= R; m++) {
        cx[m] = _mm512_set1_ps(a->cx[m]);
        cy[m] = _mm512_set1_ps(a->cy[m]);
        cz[m] = _mm512_set1_ps(a->cz[m]);
    }
    const __m512 c0 = _mm512_set1_ps(a->c0);
    const ptrdiff_t sy = a->sy, sz = a->sz;
    for (int j = j0; j < j1; j++) {
        ptrdiff_t o = (ptrdiff_t)k * sz + (ptrdiff_t)j * sy;
        int halo;
        ptrdiff_t pf = prefetch_offset(a, k, j, j0, j1, R, &halo);
        float qyz = a->qx ? a->qy[j] + a->qz[k] : 0.0f;
        row_update(a->up + o, a->u + o, a->v + o, a->qx, qyz, a->xlo, a->xhi, a->nx, sy, sz,
                   pf, halo, c0, cx, cy, cz, R);
    }
}

#define FDW_AVX_KERNEL(R)                                                               \
    static FDW_AVX512 void acoustic_avx512_r##R(const cpu_acoustic_args *a, int k, int j0, \
                                                int j1)                                 \
    {                                                                                   \
        rows_avx512(a, k, j0, j1, R);                                                   \
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
