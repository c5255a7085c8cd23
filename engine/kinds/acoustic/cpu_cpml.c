/* cpu_cpml.c — the CPML correction of the CPU backend (the recursion of acoustic.h):
 *   psi_A  = b psi_A + a D1_A u                      (pass 1, every layer point of A)
 *   g      = D1_A psi_A                              (pass 2, psi_A = 0 off A's layers)
 *   zeta_A = b zeta_A + a (D2_A u + g),   u' = u' + vdt2 (g + zeta_A)
 * for A = x, y, z in turn, on planes whose plain update is done and before the sources.
 * Every value is a float computed in the contract's order (D1 summed from m = 1 up as
 * d1[m] (f(+m) - f(-m)), D2 as cA[0] u then cA[m] (u(-m) + u(+m))); the build has no FMA
 * contraction, so the CUDA backend, built with -fmad=false, can match it bit for bit.
 *
 * Storage holds only layer points: x: (wlo + whi) per row, [plane][row][slot]; y: (wlo +
 * whi) rows per plane, [plane][slot][x]; z: the slab's layer planes, [slot][row][x]. Reads
 * of u outside the grid hit the zero padding and ghost planes of the slab buffers, as
 * the Laplacian's do. Work goes by runs of contiguous x points with the derivative sums
 * outside the point loop, so the point loops vectorise (compiled for AVX-512, AVX2 and
 * baseline like the kernels; without contraction every clone rounds alike). Per point the
 * x, y, z corrections are added in that order: x first (by row: its pass 2 reads psi_x of
 * the same row only), then y (by plane, likewise), then z once psi_z of every layer plane
 * is new. */
#include "kinds/acoustic/cpu_cpml.h"
#include "kinds/acoustic/acoustic.h"

#include <stdlib.h>
#include <string.h>

struct cpu_cpml {
    int w[3][2];               /* layer widths per axis (from the problem) */
    int nl[3];                 /* w[A][0] + w[A][1]; 0 when axis A has no layer */
    int nzs;                   /* planes of the slab */
    float *psi[3], *zeta[3];
    size_t count[3];           /* floats in psi[a] and in zeta[a] */
    int *zslot;                /* per local plane: its slot in psi[2] / zeta[2], or -1 */
    int nzl;                   /* the slab's planes in a z layer */
    float *zero;               /* nx zeros: psi rows off the layers */
};

/* Layer points along an axis of the problem; 0 when it has none. */
static int axis_layers(const fdw_acoustic_data *p, int a)
{
    return p->pml_a[a] && p->pml_b[a] ? p->pml_w[a][0] + p->pml_w[a][1] : 0;
}

/* Global plane g of an nz-plane grid lies in a z layer. */
static int in_z_layer(const fdw_acoustic_data *p, int nz, int g)
{
    return axis_layers(p, 2) > 0 && (g < p->pml_w[2][0] || g >= nz - p->pml_w[2][1]);
}

uint64_t cpu_cpml_bytes(const fdw_problem *p, int z0, int nz)
{
    if (!fdw_acoustic_has_cpml(p->kdata))
        return 0;
    uint64_t pts = 0;
    for (int a = 0; a < 3; a++)
        pts += fdw_acoustic_cpml_points(p, a, z0, nz);
    return 2 * pts * sizeof(float) + (uint64_t)nz * sizeof(int);
}

void cpu_cpml_destroy(cpu_cpml *m)
{
    if (!m)
        return;
    for (int a = 0; a < 3; a++) {
        free(m->psi[a]);
        free(m->zeta[a]);
    }
    free(m->zslot);
    free(m->zero);
    free(m);
}

cpu_cpml *cpu_cpml_create(const cpu_ctx *c, const cpu_slab *s)
{
    const fdw_acoustic_data *p = c->prob.kdata;
    cpu_cpml *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    memcpy(m->w, p->pml_w, sizeof m->w);
    m->nzs = s->nz;
    for (int a = 0; a < 3; a++)
        m->nl[a] = axis_layers(p, a);
    m->zslot = malloc((size_t)s->nz * sizeof(int));
    m->zero = calloc((size_t)c->nx, sizeof(float));
    if (!m->zslot || !m->zero)
        return cpu_cpml_destroy(m), NULL;
    for (int k = 0; k < s->nz; k++)
        m->zslot[k] = in_z_layer(p, c->nz, s->z0 + k) ? m->nzl++ : -1;
    const size_t nx = (size_t)c->nx, ny = (size_t)c->ny, nz = (size_t)s->nz;
    const size_t count[3] = {(size_t)m->nl[0] * ny * nz, (size_t)m->nl[1] * nx * nz,
                             (size_t)m->nzl * nx * ny};
    for (int a = 0; a < 3; a++) {
        m->count[a] = count[a];
        if (count[a] == 0)
            continue;
        m->psi[a] = calloc(count[a], sizeof(float));
        m->zeta[a] = calloc(count[a], sizeof(float));
        if (!m->psi[a] || !m->zeta[a])
            return cpu_cpml_destroy(m), NULL;
    }
    return m;
}

