/* ete_stability.c — the extreme eigenvalues of the assembled ETE operator on a job's model
 * (ete_stability.h says why and what), by Lanczos in the inner product sum x y / alpha,
 * in which L = diag(alpha) Q is self-adjoint. Plain Lanczos (no reorthogonalisation:
 * four vectors whatever the step count) finds the ends of the spectrum reliably; lost
 * orthogonality only repeats converged Ritz values inside it. The tridiagonal matrix's
 * extreme eigenvalues come from Sturm-sequence bisection, and the residual of each from
 * the last component of its eigenvector. */
#include "kinds/ete/ete_stability.h"
#include "core/error.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ITER 300
#define CHECK_EVERY 10

/* The 36 neighbours of the stencil and their slots (ete_fit.h). */
typedef struct nb {
    int dx, dy, dz, s;
} nb;
static const nb NB[36] = {
    {-1, 0, 0, 1},   {1, 0, 0, 1},   {-2, 0, 0, 2},   {2, 0, 0, 2},   {-3, 0, 0, 3},
    {3, 0, 0, 3},    {-4, 0, 0, 4},  {4, 0, 0, 4},    {0, -1, 0, 5},  {0, 1, 0, 5},
    {0, -2, 0, 6},   {0, 2, 0, 6},   {0, -3, 0, 7},   {0, 3, 0, 7},   {0, -4, 0, 8},
    {0, 4, 0, 8},    {0, 0, -1, 9},  {0, 0, 1, 9},    {0, 0, -2, 10}, {0, 0, 2, 10},
    {0, 0, -3, 11},  {0, 0, 3, 11},  {0, 0, -4, 12},  {0, 0, 4, 12},  {-1, -1, 0, 13},
    {1, -1, 0, 13},  {-1, 1, 0, 13}, {1, 1, 0, 13},   {-1, 0, -1, 14}, {1, 0, -1, 14},
    {-1, 0, 1, 14},  {1, 0, 1, 14},  {0, -1, -1, 15}, {0, 1, -1, 15}, {0, -1, 1, 15},
    {0, 1, 1, 15}};

/* The check's grid: the model's with 4 ghost points on every side (the stencil's radius),
 * so every grid point's neighbours are in the arrays. Vectors are 0 in the ghost points,
 * but for the mirror planes above a free surface, refreshed before each application. */
typedef struct padded {
    const ete_grid *g;
    int px, py, pz;            /* padded sizes */
    size_t n;                  /* px * py * pz */
    ptrdiff_t off[36];         /* neighbour offsets */
    int pos[18];               /* the neighbours of positive offset */
    uint16_t *bin;             /* every padded point's bin */
    double *w8;                /* 1 / alpha at grid points, 0 in the ghost points */
    /* The pair weights, when they fit in PAIR_BYTES: pair[q][t] is that of point t and
     * its neighbour t + off[q], for the 18 neighbours q of positive offset (their mirror
     * images reuse them from the other end), so a row reads them without gathers. */
    float *pair;
} padded;

#define PAIR_BYTES ((size_t)1 << 31)

#define GH 4                   /* ghost depth */

static size_t at(const padded *q, int i, int j, int k)
{
    return ((size_t)(k + GH) * (size_t)q->py + (size_t)(j + GH)) * (size_t)q->px +
           (size_t)(i + GH);
}

static int clampi(int v, int n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* The bins of the padded grid: outside the grid the nearest grid point's, above a free
 * surface the mirror image's; and the weights. */
static void pad_fill(padded *q, const fdw_ete_data *d)
{
    const ete_grid *g = q->g;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = -GH; k < g->nz + GH; k++)
        for (int j = -GH; j < g->ny + GH; j++)
            for (int i = -GH; i < g->nx + GH; i++) {
                const int km = g->free_surface && k < 0 ? -k : k;
                const size_t o = ((size_t)clampi(km, g->nz) * g->ny + (size_t)clampi(j, g->ny)) *
                                     g->nx + (size_t)clampi(i, g->nx);
                const size_t t = at(q, i, j, k);
                const int in = i >= 0 && i < g->nx && j >= 0 && j < g->ny && k >= 0 && k < g->nz;
                q->bin[t] = d->idx[o];
                q->w8[t] = in && !(g->free_surface && k == 0)
                               ? 1.0 / (double)d->table[(size_t)d->idx[o] * ETE_TABLE_STRIDE]
                               : 0.0;
            }
}

