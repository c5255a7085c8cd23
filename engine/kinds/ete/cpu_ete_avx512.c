/* cpu_ete_avx512.c — cpu_ete_avx512.h: the ETE operator of 16 points a vector. The 36 pair
 * weights of a point are gathers from the table (the faster of the point's and the
 * neighbour's bins, vpmaxud, then the slot), or, where the 16 points and all their
 * neighbours share one bin (inside a layer), that bin's row broadcast; the neighbours are
 * plain unaligned loads; each
 * lane's multiplications, subtractions and additions are the scalar ete_sum's, in its
 * order, and the build contracts nothing (ISO C), so the two kernels agree bit for bit. */
#include "kinds/ete/cpu_ete_avx512.h"
#include "kinds/ete/ete.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define FDW_AVX512 __attribute__((target("avx512f")))

/* The point's bins and alpha, and the centre value, of one vector. */
typedef struct ete_vec {
    __m512i b0;
    __m512 alpha, uc;
} ete_vec;

/* t(dx,dy,dz) of ete.h where every lane's point and neighbours share bin b: the pair
 * weight alpha g_s = aw[s] is the same product for every lane (computed once, in float, as
 * the scalar kernel computes it), broadcast: no gathers. */
static inline __attribute__((always_inline)) FDW_AVX512 __m512
ete_t_uniform(const float *u, const float *aw, const ete_vec *v, ptrdiff_t off, int s)
{
    return _mm512_mul_ps(_mm512_set1_ps(aw[s]),
                         _mm512_sub_ps(_mm512_loadu_ps(u + off), v->uc));
}

/* Whether the 36 neighbours of the 16 points at ix all have bin b (b in every 16-bit lane):
 * the bins compared as they are stored, without widening. */
static inline __attribute__((always_inline)) FDW_AVX512 int
ete_bins_uniform(const uint16_t *ix, ptrdiff_t sy, ptrdiff_t sz, __m256i b)
{
#define ETE_SAME(OFF)                                                                      \
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(                                           \
            _mm256_loadu_si256((const __m256i *)(ix + (OFF))), b)) != -1)                  \
        return 0;
    for (int m = 1; m <= 4; m++) {
        ETE_SAME(-m) ETE_SAME(m) ETE_SAME(-m * sy) ETE_SAME(m * sy) ETE_SAME(-m * sz)
        ETE_SAME(m * sz)
    }
    ETE_SAME(-1 - sy) ETE_SAME(1 - sy) ETE_SAME(-1 + sy) ETE_SAME(1 + sy)
    ETE_SAME(-1 - sz) ETE_SAME(1 - sz) ETE_SAME(-1 + sz) ETE_SAME(1 + sz)
    ETE_SAME(-sy - sz) ETE_SAME(sy - sz) ETE_SAME(-sy + sz) ETE_SAME(sy + sz)
#undef ETE_SAME
    return 1;
}

/* t(dx,dy,dz) of ete.h at offset off (dx + dy sy + dz sz) for slot s. */
static inline __attribute__((always_inline)) FDW_AVX512 __m512
ete_t(const float *u, const uint16_t *ix, const float *table, const ete_vec *v, ptrdiff_t off,
      int s)
{
    const __m512i bn = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(ix + off)));
    const __m512i bm = _mm512_max_epu32(bn, v->b0);
    const __m512i at = _mm512_add_epi32(_mm512_slli_epi32(bm, 4), _mm512_set1_epi32(s));
    const __m512 g = _mm512_i32gather_ps(at, table, 4);
    return _mm512_mul_ps(_mm512_mul_ps(v->alpha, g),
                         _mm512_sub_ps(_mm512_loadu_ps(u + off), v->uc));
}

/* L of the 16 points at p (bins at b): with uniform, every point and neighbour in bin b[0]
 * and aw its pair weights; else the gathers. */
static inline __attribute__((always_inline)) FDW_AVX512 __m512
ete_vec_sum(const float *p, const uint16_t *b, const float *table, ptrdiff_t sy, ptrdiff_t sz,
            const int uniform, const float *aw)
{
    ete_vec v;
    v.uc = _mm512_loadu_ps(p);
    if (!uniform) {
        v.b0 = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)b));
        v.alpha = _mm512_i32gather_ps(_mm512_slli_epi32(v.b0, 4), table, 4);
    }
