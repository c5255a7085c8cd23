/* ete_fit.c — the constrained fit of ete_fit.h: the linear program over the operator's
 * distinct coefficients (plus the error bound t), built from samples of the band and of the
 * Nyquist cube, solved by ete_lp.c, then tightened by constraint generation until S keeps
 * its bounds at every local extreme found on a finer grid; and the measures a fit reports. */
#include "kinds/ete/ete_fit.h"
#include "kinds/ete/ete_lp.h"
#include "core/fd_coeffs.h"
#include "core/limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* LP sampling: a cube grid of NC points per axis on [0, pi]; band directions on an ND x ND
 * grid of the octant's polar and azimuth angles, NR radii each. */
#define NC 13
#define ND 9
#define NR 10
/* Verification: a finer cube grid, and band directions and radii. */
#define NF 41
#define NDF 17
#define NRF 40
#define MAX_ROUNDS 40      /* constraint-generation rounds */
#define MAX_EXTREMES 256   /* local extremes polished per scan */
#define VIOLATION 1e-12
/* A row added at a violating extreme asks for this much more than the bound, so the next
 * solution does not merely move the extreme a little (constraint generation converges in
 * a few rounds instead of creeping towards the bound). */
#define GEN_MARGIN 1e-7
/* Grid points this close to a bound start a polish (the grid misses an extreme by up to
 * about S'' (pi / (NF - 1))^2 / 8). */
#define NEAR 0.25

/* The distinct coefficients: var[slot] is the variable of each slot but the centre's; axes
 * of equal r (equal spacing) form one group and share their axis and edge coefficients.
 * The LP is written in the deviation form S(theta) - 1 = sum_s c[s] (b_s(theta) - b_s(0))
 * (basis_dev), which holds S(0) = 1 by construction and keeps its rows free of the
 * cancellation of values near 1 (at small Courant numbers S - 1 is O(r^2) and the plain form
 * lost the feasible set to rounding: no fit below r = 0.2); the variables are c[s] / scale,
 * scale = max r^2, so every column is of order one. */
typedef struct layout {
    int nvar;
    int var[ETE_NCOEF];
    int g[3];
    double scale;
} layout;

static void make_layout(const double r[3], layout *L)
{
    L->g[0] = 0;
    L->g[1] = r[1] == r[0] ? 0 : 1;
    L->g[2] = r[2] == r[0] ? 0 : r[2] == r[1] ? L->g[1] : L->g[1] + 1;
    int ng = 0;
    for (int a = 0; a < 3; a++)
        ng = L->g[a] + 1 > ng ? L->g[a] + 1 : ng;
    L->var[ETE_SLOT_C0] = -1; /* not a variable: S(0) = 1 fixes it (centre_of) */
    int nv = 0;
    for (int gi = 0; gi < ng; gi++) {
        for (int m = 0; m < 4; m++) {
            for (int a = 0; a < 3; a++)
                if (L->g[a] == gi)
                    L->var[1 + 4 * a + m] = nv;
            nv++;
        }
    }
    static const int pa[3] = {0, 0, 1}, pb[3] = {1, 2, 2};
    int key[3];
    for (int e = 0; e < 3; e++) {
        int lo = L->g[pa[e]] < L->g[pb[e]] ? L->g[pa[e]] : L->g[pb[e]];
        int hi = L->g[pa[e]] ^ L->g[pb[e]] ^ lo;
        key[e] = lo * 3 + hi;
        int found = -1;
        for (int f = 0; f < e; f++)
            if (key[f] == key[e])
                found = L->var[ETE_SLOT_XY + f];
        L->var[ETE_SLOT_XY + e] = found >= 0 ? found : nv++;
    }
    L->nvar = nv;
    L->scale = fmax(r[0] * r[0], fmax(r[1] * r[1], r[2] * r[2]));
}

/* Whether theta lies in the region the symmetries of the layout reduce to: within a group,
 * components in decreasing order of axis. */