int cpu_cpml_state(const cpu_cpml *m, fdw_state_part *parts)
{
    int n = 0;
    for (int a = 0; m && a < 3; a++) {
        if (m->count[a] == 0)
            continue;
        parts[n++] = (fdw_state_part){m->psi[a], m->count[a] * sizeof(float)};
        parts[n++] = (fdw_state_part){m->zeta[a], m->count[a] * sizeof(float)};
    }
    return n;
}

/* Points per chunk of an x layer run: its gathered psi neighbours stay in L1. */
#define CPML_CHUNK 256

/* Index along an axis of n points of layer slot s (low layer first). */
static inline int slot_index(int n, const int w[2], int s)
{
    return s < w[0] ? s : n - w[1] + (s - w[0]);
}

/* Layer slot of index i along an axis of n points, or -1 (interior or off the grid). */
static inline int index_slot(int n, const int w[2], int i)
{
    if (i < 0 || i >= n)
        return -1;
    if (i < w[0])
        return i;
    if (i >= n - w[1])
        return w[0] + (i - (n - w[1]));
    return -1;
}

/* The weights of one axis, copied to the stack so the compiler knows they do not alias
 * the arrays written. */
typedef struct cpml_w {
    float d1[FDW_MAX_RADIUS + 1], c2[FDW_MAX_RADIUS + 1];
} cpml_w;

static inline void axis_weights(const fdw_acoustic_data *p, int a, cpml_w *w)
{
    const float *c2 = a == 0 ? p->cx : a == 1 ? p->cy : p->cz;
    for (int m = 0; m <= FDW_MAX_RADIUS; m++) {
        w->d1[m] = p->pml_d1[a][m];
        w->c2[m] = c2[m];
    }
}

/* Pass 1 over a run of n points of u along stride st: psi = b psi + a D1 u, with D1
 * summed in the contract's order ((d1[1] (f(+1) - f(-1)) + d1[2] (f(+2) - f(-2))) + ...).
 * R is a constant in every caller, so the m loop unrolls and the i loop vectorises.
 * per_point: a and b are arrays along the run (x); otherwise a[0], b[0] hold for all. */
static inline __attribute__((always_inline)) void
pass1_run(float *restrict psi, const float *restrict u, ptrdiff_t st, int n,
          const float *restrict a, const float *restrict b, const int per_point,
          const cpml_w *w, const int R)
{
    const float a0 = a[0], b0 = b[0];
    for (int i = 0; i < n; i++) {
        float t = w->d1[1] * (u[i + st] - u[i - st]);
        for (int m = 2; m <= R; m++)
            t = t + w->d1[m] * (u[i + m * st] - u[i - m * st]);
        const float ai = per_point ? a[i] : a0, bi = per_point ? b[i] : b0;
        psi[i] = bi * psi[i] + ai * t;
    }
}

/* Pass 2 over a run of n points, psi at i + m and i - m given by the rows pp[m], pm[m]:
 * g = D1 psi; zeta = b zeta + a (D2 u + g); u' = u' + vdt2 (g + zeta), with D2 u =
 * cA[0] u + cA[1] (u(-1) + u(+1)) + ... in that order. */
static inline __attribute__((always_inline)) void
pass2_run(float *restrict zeta, float *restrict up, const float *restrict v,
          const float *restrict u, ptrdiff_t st, int n, const float *restrict a,
          const float *restrict b, const int per_point, const float *const *pp,
          const float *const *pm, const cpml_w *w, const int R)
{
    const float a0 = a[0], b0 = b[0];
    const float *restrict p1 = pp[1], *restrict m1 = pm[1];
    for (int i = 0; i < n; i++) {
        float g = w->d1[1] * (p1[i] - m1[i]);
        for (int m = 2; m <= R; m++)
            g = g + w->d1[m] * (pp[m][i] - pm[m][i]);
        float l = w->c2[0] * u[i];
        for (int m = 1; m <= R; m++)
            l = l + w->c2[m] * (u[i - m * st] + u[i + m * st]);
        const float ai = per_point ? a[i] : a0, bi = per_point ? b[i] : b0;
        const float z = bi * zeta[i] + ai * (l + g);
        zeta[i] = z;
        up[i] = up[i] + v[i] * (g + z);
    }
}

