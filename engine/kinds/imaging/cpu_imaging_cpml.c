/* cpu_imaging_cpml.c — the CPU engine's CPML (imaging_cpml.h): the acoustic kind's
 * forward recursion with the operations of cpu_cpml.c in its order (so the imaging
 * kinds' forward fields are the acoustic kind's bits), its layer term, and the exact
 * transpose of the step. Work goes by lines along each axis, every line of an axis in
 * parallel; the transposed step's three passes (chi, phi, then the band's terms) each
 * read only the line's values of the pass before. Every point is computed in a fixed
 * order of float operations that kernels/imaging/img_cpml.cu repeats (no contraction in
 * either build), so the GPU gives these bits. */
#include "kinds/imaging/imaging_cpml.h"

/* One line along an axis: the field offset of its global index 0 and the stride; the
 * compact offset of its layer index 0 and the stride; held: the line lies in plane 0
 * under a free surface (x, y). */
typedef struct line {
    ptrdiff_t base, st;
    size_t pbase, pst;
    int held;
} line;

static line line_of(const img_pml *g, int a, size_t q)
{
    const img_pml_axis *x = &g->ax[a];
    line ln;
    if (a == 0) { /* q = k ny + j */
        const size_t k = q / (size_t)g->ny, j = q % (size_t)g->ny;
        ln = (line){(ptrdiff_t)k * g->plane + (ptrdiff_t)j * g->pitch, 1, q * (size_t)x->W, 1,
                    g->fs && k == 0};
    } else if (a == 1) { /* q = k nx + i */
        const size_t k = q / (size_t)g->nx, i = q % (size_t)g->nx;
        ln = (line){(ptrdiff_t)k * g->plane + (ptrdiff_t)i, g->pitch,
                    k * (size_t)x->W * (size_t)g->nx + i, (size_t)g->nx, g->fs && k == 0};
    } else { /* q = j nx + i */
        const size_t j = q / (size_t)g->nx, i = q % (size_t)g->nx;
        ln = (line){(ptrdiff_t)j * g->pitch + (ptrdiff_t)i, g->plane, q,
                    (size_t)g->nx * (size_t)g->ny, 0};
    }
    return ln;
}

/* Whether the point at global index i of the line is held at 0 (plane 0, free surface). */
static inline int held(const img_pml *g, int a, const line *ln, int i)
{
    return ln->held || (a == 2 && g->fs && i == 0);
}

static inline int index_of(const img_pml_axis *x, int l)
{
    return l < x->w0 ? l : x->n - x->w1 + (l - x->w0);
}

/* Layer index of global index i, or -1 (interior, or off the grid). */
static inline int slot_of(const img_pml_axis *x, int i)
{
    if (i < 0 || i >= x->n)
        return -1;
    if (i < x->w0)
        return i;
    if (i >= x->n - x->w1)
        return x->w0 + (i - (x->n - x->w1));
    return -1;
}

/* What the sums below take at global index i of the line, 0 off the layers:
 * PLAIN v, SCALED a v, PLUS_FIELD f + a v (v a compact array, f a field). */
enum { PLAIN, SCALED, PLUS_FIELD };

static inline float tilde(const img_pml_axis *x, const line *ln, const float *v,
                          const float *f, int i, const int how)
{
    const int s = slot_of(x, i);
    if (s < 0)
        return 0.0f;
    const float w = v[ln->pbase + (size_t)s * ln->pst];
    return how == PLAIN ? w : how == SCALED ? x->a[i] * w : f[ln->base + (ptrdiff_t)i * ln->st] + x->a[i] * w;
}

/* D1 of the layer values at i: (d1[1] (t(i+1) - t(i-1)) + d1[2] (t(i+2) - t(i-2))) + ... */
static inline float layer_d1(const img_pml_axis *x, const line *ln, const float *v,
                             const float *f, int i, const int how, int R)
{
    float d = x->d1[1] * (tilde(x, ln, v, f, i + 1, how) - tilde(x, ln, v, f, i - 1, how));
    for (int m = 2; m <= R; m++)
        d = d + x->d1[m] * (tilde(x, ln, v, f, i + m, how) - tilde(x, ln, v, f, i - m, how));
    return d;
}

/* D2 of the layer values at i: (d2[0] t(i) + d2[1] (t(i-1) + t(i+1))) + ... */
static inline float layer_d2(const img_pml_axis *x, const line *ln, const float *v, int i,
                             int R)
{
    float d = x->d2[0] * tilde(x, ln, v, NULL, i, SCALED);
    for (int m = 1; m <= R; m++)
        d = d + x->d2[m] * (tilde(x, ln, v, NULL, i - m, SCALED) +
                            tilde(x, ln, v, NULL, i + m, SCALED));
    return d;
}