#define T(DX, DY, DZ, S)                                                                   \
    (uniform ? ete_t_uniform(p, aw, &v, (DX) + (DY) * sy + (DZ) * sz, (S))                 \
             : ete_t(p, b, table, &v, (DX) + (DY) * sy + (DZ) * sz, (S)))
    __m512 ax = _mm512_add_ps(T(-1, 0, 0, 1), T(1, 0, 0, 1));
    __m512 ay = _mm512_add_ps(T(0, -1, 0, 5), T(0, 1, 0, 5));
    __m512 az = _mm512_add_ps(T(0, 0, -1, 9), T(0, 0, 1, 9));
    for (int m = 2; m <= 4; m++) {
        ax = _mm512_add_ps(ax, _mm512_add_ps(T(-m, 0, 0, m), T(m, 0, 0, m)));
        ay = _mm512_add_ps(ay, _mm512_add_ps(T(0, -m, 0, 4 + m), T(0, m, 0, 4 + m)));
        az = _mm512_add_ps(az, _mm512_add_ps(T(0, 0, -m, 8 + m), T(0, 0, m, 8 + m)));
    }
    const __m512 exy = _mm512_add_ps(_mm512_add_ps(T(-1, -1, 0, 13), T(1, -1, 0, 13)),
                                     _mm512_add_ps(T(-1, 1, 0, 13), T(1, 1, 0, 13)));
    const __m512 exz = _mm512_add_ps(_mm512_add_ps(T(-1, 0, -1, 14), T(1, 0, -1, 14)),
                                     _mm512_add_ps(T(-1, 0, 1, 14), T(1, 0, 1, 14)));
    const __m512 eyz = _mm512_add_ps(_mm512_add_ps(T(0, -1, -1, 15), T(0, 1, -1, 15)),
                                     _mm512_add_ps(T(0, -1, 1, 15), T(0, 1, 1, 15)));
#undef T
    return _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(ax, ay), az), exy),
                         _mm512_add_ps(exz, eyz));
}

/* Whether every bin the n points at ix read (their rows and the 20 neighbouring rows, x
 * from -4 to n + 4) equals ix[0]: then the whole piece takes the broadcast weights. */
static inline __attribute__((always_inline)) FDW_AVX512 int
ete_piece_uniform(const uint16_t *ix, ptrdiff_t sy, ptrdiff_t sz, int n)
{
    const __m256i bb = _mm256_set1_epi16((short)ix[0]);
    static const signed char rows[21][2] = {
        {0, 0}, {-1, 0}, {1, 0}, {-2, 0}, {2, 0}, {-3, 0}, {3, 0}, {-4, 0}, {4, 0},
        {0, -1}, {0, 1}, {0, -2}, {0, 2}, {0, -3}, {0, 3}, {0, -4}, {0, 4},
        {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
    for (int r = 0; r < 21; r++) {
        const uint16_t *row = ix + rows[r][0] * sy + rows[r][1] * sz;
        for (int x = -4;; x += 16) {
            if (x > n - 12)
                x = n - 12;
            if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(
                    _mm256_loadu_si256((const __m256i *)(row + x)), bb)) != -1)
                return 0;
            if (x == n - 12)
                break;
        }
    }
    return 1;
}

FDW_AVX512 static void ete_row(const float *u, const uint16_t *ix, const float *table,
                               ptrdiff_t sy, ptrdiff_t sz, float *l, int n)
{
#if ETE_TABLE_STRIDE != 16
#error "the gathers index the table as bin * 16 + slot"
#endif
    float aw[ETE_TABLE_STRIDE];
    if (ete_piece_uniform(ix, sy, sz, n)) {
        /* a layered or constant model: the pair weights alpha g_s of bin ix[0], the values
         * the gathers would fetch, multiplied as the scalar kernel multiplies them */
        const float *w = table + (size_t)ix[0] * ETE_TABLE_STRIDE;
        for (int q = 1; q < ETE_TABLE_STRIDE; q++)
            aw[q] = w[0] * w[q];
        for (int i = 0; i < n; i += 16)
            _mm512_storeu_ps(l + i, ete_vec_sum(u + i, ix + i, table, sy, sz, 1, aw));
        return;
    }
    for (int i = 0; i < n; i += 16) {
        const uint16_t *b = ix + i;
        const __m256i bb = _mm256_set1_epi16((short)b[0]);
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_loadu_si256((const __m256i *)b),
                                                    bb)) == -1 &&
            ete_bins_uniform(b, sy, sz, bb)) {
            const float *w = table + (size_t)b[0] * ETE_TABLE_STRIDE;
            for (int q = 1; q < ETE_TABLE_STRIDE; q++)
                aw[q] = w[0] * w[q];
            _mm512_storeu_ps(l + i, ete_vec_sum(u + i, b, table, sy, sz, 1, aw));
        } else {
            _mm512_storeu_ps(l + i, ete_vec_sum(u + i, b, table, sy, sz, 0, aw));
        }
    }
}

cpu_ete_row_fn cpu_ete_avx512_row(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? ete_row : NULL;
}

#else

cpu_ete_row_fn cpu_ete_avx512_row(void) { return NULL; }

#endif