/* The x correction of row j of local plane k. A row's psi_x is all its pass 2 reads, so
 * pass 1 runs over both layers of the row, then pass 2 over chunks whose psi neighbours
 * (psi_x at i +- m: slots of the row, 0 off the layers) are gathered into ext first. */
static inline __attribute__((always_inline)) void
x_row(const cpu_ctx *c, const cpu_cpml *m, const float *u, float *up, const float *v, int k,
      int j, const int R)
{
    const fdw_acoustic_data *p = c->prob.kdata;
    const int nx = c->nx, nl = m->nl[0];
    const float *a = p->pml_a[0], *b = p->pml_b[0];
    cpml_w w;
    axis_weights(p, 0, &w);
    const ptrdiff_t o = (ptrdiff_t)k * c->plane + (ptrdiff_t)j * c->px;
    const size_t so = ((size_t)k * (size_t)c->ny + (size_t)j) * (size_t)nl;
    float *psi = m->psi[0] + so, *zeta = m->zeta[0] + so;
    /* the row's two layers as runs: [0, w0) at slot 0 and [nx - w1, nx) at slot w0 */
    const int start[2] = {0, nx - m->w[0][1]}, len[2] = {m->w[0][0], m->w[0][1]};
    const int slot0[2] = {0, m->w[0][0]};
    for (int h = 0; h < 2; h++)
        if (len[h] > 0)
            pass1_run(psi + slot0[h], u + o + start[h], 1, len[h], a + start[h],
                      b + start[h], 1, &w, R);
    float ext[CPML_CHUNK + 2 * FDW_MAX_RADIUS];
    const float *pp[FDW_MAX_RADIUS + 1], *pm[FDW_MAX_RADIUS + 1];
    for (int q = 1; q <= R; q++) {
        pp[q] = ext + R + q;
        pm[q] = ext + R - q;
    }
    for (int h = 0; h < 2; h++)
        for (int c0 = 0; c0 < len[h]; c0 += CPML_CHUNK) {
            const int n = len[h] - c0 < CPML_CHUNK ? len[h] - c0 : CPML_CHUNK;
            const int i0 = start[h] + c0;
            const int lo = i0 - R, hi = i0 + n + R; /* ext holds psi_x at x in [lo, hi) */
            if (lo >= start[h] && hi <= start[h] + len[h]) {
                memcpy(ext, psi + slot0[h] + (lo - start[h]),
                       (size_t)(n + 2 * R) * sizeof(float));
            } else if (h == 0 && hi <= nx - m->w[0][1]) { /* the high layer out of reach */
                const int a0 = lo > 0 ? lo : 0, a1 = hi < m->w[0][0] ? hi : m->w[0][0];
                memset(ext, 0, (size_t)(n + 2 * R) * sizeof(float));
                memcpy(ext + (a0 - lo), psi + a0, (size_t)(a1 - a0) * sizeof(float));
            } else {
                for (int e = 0; e < n + 2 * R; e++) {
                    const int sl = index_slot(nx, m->w[0], lo + e);
                    ext[e] = sl >= 0 ? psi[sl] : 0.0f;
                }
            }
            pass2_run(zeta + slot0[h] + c0, up + o + i0, v + o + i0, u + o + i0, 1, n,
                      a + i0, b + i0, 1, pp, pm, &w, R);
        }
}

/* The y correction of local plane k: pass 1 on every layer row, then pass 2, whose psi
 * neighbours are rows of the plane's psi_y (the zero row off the layers). */