static int in_region(const layout *L, const double th[3])
{
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (L->g[a] == L->g[b] && th[a] < th[b])
                return 0;
    return 1;
}

/* Move theta into that region by sorting the components of each group. */
static void to_region(const layout *L, double th[3])
{
    for (int pass = 0; pass < 3; pass++)
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++)
                if (L->g[a] == L->g[b] && th[a] < th[b]) {
                    const double t = th[a];
                    th[a] = th[b];
                    th[b] = t;
                }
}

/* The symbol's basis at theta: S = sum_s c[s] out[s]. */
static void basis(const double th[3], double out[ETE_NCOEF])
{
    double c1[3];
    out[ETE_SLOT_C0] = 1.0;
    for (int a = 0; a < 3; a++) {
        double c = cos(th[a]), cm2 = 1.0, cm1 = c;
        c1[a] = c;
        out[1 + 4 * a] = 2.0 * c;
        for (int m = 2; m <= 4; m++) {
            double cm = 2.0 * c * cm1 - cm2;
            out[1 + 4 * a + m - 1] = 2.0 * cm;
            cm2 = cm1;
            cm1 = cm;
        }
    }
    out[ETE_SLOT_XY] = 4.0 * c1[0] * c1[1];
    out[ETE_SLOT_XZ] = 4.0 * c1[0] * c1[2];
    out[ETE_SLOT_YZ] = 4.0 * c1[1] * c1[2];
}

/* b_s(theta) - b_s(0) of every slot, without cancellation: cos(m t) - 1 = -2 sin^2(m t / 2),
 * cos a cos b - 1 = (ca - 1)(cb - 1) + (ca - 1) + (cb - 1). */
static void basis_dev(const double th[3], double out[ETE_NCOEF])
{
    double d1[3];
    out[ETE_SLOT_C0] = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int m = 1; m <= 4; m++) {
            const double h = sin(0.5 * m * th[a]);
            out[1 + 4 * a + m - 1] = -4.0 * h * h;
        }
        d1[a] = 0.5 * out[1 + 4 * a]; /* cos(theta_a) - 1 */
    }
    out[ETE_SLOT_XY] = 4.0 * ((d1[0] * d1[1] + d1[0]) + d1[1]);
    out[ETE_SLOT_XZ] = 4.0 * ((d1[0] * d1[2] + d1[0]) + d1[2]);
    out[ETE_SLOT_YZ] = 4.0 * ((d1[1] * d1[2] + d1[1]) + d1[2]);
}

/* S(theta) - 1 of coefficients c whose S(0) is 1, without cancellation. */
static double symbol_dev(const double *c, const double th[3])
{
    double b[ETE_NCOEF], s = 0.0;
    basis_dev(th, b);
    for (int i = 1; i < ETE_NCOEF; i++)
        s += c[i] * b[i];
    return s;
}

/* 1 - cos(x), without cancellation. */
static double one_minus_cos(double x)
{
    const double h = sin(0.5 * x);
    return 2.0 * h * h;
}

double ete_symbol(const double *c, const double th[3])
{
    double b[ETE_NCOEF], s = 0.0;
    basis(th, b);
    for (int i = 0; i < ETE_NCOEF; i++)
        s += c[i] * b[i];
    return s;
}

/* Gradient and Hessian of S at theta. */
static void derivatives(const double *c, const double th[3], double g[3], double H[3][3])
{
    static const int pa[3] = {0, 0, 1}, pb[3] = {1, 2, 2};
    double sn[3], cs[3];
    for (int a = 0; a < 3; a++) {
        sn[a] = sin(th[a]);
        cs[a] = cos(th[a]);
        g[a] = 0.0;
        for (int b = 0; b < 3; b++)
            H[a][b] = 0.0;
        for (int m = 1; m <= 4; m++) {
            double w = 2.0 * c[1 + 4 * a + m - 1];
            g[a] -= w * m * sin(m * th[a]);
            H[a][a] -= w * m * m * cos(m * th[a]);
        }
    }
    for (int e = 0; e < 3; e++) {
        int a = pa[e], b = pb[e];
        double w = 4.0 * c[ETE_SLOT_XY + e];
        g[a] -= w * sn[a] * cs[b];
        g[b] -= w * cs[a] * sn[b];
        H[a][a] -= w * cs[a] * cs[b];
        H[b][b] -= w * cs[a] * cs[b];
        H[a][b] += w * sn[a] * sn[b];
        H[b][a] += w * sn[a] * sn[b];
    }
}