/* Above a free surface the field is odd across plane 0: ghost plane -m holds minus plane m. */
static void pad_mirror(const padded *q, double *v)
{
    if (!q->g->free_surface)
        return;
    const size_t plane = (size_t)q->px * (size_t)q->py;
    for (int m = 1; m <= GH; m++) {
        const double *src = v + at(q, -GH, -GH, m < q->g->nz ? m : q->g->nz - 1);
        double *dst = v + at(q, -GH, -GH, -m);
        const double sign = m < q->g->nz ? -1.0 : 0.0;
        for (size_t t = 0; t < plane; t++)
            dst[t] = sign * src[t];
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ROW_CLONES
#endif

/* L p over n points from padded position o: neighbour by neighbour over the row, so the
 * table reads vectorise as gathers. */
ROW_CLONES static void apply_row(const padded *q, const float *table, const double *p,
                                 double *lp, size_t o, int n)
{
    const uint16_t *idx = q->bin + o;
    const double *pc = p + o;
    double *out = lp + o;
    for (int i = 0; i < n; i++)
        out[i] = 0.0;
    for (int c = 0; c < 36; c++) {
        const uint16_t *bn = idx + q->off[c];
        const double *pn = pc + q->off[c];
        const int s = NB[c].s;
        for (int i = 0; i < n; i++) {
            const unsigned b0 = idx[i], bj = bn[i];
            const unsigned b = bj > b0 ? bj : b0;
            out[i] += (double)table[(int)b * ETE_TABLE_STRIDE + s] * (pn[i] - pc[i]);
        }
    }
    for (int i = 0; i < n; i++)
        out[i] *= (double)table[(int)idx[i] * ETE_TABLE_STRIDE];
}

/* The same from the pair weights: neighbour pair by pair over the row. */
ROW_CLONES static void apply_row_pairs(const padded *q, const float *table, const double *p, double *lp,
                            size_t o, int n)
{
    const double *pc = p + o;
    double *out = lp + o;
    for (int i = 0; i < n; i++)
        out[i] = 0.0;
    for (int c = 0; c < 18; c++) {
        const ptrdiff_t f = q->off[q->pos[c]];
        const float *wf = q->pair + (size_t)c * q->n + o, *wb = wf - f;
        for (int i = 0; i < n; i++)
            out[i] += (double)wf[i] * (pc[i + f] - pc[i]) + (double)wb[i] * (pc[i - f] - pc[i]);
    }
    const uint16_t *idx = q->bin + o;
    for (int i = 0; i < n; i++)
        out[i] *= (double)table[(int)idx[i] * ETE_TABLE_STRIDE];
}

/* lp = L p at every grid point (p's mirror planes refreshed first); lp's ghost points
 * are left alone. */
static void pad_apply(const padded *q, const fdw_ete_data *d, double *p, double *lp)
{
    const ete_grid *g = q->g;
    pad_mirror(q, p);
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++) {
            const size_t o = at(q, 0, j, k);
            if (g->free_surface && k == 0) {
                for (int i = 0; i < g->nx; i++)
                    lp[o + i] = 0.0;
                continue;
            }
            if (q->pair)
                apply_row_pairs(q, d->table, p, lp, o, g->nx);
            else
                apply_row(q, d->table, p, lp, o, g->nx);
        }
}

static void pad_free(padded *q)
{
    free(q->bin);
    free(q->w8);
    free(q->pair);
}

/* The pair weights of pair[] (where both ends lie in the padded grid). */
static void pad_pairs(padded *q, const float *table)
{
    for (int c = 0; c < 18; c++) {
        const ptrdiff_t f = q->off[q->pos[c]];
        const int s = NB[q->pos[c]].s;
        float *w = q->pair + (size_t)c * q->n;
#pragma omp parallel for schedule(static)
        for (size_t t = 0; t < q->n; t++) {
            const ptrdiff_t u = (ptrdiff_t)t + f;
            if (u < 0 || u >= (ptrdiff_t)q->n) {
                w[t] = 0.0f;
                continue;
            }
            const unsigned a = q->bin[t], b = q->bin[u];
            w[t] = table[(a > b ? a : b) * ETE_TABLE_STRIDE + s];
        }
    }
}

static int pad_init(padded *q, const ete_grid *g, const fdw_ete_data *d)
{
    memset(q, 0, sizeof *q);
    q->g = g;
    q->px = g->nx + 2 * GH, q->py = g->ny + 2 * GH, q->pz = g->nz + 2 * GH;
    q->n = (size_t)q->px * (size_t)q->py * (size_t)q->pz;
    for (int c = 0, m = 0; c < 36; c++) {
        q->off[c] = NB[c].dx + (ptrdiff_t)NB[c].dy * q->px +
                    (ptrdiff_t)NB[c].dz * q->px * q->py;
        if (q->off[c] > 0)
            q->pos[m++] = c;
    }
    q->bin = malloc(q->n * sizeof *q->bin);
    q->w8 = malloc(q->n * sizeof *q->w8);
    if (!q->bin || !q->w8) {
        pad_free(q);
        return -1;
    }
    pad_fill(q, d);
    if (q->n * 18 * sizeof(float) <= PAIR_BYTES && (q->pair = malloc(q->n * 18 * sizeof(float))))
        pad_pairs(q, d->table);
    return 0;
}

void fdw_ete_apply(const ete_grid *g, const fdw_ete_data *d, const double *p, double *lp)
{
    padded q;
    double *pp = NULL, *lpp = NULL;
    if (pad_init(&q, g, d) == 0) {
        pp = calloc(q.n, sizeof *pp);
        lpp = calloc(q.n, sizeof *lpp);
    }
    if (!pp || !lpp) { /* (a test's helper: no error path) */
        free(pp), free(lpp), pad_free(&q);
        return;
    }
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            memcpy(pp + at(&q, 0, j, k), p + ((size_t)k * g->ny + j) * g->nx,
                   (size_t)g->nx * sizeof *p);
    pad_apply(&q, d, pp, lpp);
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            memcpy(lp + ((size_t)k * g->ny + j) * g->nx, lpp + at(&q, 0, j, k),
                   (size_t)g->nx * sizeof *lp);
    free(pp), free(lpp), pad_free(&q);
}

/* Eigenvalues of the symmetric tridiagonal T (diagonal a[0..k), off-diagonal b[0..k-1))
 * below x. */
static int sturm_count(const double *a, const double *b, int k, double x)
{
    int count = 0;
    double q = 1.0;
    for (int j = 0; j < k; j++) {
        q = a[j] - x - (j > 0 ? b[j - 1] * b[j - 1] / q : 0.0);
        if (q == 0.0)
            q = -1e-300; /* x on an eigenvalue of a leading block: count it below */
        if (q < 0.0)
            count++;
    }
    return count;
}

/* The m-th smallest eigenvalue of T (m = 0 .. k-1) by bisection inside its Gershgorin
 * interval. */
static double tri_eigen(const double *a, const double *b, int k, int m)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < k; j++) {
        const double r = (j > 0 ? fabs(b[j - 1]) : 0.0) + (j < k - 1 ? fabs(b[j]) : 0.0);
        lo = fmin(lo, a[j] - r);
        hi = fmax(hi, a[j] + r);
    }
    for (int it = 0; it < 200 && hi - lo > 1e-15 * fmax(1.0, fabs(lo) + fabs(hi)); it++) {
        const double mid = 0.5 * (lo + hi);
        if (sturm_count(a, b, k, mid) > m)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* |last component| of the unit eigenvector of T for eigenvalue theta, from the
 * three-term recurrence (rescaled as it goes, so it cannot overflow). */
static double last_component(const double *a, const double *b, int k, double theta)
{
    double ym = 0.0, y = 1.0, norm2 = 1.0;
    for (int j = 0; j < k - 1; j++) {
        if (b[j] == 0.0)
            return 0.0; /* T splits: theta's vector lives in an earlier block */
        const double yn = ((theta - a[j]) * y - (j > 0 ? b[j - 1] * ym : 0.0)) / b[j];
        ym = y;
        y = yn;
        norm2 += y * y;
        if (norm2 > 1e200) {
            const double s = 1.0 / sqrt(norm2);
            y *= s;
            ym *= s;
            norm2 = 1.0;
        }
    }
    return fabs(y) / sqrt(norm2);
}

/* A reproducible start vector: uniform in [-1, 1] from a counter hash. */
static double start_value(size_t i)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* sum x y w over n points */
static double dotw(const double *x, const double *y, const double *w, size_t n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; i++)
        s += x[i] * y[i] * w[i];
    return s;
}