static inline __attribute__((always_inline)) void
y_plane(const cpu_ctx *c, const cpu_cpml *m, const float *u, float *up, const float *v,
        int k, const int R)
{
    const fdw_acoustic_data *p = c->prob.kdata;
    const int nx = c->nx, ny = c->ny, nl = m->nl[1];
    const ptrdiff_t sy = c->px;
    const float *a = p->pml_a[1], *b = p->pml_b[1];
    cpml_w w;
    axis_weights(p, 1, &w);
    float *psi = m->psi[1] + (size_t)k * (size_t)nl * (size_t)nx;
    float *zeta = m->zeta[1] + (size_t)k * (size_t)nl * (size_t)nx;
    for (int s = 0; s < nl; s++) {
        const int j = slot_index(ny, m->w[1], s);
        const ptrdiff_t o = (ptrdiff_t)k * c->plane + (ptrdiff_t)j * sy;
        pass1_run(psi + (size_t)s * (size_t)nx, u + o, sy, nx, a + j, b + j, 0, &w, R);
    }
    for (int s = 0; s < nl; s++) {
        const int j = slot_index(ny, m->w[1], s);
        const ptrdiff_t o = (ptrdiff_t)k * c->plane + (ptrdiff_t)j * sy;
        const float *pp[FDW_MAX_RADIUS + 1], *pm[FDW_MAX_RADIUS + 1];
        for (int q = 1; q <= R; q++) {
            const int sp = index_slot(ny, m->w[1], j + q), sm = index_slot(ny, m->w[1], j - q);
            pp[q] = sp >= 0 ? psi + (size_t)sp * (size_t)nx : m->zero;
            pm[q] = sm >= 0 ? psi + (size_t)sm * (size_t)nx : m->zero;
        }
        pass2_run(zeta + (size_t)s * (size_t)nx, up + o, v + o, u + o, sy, nx, a + j, b + j,
                  0, pp, pm, &w, R);
    }
}

/* psi_z / zeta_z of local plane k (in a z layer), row j. */
static inline size_t z_at(const cpu_ctx *c, const cpu_cpml *m, int k, int j)
{
    return ((size_t)m->zslot[k] * (size_t)c->ny + (size_t)j) * (size_t)c->nx;
}

/* z pass 1 on row j of local layer plane k. */
static inline __attribute__((always_inline)) void
z_row_pass1(const cpu_ctx *c, const cpu_slab *s, const cpu_cpml *m, const float *u, int k,
            int j, const int R)
{
    const fdw_acoustic_data *p = c->prob.kdata;
    const int g = s->z0 + k;
    cpml_w w;
    axis_weights(p, 2, &w);
    const ptrdiff_t o = (ptrdiff_t)k * c->plane + (ptrdiff_t)j * c->px;
    pass1_run(m->psi[2] + z_at(c, m, k, j), u + o, c->plane, c->nx, p->pml_a[2] + g,
              p->pml_b[2] + g, 0, &w, R);
}

/* z pass 2 on row j of local layer plane k: psi_z rows of planes k +- m, the zero row off
 * the slab's layer planes. */
static inline __attribute__((always_inline)) void
z_row_pass2(const cpu_ctx *c, const cpu_slab *s, const cpu_cpml *m, const float *u,
            float *up, const float *v, int k, int j, const int R)
{
    const fdw_acoustic_data *p = c->prob.kdata;
    const int g = s->z0 + k;
    cpml_w w;
    axis_weights(p, 2, &w);
    const ptrdiff_t o = (ptrdiff_t)k * c->plane + (ptrdiff_t)j * c->px;
    const float *pp[FDW_MAX_RADIUS + 1], *pm[FDW_MAX_RADIUS + 1];
    for (int q = 1; q <= R; q++) {
        const int kp = k + q, km = k - q;
        pp[q] = kp < m->nzs && m->zslot[kp] >= 0 ? m->psi[2] + z_at(c, m, kp, j) : m->zero;
        pm[q] = km >= 0 && m->zslot[km] >= 0 ? m->psi[2] + z_at(c, m, km, j) : m->zero;
    }
    pass2_run(m->zeta[2] + z_at(c, m, k, j), up + o, v + o, u + o, c->plane, c->nx,
              p->pml_a[2] + g, p->pml_b[2] + g, 0, pp, pm, &w, R);
}

/* The four kinds of work for one radius, each compiled for AVX-512, AVX2 and baseline
 * x86-64 (called from the OpenMP loops of cpu_cpml_planes, so the clones hold the whole
 * inner work). */
typedef struct cpml_fns {
    void (*x_row)(const cpu_ctx *, const cpu_cpml *, const float *, float *, const float *,
                  int, int);
    void (*y_plane)(const cpu_ctx *, const cpu_cpml *, const float *, float *, const float *,
                    int);
    void (*z_pass1)(const cpu_ctx *, const cpu_slab *, const cpu_cpml *, const float *, int,
                    int);
    void (*z_pass2)(const cpu_ctx *, const cpu_slab *, const cpu_cpml *, const float *,
                    float *, const float *, int, int);
} cpml_fns;