/* Newton's method on sign * S from theta (kept in [0, pi]^3, where S's extremes lie: it is
 * even and 2 pi periodic in each component); returns the polished sign * S. */
static double polish(const double *c, double th[3], double sign)
{
    double f = sign * ete_symbol(c, th);
    for (int it = 0; it < 30; it++) {
        double g[3], H[3][3];
        derivatives(c, th, g, H);
        for (int a = 0; a < 3; a++) {
            g[a] *= sign;
            for (int b = 0; b < 3; b++)
                H[a][b] *= sign;
        }
        /* ascent direction: Newton's where -H is positive definite, else the gradient */
        double d[3] = {g[0], g[1], g[2]};
        double m11 = -H[0][0], m12 = -H[0][1], m13 = -H[0][2], m22 = -H[1][1], m23 = -H[1][2],
               m33 = -H[2][2];
        double det2 = m11 * m22 - m12 * m12;
        double det3 = m11 * (m22 * m33 - m23 * m23) - m12 * (m12 * m33 - m23 * m13) +
                      m13 * (m12 * m23 - m22 * m13);
        if (m11 > 0 && det2 > 0 && det3 > 1e-300) {
            double inv[3][3] = {
                {(m22 * m33 - m23 * m23), -(m12 * m33 - m13 * m23), (m12 * m23 - m13 * m22)},
                {-(m12 * m33 - m23 * m13), (m11 * m33 - m13 * m13), -(m11 * m23 - m13 * m12)},
                {(m12 * m23 - m22 * m13), -(m11 * m23 - m12 * m13), (m11 * m22 - m12 * m12)}};
            for (int a = 0; a < 3; a++)
                d[a] = (inv[a][0] * g[0] + inv[a][1] * g[1] + inv[a][2] * g[2]) / det3;
        } else {
            double n = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
            if (n == 0.0)
                break;
            for (int a = 0; a < 3; a++)
                d[a] = 0.05 * g[a] / n;
        }
        double step = 1.0, moved = 0.0;
        for (int tries = 0; tries < 8; tries++, step *= 0.5) {
            double t[3];
            for (int a = 0; a < 3; a++)
                t[a] = fmin(fmax(th[a] + step * d[a], 0.0), PI);
            double ft = sign * ete_symbol(c, t);
            if (ft >= f) {
                moved = fabs(t[0] - th[0]) + fabs(t[1] - th[1]) + fabs(t[2] - th[2]);
                memcpy(th, t, sizeof t);
                f = ft;
                break;
            }
        }
        if (moved < 1e-13)
            break;
    }
    return f;
}

/* 1 minus the upper bound of S at theta for band b: the bound is 1 near the band,
 * cos(phimax) beyond ETE_OUT_FACTOR times its edge (ete_fit.h); 1 everywhere without a
 * band. */
static double upper_margin(const ete_band *b, const double th[3])
{
    if (!b || b->stability_only)
        return 0.0;
    double p2 = 0.0;
    for (int a = 0; a < 3; a++)
        p2 += (b->r[a] * th[a]) * (b->r[a] * th[a]);
    const double out = ETE_OUT_FACTOR * b->phimax;
    return p2 > out * out ? one_minus_cos(b->phimax) : 0.0;
}

static double upper_bound(const ete_band *b, const double th[3])
{
    return 1.0 - upper_margin(b, th);
}