/* The forward step on one line (cpu_cpml.c's pass 1, then pass 2). */
static void forward_line(const img_pml *g, int a, const line *ln, float *psi, float *zeta,
                         const float *u, float *up, const float *v)
{
    const img_pml_axis *x = &g->ax[a];
    const int R = g->r;
    const ptrdiff_t st = ln->st;
    for (int l = 0; l < x->W; l++) {
        const int i = index_of(x, l);
        const float *c = u + ln->base + (ptrdiff_t)i * st;
        float t = x->d1[1] * (c[st] - c[-st]);
        for (int m = 2; m <= R; m++)
            t = t + x->d1[m] * (c[m * st] - c[-m * st]);
        float *p = psi + ln->pbase + (size_t)l * ln->pst;
        *p = x->b[i] * *p + x->a[i] * t;
    }
    for (int l = 0; l < x->W; l++) {
        const int i = index_of(x, l);
        const ptrdiff_t o = ln->base + (ptrdiff_t)i * st;
        const float gp = layer_d1(x, ln, psi, NULL, i, PLAIN, R);
        float d2 = x->d2[0] * u[o];
        for (int m = 1; m <= R; m++)
            d2 = d2 + x->d2[m] * (u[o - m * st] + u[o + m * st]);
        float *zp = zeta + ln->pbase + (size_t)l * ln->pst;
        const float z = x->b[i] * *zp + x->a[i] * (d2 + gp);
        *zp = z;
        if (!held(g, a, ln, i))
            up[o] = up[o] + v[o] * (gp + z);
    }
}

/* The transposed step on one line: chi, then phi, then the band's terms. */
static void adjoint_line(const img_pml *g, int a, const line *ln, float *chi, float *phi,
                         const float *zf, float *up, const float *v)
{
    const img_pml_axis *x = &g->ax[a];
    const int R = g->r;
    for (int l = 0; l < x->W; l++) {
        const int i = index_of(x, l);
        float *c = chi + ln->pbase + (size_t)l * ln->pst;
        *c = x->b[i] * *c + zf[ln->base + (ptrdiff_t)i * ln->st];
    }
    for (int l = 0; l < x->W; l++) {
        const int i = index_of(x, l);
        float *p = phi + ln->pbase + (size_t)l * ln->pst;
        *p = x->b[i] * *p - layer_d1(x, ln, chi, zf, i, PLUS_FIELD, R);
    }
    const int nb = x->blo + (x->n - x->bhi);
    for (int t = 0; t < nb; t++) {
        const int i = t < x->blo ? t : x->bhi + (t - x->blo);
        if (held(g, a, ln, i))
            continue;
        const float corr = layer_d2(x, ln, chi, i, R) - layer_d1(x, ln, phi, NULL, i, SCALED, R);
        const ptrdiff_t o = ln->base + (ptrdiff_t)i * ln->st;
        up[o] = up[o] + v[o] * corr;
    }
}

/* A step's terms, every line of each axis in turn: the forward recursion or its
 * transpose (set: psi and zeta, or chi and phi; f: u or z). */
static void step_terms(const img_pml *g, float *set, const float *f, float *up,
                       const float *v, int adjoint)
{
    for (int a = 0; a < 3; a++) {
        const img_pml_axis *x = &g->ax[a];
        if (x->W == 0)
            continue;
        float *first = set + 2 * x->off, *second = first + x->count;
#pragma omp parallel for schedule(static) if (x->count > 8192)
        for (size_t q = 0; q < x->lines; q++) {
            const line ln = line_of(g, a, q);
            if (adjoint)
                adjoint_line(g, a, &ln, first, second, f, up, v);
            else
                forward_line(g, a, &ln, first, second, f, up, v);
        }
    }
}

void img_pml_forward(const img_pml *g, float *set, const float *u, float *up, const float *v)
{
    step_terms(g, set, u, up, v, 0);
}

void img_pml_adjoint(const img_pml *g, float *set, const float *z, float *up, const float *v)
{
    step_terms(g, set, z, up, v, 1);
}

void img_pml_term(const img_pml *g, const float *set, float *term)
{
    for (int a = 0; a < 3; a++) {
        const img_pml_axis *x = &g->ax[a];
        if (x->W == 0)
            continue;
        const float *psi = set + 2 * x->off, *zeta = psi + x->count;
        float *c = term + x->off;
#pragma omp parallel for schedule(static) if (x->count > 8192)
        for (size_t q = 0; q < x->lines; q++) {
            const line ln = line_of(g, a, q);
            for (int l = 0; l < x->W; l++) {
                const size_t pl = ln.pbase + (size_t)l * ln.pst;
                c[pl] = layer_d1(x, &ln, psi, NULL, index_of(x, l), PLAIN, g->r) + zeta[pl];
            }
        }
    }
}

void img_pml_apply(const img_pml *g, const float *term, const float *f, float *dst)
{
    for (int a = 0; a < 3; a++) {
        const img_pml_axis *x = &g->ax[a];
        if (x->W == 0)
            continue;
        const float *c = term + x->off;
#pragma omp parallel for schedule(static) if (x->count > 8192)
        for (size_t q = 0; q < x->lines; q++) {
            const line ln = line_of(g, a, q);
            for (int l = 0; l < x->W; l++) {
                const int i = index_of(x, l);
                if (held(g, a, &ln, i))
                    continue;
                const ptrdiff_t o = ln.base + (ptrdiff_t)i * ln.st;
                dst[o] = dst[o] + f[o] * c[ln.pbase + (size_t)l * ln.pst];
            }
        }
    }
}