#define FDW_CPML_FNS(R)                                                                 \
    FDW_CPU_CLONES static void x_row_r##R(const cpu_ctx *c, const cpu_cpml *m,          \
                                          const float *u, float *up, const float *v,    \
                                          int k, int j)                                 \
    {                                                                                   \
        x_row(c, m, u, up, v, k, j, R);                                                 \
    }                                                                                   \
    FDW_CPU_CLONES static void y_plane_r##R(const cpu_ctx *c, const cpu_cpml *m,        \
                                            const float *u, float *up, const float *v,  \
                                            int k)                                      \
    {                                                                                   \
        y_plane(c, m, u, up, v, k, R);                                                  \
    }                                                                                   \
    FDW_CPU_CLONES static void z_pass1_r##R(const cpu_ctx *c, const cpu_slab *s,        \
                                            const cpu_cpml *m, const float *u, int k,   \
                                            int j)                                      \
    {                                                                                   \
        z_row_pass1(c, s, m, u, k, j, R);                                               \
    }                                                                                   \
    FDW_CPU_CLONES static void z_pass2_r##R(const cpu_ctx *c, const cpu_slab *s,        \
                                            const cpu_cpml *m, const float *u,          \
                                            float *up, const float *v, int k, int j)    \
    {                                                                                   \
        z_row_pass2(c, s, m, u, up, v, k, j, R);                                        \
    }
FDW_CPML_FNS(1)
FDW_CPML_FNS(2)
FDW_CPML_FNS(3)
FDW_CPML_FNS(4)
FDW_CPML_FNS(5)
FDW_CPML_FNS(6)
FDW_CPML_FNS(7)
FDW_CPML_FNS(8)

#define FDW_CPML_ENTRY(R) {x_row_r##R, y_plane_r##R, z_pass1_r##R, z_pass2_r##R}
static const cpml_fns CPML_FNS[FDW_MAX_RADIUS + 1] = {
    {NULL, NULL, NULL, NULL}, FDW_CPML_ENTRY(1), FDW_CPML_ENTRY(2), FDW_CPML_ENTRY(3),
    FDW_CPML_ENTRY(4),        FDW_CPML_ENTRY(5), FDW_CPML_ENTRY(6), FDW_CPML_ENTRY(7),
    FDW_CPML_ENTRY(8)};

/* x and z pass 1 (which writes psi_z only) run together; y adds to u' after x at the same
 * points, so it waits for both; z pass 2 adds after y and reads psi_z of other planes, so
 * it waits for y (the loop's barrier). Little work (thin ranges, small grids): one thread,
 * no fork and join. */
void cpu_cpml_planes(const cpu_ctx *c, const cpu_slab *s, const cpu_cpml *m,
                     const float *vdt2, int ka, int kb)
{
    if (!m || ka >= kb || c->r < 1 || c->r > FDW_MAX_RADIUS)
        return;
    const cpml_fns *f = &CPML_FNS[c->r];
    const float *u = cpu_base(c, s, c->cur);
    float *up = cpu_base(c, s, 1 - c->cur);
    const float *v = vdt2 + (c->origin - (ptrdiff_t)c->r * c->plane);
    const int ny = c->ny;
    /* z: the range's layer planes (whole layers, see cpu_cpml.h) */
    int za = ka, zb = kb;
    while (za < zb && m->zslot[za] < 0)
        za++;
    while (zb > za && m->zslot[zb - 1] < 0)
        zb--;
    int nkz = 0;
    for (int k = za; k < zb; k++)
        nkz += m->zslot[k] >= 0;
    const int nkx = m->nl[0] > 0 ? kb - ka : 0, nky = m->nl[1] > 0 ? kb - ka : 0;
    const long work = (long)nkx * ny * m->nl[0] + (long)nky * m->nl[1] * c->nx +
                      (long)nkz * ny * c->nx;
#pragma omp parallel if (work > 32768)
    {
        if (nkx > 0) {
#pragma omp for schedule(dynamic, 16) collapse(2) nowait
            for (int k = ka; k < kb; k++)
                for (int j = 0; j < ny; j++)
                    f->x_row(c, m, u, up, v, k, j);
        }
        if (nkz > 0) {
#pragma omp for schedule(dynamic, 4) collapse(2) nowait
            for (int k = za; k < zb; k++)
                for (int j = 0; j < ny; j++)
                    if (m->zslot[k] >= 0) /* one slab may hold both z layers */
                        f->z_pass1(c, s, m, u, k, j);
        }
#pragma omp barrier
        if (nky > 0) {
#pragma omp for schedule(dynamic, 1)
            for (int k = ka; k < kb; k++)
                f->y_plane(c, m, u, up, v, k);
        }
        if (nkz > 0) {
#pragma omp for schedule(dynamic, 4) collapse(2)
            for (int k = za; k < zb; k++)
                for (int j = 0; j < ny; j++)
                    if (m->zslot[k] >= 0)
                        f->z_pass2(c, s, m, u, up, v, k, j);
        }
    }
}