/* ---- layered models: plane waves along x and y ---- */

#define BW 4                   /* the z line's band: planes up to 4 apart couple */
#define SAMPLES 24             /* wavenumber intervals over [0, pi] per axis */
#define BISECT_TOL 1e-10

/* A layered model's bins, one per plane (zb[k]), or 0 when some plane holds two. */
static int layered_bins(const ete_grid *g, const fdw_ete_data *d, uint16_t *zb)
{
    const size_t plane = (size_t)g->nx * (size_t)g->ny;
    for (int k = 0; k < g->nz; k++) {
        const uint16_t *p = d->idx + (size_t)k * plane;
        zb[k] = p[0];
        for (size_t i = 1; i < plane; i++)
            if (p[i] != p[0])
                return 0;
    }
    return 1;
}

/* The operator on the z line for the plane wave exp(i (tx x + ty y)), symmetrised:
 * S = A^1/2 Q A^1/2 over the unknown planes (plane 0 held at 0 under a free surface is
 * none), band[r * (BW + 1) + o] = S[r][r + o]. The neighbours outside the grid in z hold
 * 0, above a free surface minus the mirror plane's value (with its bin). */
static void line_matrix(const ete_grid *g, const fdw_ete_data *d, const uint16_t *zb,
                        double tx, double ty, double *band)
{
    const int k0 = g->free_surface ? 1 : 0, n = g->nz - k0;
    memset(band, 0, (size_t)n * (BW + 1) * sizeof *band);
    for (int k = k0; k < g->nz; k++) {
        const unsigned bk = zb[k];
        const double ak = d->table[bk * ETE_TABLE_STRIDE];
        for (int c = 0; c < 36; c++) {
            const int kn = k + NB[c].dz, m = kn < 0 && g->free_surface ? -kn : kn;
            if (m < 0 || m >= g->nz) { /* 0 outside: the pair's weight of the nearest plane */
                const unsigned b = zb[m < 0 ? 0 : g->nz - 1];
                band[(k - k0) * (BW + 1)] -= ak * d->table[(b > bk ? b : bk) * ETE_TABLE_STRIDE + NB[c].s];
                continue;
            }
            const unsigned b = zb[m] > bk ? zb[m] : bk;
            const double w = d->table[b * ETE_TABLE_STRIDE + NB[c].s];
            band[(k - k0) * (BW + 1)] -= ak * w; /* the -p term */
            if (m < k0)                          /* plane 0 under a free surface: held at 0 */
                continue;
            const double phase = cos(tx * NB[c].dx + ty * NB[c].dy);
            const double sign = kn < 0 ? -1.0 : 1.0;
            const double am = d->table[zb[m] * ETE_TABLE_STRIDE];
            const int lo = (k < m ? k : m) - k0, o = abs(m - k);
            /* S[k][m] += sqrt(ak am) w phase sign; each unordered pair once per side */
            const double v = sqrt(ak * am) * w * phase * sign;
            band[lo * (BW + 1) + o] += o == 0 ? v : 0.5 * v;
        }
    }
}