/* A point where S leaves its bounds (or comes near them), for the LP or the measure: the
 * grid point where it was found and the polished extreme. */
typedef struct extreme {
    double grid[3];
    double th[3];
    double s;                  /* S at th */
} extreme;

/* Scan the NF^3 grid of [0, pi]^3 for local maxima of S - upper_bound and minima of S
 * (against the 6 axis neighbours, mirrored at the faces) within near of their bounds,
 * polish each and store up to cap of them; returns the count. b may be NULL (bound 1). */
static int find_extremes(const double *c, const ete_band *b, double near, extreme *out,
                         int cap)
{
    double X[NF], Y[NF], Z[NF], cx[NF], cy[NF], cz[NF];
    for (int i = 0; i < NF; i++) {
        double th = PI * i / (NF - 1), b[ETE_NCOEF], t3[3] = {th, th, th};
        basis(t3, b);
        X[i] = Y[i] = Z[i] = 0.0;
        for (int m = 0; m < 4; m++) {
            X[i] += c[ETE_SLOT_X + m] * b[ETE_SLOT_X + m];
            Y[i] += c[ETE_SLOT_Y + m] * b[ETE_SLOT_Y + m];
            Z[i] += c[ETE_SLOT_Z + m] * b[ETE_SLOT_Z + m];
        }
        cx[i] = cy[i] = cz[i] = cos(th);
    }
#define SGRID(i, j, k)                                                                    \
    (c[ETE_SLOT_C0] + X[i] + Y[j] + Z[k] +                                                \
     4.0 * (c[ETE_SLOT_XY] * cx[i] * cy[j] + c[ETE_SLOT_XZ] * cx[i] * cz[k] +            \
            c[ETE_SLOT_YZ] * cy[j] * cz[k]))
#define MIRROR(i) ((i) < 0 ? 1 : (i) >= NF ? NF - 2 : (i))
    int n = 0;
    for (int k = 0; k < NF; k++)
        for (int j = 0; j < NF; j++)
            for (int i = 0; i < NF; i++) {
                if (i == 0 && j == 0 && k == 0)
                    continue; /* S(0) = 1 by consistency */
                const double g[3] = {PI * i / (NF - 1), PI * j / (NF - 1), PI * k / (NF - 1)};
                const double s = SGRID(i, j, k), ub = upper_bound(b, g);
                double sign = s > ub - near ? 1.0 : s < -1.0 + near ? -1.0 : 0.0;
                if (sign == 0.0)
                    continue;
                const int nb[6][3] = {{i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k},
                                      {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
                int is_ext = 1;
                for (int q = 0; q < 6 && is_ext; q++) {
                    const int ii = MIRROR(nb[q][0]), jj = MIRROR(nb[q][1]), kk = MIRROR(nb[q][2]);
                    const double gq[3] = {PI * ii / (NF - 1), PI * jj / (NF - 1),
                                          PI * kk / (NF - 1)};
                    const double o = SGRID(ii, jj, kk);
                    is_ext = sign > 0 ? o - upper_bound(b, gq) <= s - ub : o >= s;
                }
                if (!is_ext)
                    continue;
                extreme e = {{g[0], g[1], g[2]}, {g[0], g[1], g[2]}, 0.0};
                e.s = sign * polish(c, e.th, sign);
                if (n < cap) {
                    out[n++] = e;
                } else { /* keep the most extreme */
                    int w = 0;
                    for (int q = 1; q < n; q++)
                        if (fabs(out[q].s) < fabs(out[w].s))
                            w = q;
                    if (fabs(e.s) > fabs(out[w].s))
                        out[w] = e;
                }
            }
#undef SGRID
#undef MIRROR
    return n;
}

/* Largest |S| of c over the Nyquist cube (grid scan and Newton-polished extremes). */
static double ete_max_symbol(const double *c)
{
    extreme ex[MAX_EXTREMES];
    int n = find_extremes(c, NULL, NEAR, ex, MAX_EXTREMES);
    double m = 1.0; /* S(0) */
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(ex[i].s));
    /* the grid itself (extremes below the scan's threshold cannot beat 1) */
    return m;
}

/* Band sample directions: unit vectors u of the octant on an nd x nd grid of polar and
 * azimuth angles; theta_a = phi u_a / r_a. Returns u for index q < nd * nd. */
static void direction(int q, int nd, double u[3])
{
    double al = 0.5 * PI * (q / nd) / (nd - 1), be = 0.5 * PI * (q % nd) / (nd - 1);
    u[0] = sin(al) * cos(be);
    u[1] = sin(al) * sin(be);
    u[2] = cos(al);
}

/* theta of direction u at phase phi; 0 when it leaves the cube (the band sample aliases). */
static int band_theta(const ete_band *b, const double u[3], double phi, double th[3])
{
    for (int a = 0; a < 3; a++) {
        th[a] = phi * u[a] / b->r[a];
        if (th[a] > PI)
            return 0;
    }
    return 1;
}

/* The relative phase error at direction (al, be) (polar and azimuth angles in the octant)
 * and phase phi of the band: of c, or where fd_ratio > 0 of the order-8 acoustic scheme at
 * dt * fd_ratio (weights d8). -1 where the point leaves the cube. */
static double error_at(const double *c, const ete_band *b, double fd_ratio, const double *d8,
                       double al, double be, double phi)
{
    const double u[3] = {sin(al) * cos(be), sin(al) * sin(be), cos(al)};
    double th[3];
    if (!band_theta(b, u, phi, th))
        return -1.0;
    double s, ph = phi;
    if (fd_ratio > 0) {
        s = 1.0;
        for (int a = 0; a < 3; a++) {
            double D = d8[0];
            for (int m = 1; m <= 4; m++)
                D += 2.0 * d8[m] * cos(m * th[a]);
            s += 0.5 * (fd_ratio * b->r[a]) * (fd_ratio * b->r[a]) * D;
        }
        ph = fd_ratio * phi;
    } else {
        s = ete_symbol(c, th);
    }
    return fabs(acos(fmin(fmax(s, -1.0), 1.0)) / ph - 1.0);
}

#define POLISHED 6 /* band grid maxima polished by a pattern search */

/* Worst relative phase error over the band: the NDF x NDF x NRF grid of directions and
 * phases, then a pattern search (steps halved until below 1e-7) from its POLISHED largest
 * values, since the grid alone misses the worst by a few per cent. fd_ratio as error_at. */
static double band_error(const double *c, const ete_band *b, double fd_ratio)
{
    layout L;
    make_layout(b->r, &L);
    double d8[FDW_MAX_RADIUS + 1];
    fdw_fd2_coeffs(8, d8);
    double top[POLISHED][4];   /* al, be, phi, error */
    int ntop = 0;
    const double da = 0.5 * PI / (NDF - 1), dp = b->phimax / NRF;
    for (int q = 0; q < NDF * NDF; q++) {
        double u[3];
        direction(q, NDF, u);
        double tu[3] = {u[0] / b->r[0], u[1] / b->r[1], u[2] / b->r[2]};
        if (!in_region(&L, tu))
            continue;
        const double al = da * (q / NDF), be = da * (q % NDF);
        for (int j = 1; j <= NRF; j++) {
            const double e = error_at(c, b, fd_ratio, d8, al, be, dp * j);
            if (e < 0)
                break;
            int w = ntop;
            if (ntop < POLISHED) {
                ntop++;
            } else {
                w = 0;
                for (int t = 1; t < POLISHED; t++)
                    if (top[t][3] < top[w][3])
                        w = t;
                if (e <= top[w][3])
                    continue;
            }
            top[w][0] = al;
            top[w][1] = be;
            top[w][2] = dp * j;
            top[w][3] = e;
        }
    }
    double worst = 0.0;
    for (int t = 0; t < ntop; t++) {
        double x[3] = {top[t][0], top[t][1], top[t][2]}, e = top[t][3];
        double step[3] = {da, da, dp};
        const double lo[3] = {0.0, 0.0, 1e-3 * b->phimax}, hi[3] = {0.5 * PI, 0.5 * PI,
                                                                    b->phimax};
        for (int it = 0; it < 200 && fmax(step[0], step[2]) > 1e-7; it++) {
            int moved = 0;
            for (int d = 0; d < 3; d++)
                for (int sg = -1; sg <= 1; sg += 2) {
                    double y[3] = {x[0], x[1], x[2]};
                    y[d] = fmin(fmax(y[d] + sg * step[d], lo[d]), hi[d]);
                    const double ey = error_at(c, b, fd_ratio, d8, y[0], y[1], y[2]);
                    if (ey > e) {
                        memcpy(x, y, sizeof x);
                        e = ey;
                        moved = 1;
                    }
                }
            if (!moved)
                for (int d = 0; d < 3; d++)
                    step[d] *= 0.5;
        }
        worst = fmax(worst, e);
    }
    return worst;
}

double ete_phase_error(const double *c, const ete_band *b) { return band_error(c, b, 0.0); }

double ete_fd8_phase_error(const ete_band *b, double ratio)
{
    return ratio > 0 ? band_error(NULL, b, ratio) : 0.0;
}

/* Reduce a slot vector (basis values or derivative weights) to the layout's variables. */
static void reduce(const layout *L, const double *slots, double *row)
{
    memset(row, 0, (size_t)(L->nvar + 1) * sizeof *row);
    for (int s = 0; s < ETE_NCOEF; s++)
        if (L->var[s] >= 0)
            row[L->var[s]] += L->scale * slots[s];
}

/* The centre coefficient that makes S(0) = 1. */
static double centre_of(const double *c)
{
    double b0[ETE_NCOEF], sum = 0.0;
    const double zero[3] = {0, 0, 0};
    basis(zero, b0);
    for (int s = 1; s < ETE_NCOEF; s++)
        sum += c[s] * b0[s];
    return 1.0 - sum;
}

/* Rows of the bounds at theta, tightened by extra: with upper S <= 1 - um (um = 1 - ub, 0
 * or 1 - cos(phimax)), with lower S >= -1 + ETE_STAB_MARGIN; in deviation form. */
static int add_cube_rows(ete_lp *lp, const layout *L, const double th[3], int upper, double um,
                         int lower, double extra)
{
    double b[ETE_NCOEF], row[ETE_LP_MAXN];
    basis_dev(th, b);
    reduce(L, b, row);
    row[L->nvar] = 0.0;
    if (upper && ete_lp_add_row(lp, row, -um - extra))
        return -1;
    for (int i = 0; i < L->nvar; i++)
        row[i] = -row[i];
    if (lower && ete_lp_add_row(lp, row, 2.0 - ETE_STAB_MARGIN - extra))
        return -1;
    return 0;
}

/* The LP of band b before constraint generation. */
static int build_lp(ete_lp *lp, const layout *L, const ete_band *b)
{
    const int nv = L->nvar;
    double slots[ETE_NCOEF], row[ETE_LP_MAXN];
    /* -d2S/dth_a2 (0) = 2 sum m^2 c_a[m] + 4 sum_{edges at a} e = r_a^2, one per group */
    for (int a = 0; a < 3; a++) {
        int first = 1;
        for (int q = 0; q < a; q++)
            first &= L->g[q] != L->g[a];
        if (!first)
            continue;
        memset(slots, 0, sizeof slots);
        for (int m = 1; m <= 4; m++)
            slots[1 + 4 * a + m - 1] = 2.0 * m * m;
        slots[ETE_SLOT_XY] = a == 0 || a == 1 ? 4.0 : 0.0;
        slots[ETE_SLOT_XZ] = a == 0 || a == 2 ? 4.0 : 0.0;
        slots[ETE_SLOT_YZ] = a == 1 || a == 2 ? 4.0 : 0.0;
        reduce(L, slots, row);
        row[nv] = 0.0;
        const double rr = b->r[a] * b->r[a];
        if (ete_lp_add_row(lp, row, rr))
            return -1;
        for (int i = 0; i < nv; i++)
            row[i] = -row[i];
        if (ete_lp_add_row(lp, row, -rr))
            return -1;
    }
    /* t >= 0 */
    memset(row, 0, sizeof row);
    row[nv] = -1.0;
    if (ete_lp_add_row(lp, row, 0.0))
        return -1;
    /* stability on the coarse cube grid */
    for (int k = 0; k < NC; k++)
        for (int j = 0; j < NC; j++)
            for (int i = 0; i < NC; i++) {
                double th[3] = {PI * i / (NC - 1), PI * j / (NC - 1), PI * k / (NC - 1)};
                if ((i | j | k) == 0 || !in_region(L, th))
                    continue;
                if (add_cube_rows(lp, L, th, 1, upper_margin(b, th), 1, 0.0))
                    return -1;
            }
    /* the band: |S - cos phi| <= t phi sin phi */
    for (int q = 0; q < ND * ND; q++) {
        double u[3];
        direction(q, ND, u);
        double tu[3] = {u[0] / b->r[0], u[1] / b->r[1], u[2] / b->r[2]};
        if (!in_region(L, tu))
            continue;
        for (int j = 1; j <= NR; j++) {
            double phi = b->phimax * j / NR, th[3];
            if (!band_theta(b, u, phi, th))
                break;
            basis_dev(th, slots);
            reduce(L, slots, row);
            const double wgt = b->minimax ? 1.0 : (phi / b->phimax) * (phi / b->phimax);
            row[nv] = -phi * fmax(sin(phi), 0.05) * wgt;
            if (ete_lp_add_row(lp, row, -one_minus_cos(phi)))
                return -1;
            for (int i = 0; i < nv; i++)
                row[i] = -row[i];
            if (ete_lp_add_row(lp, row, one_minus_cos(phi)))
                return -1;
        }
    }
    return 0;
}

/* The fit with the LP's variables scaled by factor x max r^2. */
static ete_fit_status fit_scaled(const ete_band *b, ete_op *op, double factor)
{
    memset(op, 0, sizeof *op);
    layout L;
    make_layout(b->r, &L);
    L.scale *= factor;
    ete_lp *lp = ete_lp_new(L.nvar + 1);
    if (!lp)
        return ETE_FIT_NOMEM;
    ete_fit_status st = ETE_FIT_OK;
    if (build_lp(lp, &L, b) != 0) {
        st = ETE_FIT_NOMEM;
        goto out;
    }
    double obj[ETE_LP_MAXN] = {0}, z[ETE_LP_MAXN];
    obj[L.nvar] = 1.0;
    extreme ex[MAX_EXTREMES];
    for (int round = 0;; round++) {
        ete_lp_status ls = ete_lp_solve(lp, obj, z);
        if (ls == ETE_LP_INFEASIBLE) {
            st = ETE_FIT_UNSTABLE;
            goto out;
        }
        if (ls == ETE_LP_NOMEM) {
            st = ETE_FIT_NOMEM;
            goto out;
        }
        if (ls != ETE_LP_OPTIMAL) {
            st = ETE_FIT_SOLVER;
            goto out;
        }
        for (int s = 1; s < ETE_NCOEF; s++)
            op->c[s] = L.scale * z[L.var[s]];
        op->c[ETE_SLOT_C0] = centre_of(op->c);
        int n = find_extremes(op->c, b, NEAR, ex, MAX_EXTREMES), added = 0;
        for (int i = 0; i < n; i++) {
            /* the polished extreme, and the grid point it came from (polishing S may carry
             * a point across the band's bound) */
            for (int w = 0; w < 2; w++) {
                double th[3];
                memcpy(th, w ? ex[i].grid : ex[i].th, sizeof th);
                const double dev = symbol_dev(op->c, th), um = upper_margin(b, th);
                const int up = dev > -um + VIOLATION;
                const int lo = dev < -2.0 + ETE_STAB_MARGIN - VIOLATION;
                if (!up && !lo)
                    continue;
                to_region(&L, th); /* the same point in the symmetric region: S is equal */
                if (add_cube_rows(lp, &L, th, up, um, lo, GEN_MARGIN)) {
                    st = ETE_FIT_NOMEM;
                    goto out;
                }
                added++;
            }
        }
        if (!added)
            break;
        if (round == MAX_ROUNDS) {
            st = ETE_FIT_SOLVER;
            goto out;
        }
    }
    op->phase_err = ete_phase_error(op->c, b);
    op->max_abs = ete_max_symbol(op->c);
out:
    ete_lp_free(lp);
    return st;
}

/* A simplex method can stall on a degenerate LP (a cycle of tiny steps, a basis that turns
 * singular); the same problem with its variables scaled otherwise takes other pivots, so a
 * stalled fit is tried again at three other scalings (the scan in test_ete_fit's
 * test_fit_scan: no stall left over its 180 bands). */
ete_fit_status ete_fit(const ete_band *b, ete_op *op)
{
    memset(op, 0, sizeof *op);
    for (int a = 0; a < 3; a++)
        if (!(b->r[a] > 0) || !isfinite(b->r[a]))
            return ETE_FIT_SOLVER;
    if (!(b->phimax > 0) || !(b->phimax < PI))
        return ETE_FIT_SOLVER;
    static const double factors[4] = {1.0, 4.0, 0.25, 16.0};
    ete_fit_status st = ETE_FIT_SOLVER;
    for (int i = 0; i < 4 && st == ETE_FIT_SOLVER; i++)
        st = fit_scaled(b, op, factors[i]);
    return st;
}

double ete_stable_limit(const double w[3], double pf)
{
    double lo = 0.0, hi = 0.0;
    double wmax = fmax(w[0], fmax(w[1], w[2]));
    if (!(wmax > 0))
        return 0.0;
    /* pf <= 0: |S| <= 1 alone, on a narrow band (the band does not bind it) */
    const int only = !(pf > 0);
    if (only)
        pf = 0.1 * wmax;
    ete_op op;
    /* bracket: double until infeasible after a feasible one (r = 4 is far beyond any
     * 37-point stability) or the band's edge reaches pi. A very uneven spacing with a narrow
     * band can be infeasible at the smallest r and feasible above (spacing (10, 100, 1) m,
     * fmax 2.5 Hz at 2000 m/s: s = 0.25 infeasible, 0.5 feasible). */
    for (double s = 0.25 / wmax; s <= 16.0 / wmax; s *= 2.0) {
        ete_band b = {{s * w[0], s * w[1], s * w[2]}, s * pf, only, only};
        ete_fit_status st = b.phimax < PI ? ete_fit(&b, &op) : ETE_FIT_UNSTABLE;
        if (st == ETE_FIT_OK) {
            lo = s;
        } else if (st == ETE_FIT_NOMEM) {
            return 0.0;
        } else if (lo > 0.0) { /* unstable, or a fit the solver could not finish: the limit
                                * is taken below it */
            hi = s;
            break;
        }
    }
    if (hi == 0.0 || lo == 0.0)
        return lo;
    while (hi - lo > 1e-4 * lo) {
        double s = 0.5 * (lo + hi);
        ete_band b = {{s * w[0], s * w[1], s * w[2]}, s * pf, only, only};
        ete_fit_status st = b.phimax < PI ? ete_fit(&b, &op) : ETE_FIT_UNSTABLE;
        if (st == ETE_FIT_OK)
            lo = s;
        else if (st == ETE_FIT_NOMEM)
            return 0.0;
        else
            hi = s;
    }
    return lo;
}