/* Whether sign (S - x I) is positive definite (banded Cholesky, no pivoting needed). */
static int definite(const double *band, int n, double x, double sign, double *work)
{
    /* work: the factor's rows, band layout */
    for (int r = 0; r < n; r++) {
        for (int o = 0; o <= BW; o++) {
            if (r + o >= n) {
                work[r * (BW + 1) + o] = 0.0;
                continue;
            }
            double v = sign * (band[r * (BW + 1) + o] - (o == 0 ? x : 0.0));
            for (int q = 1; q <= BW - o && q <= r; q++) /* rows r - q above */
                v -= work[(r - q) * (BW + 1) + q] * work[(r - q) * (BW + 1) + q + o];
            if (o == 0) {
                if (!(v > 0.0))
                    return 0;
                work[r * (BW + 1)] = sqrt(v);
            } else {
                work[r * (BW + 1) + o] = v / work[r * (BW + 1)];
            }
        }
    }
    return 1;
}

/* The smallest (sign 1) or minus the largest (sign -1) eigenvalue of S by bisection. */
static double line_extreme(const double *band, int n, double sign, double *work)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < n; r++) { /* Gershgorin */
        double off = 0.0;
        for (int o = 1; o <= BW; o++) {
            if (r + o < n)
                off += fabs(band[r * (BW + 1) + o]);
            if (r - o >= 0)
                off += fabs(band[(r - o) * (BW + 1) + o]);
        }
        lo = fmin(lo, sign * band[r * (BW + 1)] - off);
        hi = fmax(hi, sign * band[r * (BW + 1)] + off);
    }
    while (hi - lo > BISECT_TOL) { /* sign S - mid I definite: all above mid */
        const double mid = 0.5 * (lo + hi);
        if (definite(band, n, sign * mid, sign, work))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The extreme eigenvalue (sign 1: smallest; -1: minus the largest) at wavenumbers t. */
static double at_wavenumber(const ete_grid *g, const fdw_ete_data *d, const uint16_t *zb,
                            const double t[2], double sign, double *band, double *work)
{
    const int n = g->nz - (g->free_surface ? 1 : 0);
    line_matrix(g, d, zb, t[0], t[1], band);
    return line_extreme(band, n, sign, work);
}

/* The smallest value of at_wavenumber over [0, pi]^2: the best of a grid, then pattern
 * search from the few best grid points with steps shrinking to 1e-7. */
static double layered_extreme(const ete_grid *g, const fdw_ete_data *d, const uint16_t *zb,
                              double sign, double *band, double *work)
{
    const double h = M_PI / SAMPLES;
    double grid[(SAMPLES + 1) * (SAMPLES + 1)];
    for (int a = 0; a <= SAMPLES; a++)
        for (int b = 0; b <= SAMPLES; b++) {
            const double t[2] = {a * h, b * h};
            grid[a * (SAMPLES + 1) + b] = at_wavenumber(g, d, zb, t, sign, band, work);
        }
    double best = INFINITY;
    for (int pass = 0; pass < 4; pass++) { /* the four smallest grid values */
        int at = -1;
        for (int q = 0; q < (SAMPLES + 1) * (SAMPLES + 1); q++)
            if (!isnan(grid[q]) && (at < 0 || grid[q] < grid[at]))
                at = q;
        if (at < 0)
            break;
        double t[2] = {(at / (SAMPLES + 1)) * h, (at % (SAMPLES + 1)) * h}, v = grid[at];
        grid[at] = NAN;
        for (double step = h; step > 1e-7; step *= 0.5) {
            int moved = 1;
            while (moved) {
                moved = 0;
                for (int c = 0; c < 4; c++) {
                    double u[2] = {t[0], t[1]};
                    u[c / 2] += c % 2 ? step : -step;
                    u[c / 2] = fmin(fmax(u[c / 2], 0.0), M_PI);
                    const double w = at_wavenumber(g, d, zb, u, sign, band, work);
                    if (w < v) {
                        v = w, t[0] = u[0], t[1] = u[1];
                        moved = 1;
                    }
                }
            }
        }
        best = fmin(best, v);
    }
    return best;
}

/* The check of a layered model (ete_stability.h); 0, or -1 when its bins vary in a plane
 * (or memory is short): then Lanczos. */
static int layered_spectrum(const ete_grid *g, const fdw_ete_data *d, ete_spectrum *out)
{
    uint16_t *zb = malloc((size_t)g->nz * sizeof *zb);
    double *band = malloc((size_t)g->nz * (BW + 1) * sizeof *band);
    double *work = malloc((size_t)g->nz * (BW + 1) * sizeof *work);
    int rc = -1;
    if (zb && band && work && g->nz > 1 && layered_bins(g, d, zb)) {
        out->method = ETE_SPECTRUM_LAYERED;
        out->lmin = layered_extreme(g, d, zb, 1.0, band, work);
        out->lmax = -layered_extreme(g, d, zb, -1.0, band, work);
        out->rmin = out->rmax = BISECT_TOL;
        rc = 0;
    }
    free(zb), free(band), free(work);
    return rc;
}

fdw_status fdw_ete_spectrum(const ete_grid *g, const fdw_ete_data *d, int max_iter, double tol,
                            ete_spectrum *out, fdw_error *err)
{
    memset(out, 0, sizeof *out);
    const double t0 = omp_get_wtime();
    if (layered_spectrum(g, d, out) == 0) {
        out->seconds = omp_get_wtime() - t0;
        return FDW_OK;
    }
    return fdw_ete_lanczos(g, d, max_iter, tol, out, err);
}

fdw_status fdw_ete_lanczos(const ete_grid *g, const fdw_ete_data *d, int max_iter, double tol,
                           ete_spectrum *out, fdw_error *err)
{
    memset(out, 0, sizeof *out);
    const double t0 = omp_get_wtime();
    if (max_iter <= 0)
        max_iter = DEFAULT_ITER;
    padded q;
    const int ok = pad_init(&q, g, d) == 0;
    const size_t n = q.n;
    double *v = ok ? calloc(n, sizeof *v) : NULL, *vp = ok ? calloc(n, sizeof *vp) : NULL;
    double *w = ok ? calloc(n, sizeof *w) : NULL;
    double *a = malloc((size_t)max_iter * sizeof *a), *b = malloc((size_t)max_iter * sizeof *b);
    if (!ok || !v || !vp || !w || !a || !b) {
        free(v), free(vp), free(w), free(a), free(b);
        if (ok)
            pad_free(&q);
        return fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for the ETE stability "
                        "check (%.1f MiB)", (double)n * 34.0 / 1048576.0);
    }
    const double *w8 = q.w8;
    /* the start vector: reproducible noise at the grid points (0 where w8 is) */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        v[i] = w8[i] > 0.0 ? start_value(i) : 0.0;
    const double s0 = 1.0 / sqrt(dotw(v, v, w8, n));
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        v[i] *= s0;
    double beta = 0.0;
    for (int k = 0; k < max_iter; k++) {
        pad_apply(&q, d, v, w);
        const double alpha = dotw(w, v, w8, n);
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            w[i] = w8[i] > 0.0 ? w[i] - (alpha * v[i] + beta * vp[i]) : 0.0;
        a[k] = alpha;
        beta = sqrt(dotw(w, w, w8, n));
        b[k] = beta;
        const int m = k + 1;
        const int last = m == max_iter || beta == 0.0;
        if (m % CHECK_EVERY == 0 || last) {
            const double lmin = tri_eigen(a, b, m, 0), lmax = tri_eigen(a, b, m, m - 1);
            const double rmin = beta * last_component(a, b, m, lmin);
            const double rmax = beta * last_component(a, b, m, lmax);
            const int settled = fabs(lmin - out->lmin) <= tol && fabs(lmax - out->lmax) <= tol;
            out->lmin = lmin, out->lmax = lmax, out->rmin = rmin, out->rmax = rmax;
            out->iterations = m;
            if (last || (rmin <= tol && rmax <= tol && settled) || !fdw_ete_spectrum_stable(out))
                break;
        }
        const double inv = 1.0 / beta;
        double *t = vp;
        vp = v;
        v = t;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            v[i] = w[i] * inv;
    }
    out->seconds = omp_get_wtime() - t0;
    free(v), free(vp), free(w), free(a), free(b);
    pad_free(&q);
    return FDW_OK;
}

int fdw_ete_spectrum_stable(const ete_spectrum *s)
{
    return s->lmin >= ETE_LAMBDA_LO && s->lmax <= ETE_LAMBDA_HI;
}

double fdw_ete_growth(double lambda)
{
    const double h = 1.0 + 0.5 * lambda; /* S: the roots are h +- sqrt(h^2 - 1) */
    return fabs(h) <= 1.0 ? 1.0 : fabs(h) + sqrt(h * h - 1.0);
}
